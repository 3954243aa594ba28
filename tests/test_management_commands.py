"""Every management command ends bad input with one line and exit status 1, nothing half-written; an archive
is unpacked only within bounds and inside its target (issue #26, item 12).

Before: a binary file, a NUL byte, a truncated or hostile .tar.xz ended in a raw traceback (nothing
half-written, but not the promised clear error); extraction had no size cap.

Each case runs `manage.py` as an operator would, against the test database.
"""

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.db import connection

from hardware_catalog.models import Price
from results.models import BenchmarkRun

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_TREE = ROOT / "tests" / "fixtures" / "mlperf_sample"
PRICE_HEADER = "model,price_kind,provider,region,instance_type,accelerators_per_instance,price_usd,unit,effective_from,as_of,source\n"  # noqa: E501


def _manage(*args: str, **env_extra: str) -> subprocess.CompletedProcess:
    test_database = urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}")
    env = {**os.environ, **env_extra, "DATABASE_URL": urlunsplit(test_database)}
    env.pop("TEST_DATABASE_NAME", None)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def _assert_one_line_error(result: subprocess.CompletedProcess, *says: str) -> None:
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("CommandError: "), result.stderr  # no traceback
    for text in says:
        assert text in lines[0], lines[0]


def _tar_xz(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:xz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def binary_file(tmp_path) -> Path:
    path = tmp_path / "prices.csv"
    path.write_bytes(bytes(range(256)) * 8)  # 2 KB of every byte value: not UTF-8
    return path


def test_a_binary_price_file_is_one_line_and_exit_1(catalog, binary_file):
    before = Price.objects.count()
    _assert_one_line_error(_manage("load_catalog", "--prices", str(binary_file)), "not UTF-8 text")
    assert Price.objects.count() == before


def test_a_nul_byte_in_a_price_file_is_one_line_and_nothing_is_written(catalog, tmp_path):
    path = tmp_path / "prices.csv"
    rows = ("T4,cloud_on_demand,Good,us-east-1,g4dn.xlarge,1,0.5,per_instance_hour,2025-12-01,,test\n"
            "T4,cloud_on_demand,Te\x00st,us-east-1,g4dn.xlarge,1,0.5,per_instance_hour,2025-12-01,,test\n")  # fmt: skip
    path.write_text(PRICE_HEADER + rows)
    before = Price.objects.count()
    _assert_one_line_error(_manage("load_catalog", "--prices", str(path)), "NUL")
    assert Price.objects.count() == before  # the good row is not written either


def test_binary_files_given_to_the_other_loaders_are_one_line_and_exit_1(db, binary_file):
    _assert_one_line_error(_manage("load_published_results", "--file", str(binary_file)), "BadGzipFile")
    _assert_one_line_error(_manage("declare_workload", str(binary_file)), "not UTF-8 text")


def test_a_truncated_archive_is_one_line_and_imports_nothing(db, tmp_path):
    whole = tmp_path / "whole_v4.1.tar.xz"
    with tarfile.open(whole, "w:xz") as archive:
        archive.add(SAMPLE_TREE, arcname=".")
    truncated = tmp_path / "results_v4.1.tar.xz"
    truncated.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])  # its first half
    _assert_one_line_error(_manage("import_mlperf", str(truncated)), "truncated or corrupt", "EOFError")
    assert not BenchmarkRun.objects.exists()


def test_an_archive_member_outside_the_target_is_refused_before_anything_is_unpacked(db, tmp_path):
    (tmp_path / "in").mkdir()
    hostile = _tar_xz(tmp_path / "in" / "results_v4.1.tar.xz", {"closed/readme.txt": b"ok", "../../evil.txt": b"evil"})
    result = _manage("import_mlperf", str(hostile))
    _assert_one_line_error(result, "member '../../evil.txt' refused", "outside the destination")
    assert not list(tmp_path.rglob("evil.txt")) and not BenchmarkRun.objects.exists()


def test_an_archive_larger_unpacked_than_the_cap_is_refused(db, tmp_path):
    # 2,000,000 zero bytes compress to well under 1 KB: a small decompression bomb against a 1,000,000-byte cap.
    bomb = _tar_xz(tmp_path / "results_v4.1.tar.xz", {"closed/zeros.bin": b"\0" * 2_000_000})
    assert bomb.stat().st_size < 2_000
    result = _manage("import_mlperf", str(bomb), INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES="1000000")
    _assert_one_line_error(result, "unpacks to more than 1000000 bytes", "INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES")


def test_a_path_that_is_not_there_is_one_line(db, tmp_path):
    _assert_one_line_error(_manage("load_catalog", "--prices", str(tmp_path / "nope.csv")), "no such file")
    _assert_one_line_error(_manage("import_mlperf", str(tmp_path / "nope_v4.1.tar.xz")), "neither a directory")
