import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from hardware_catalog.models import Accelerator, Price

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("load_catalog", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_loads_the_shipped_catalog_and_says_what_it_added():
    out, _ = run()
    assert "accelerators from accelerators.csv: 20 added" in out
    assert "accelerators from accelerators_2026.csv: 22 added" in out
    assert "prices from prices.csv: 53 added" in out
    assert "prices from prices_2026.csv: 62 added" in out
    assert "prices from tco_2026.csv: 27 added" in out
    assert Accelerator.objects.count() >= 14
    h100 = Accelerator.objects.get(vendor="NVIDIA", model="H100 SXM5 80GB")
    assert (h100.memory_gib, h100.bf16_tflops_dense, h100.tdp_w) == (80, 989.5, 700)


def test_it_adds_nothing_the_second_time():
    run()
    counts = (Accelerator.objects.count(), Price.objects.count())
    out, _ = run()
    assert "accelerators from accelerators.csv: 0 added, 0 updated, 20 unchanged" in out
    assert "prices from prices.csv: 0 added, 0 updated, 53 unchanged" in out
    assert "prices from prices_2026.csv: 0 added, 0 updated, 62 unchanged" in out
    assert (Accelerator.objects.count(), Price.objects.count()) == counts


GOOD_ROW = "L4,cloud_on_demand,ExampleCloud,eu-west-1,x.l4,1,0.70,per_instance_hour,2025-03-01,,quote\n"
HEADER = (
    "model,price_kind,provider,region,instance_type,accelerators_per_instance,"
    "price_usd,unit,effective_from,as_of,source\n"
)


def write(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "".join(rows))
    return path


def test_it_imports_a_users_valid_price_list(tmp_path):
    run()
    out, _ = run("--prices", str(write(tmp_path, GOOD_ROW)))
    assert "1 added" in out
    assert Price.objects.filter(provider="ExampleCloud").count() == 1


@pytest.mark.parametrize(
    "bad_row, column, reason",
    [
        ("Z999,cloud_on_demand,C,r,i,1,1.0,per_instance_hour,2025-03-01,,s\n", "model", "unknown accelerator 'Z999'"),
        ("L4,cloud_on_demand,C,r,i,1,-2,per_instance_hour,2025-03-01,,s\n", "price_usd", "price must be positive"),
        ("L4,cloud_on_demand,C,r,i,1,abc,per_instance_hour,2025-03-01,,s\n", "price_usd", "'abc' is not a number"),
        ("L4,cloud_on_demand,C,r,i,1,NaN,per_instance_hour,2025-03-01,,s\n", "price_usd", "not a finite number"),
        ("L4,cloud_on_demand,C,r,i,1,1.0,per_instance_hour,2025-13-45,,s\n", "effective_from", "is not a date"),
        ("L4,rental,C,r,i,1,1.0,per_instance_hour,2025-03-01,,s\n", "price_kind", "'rental' is not one of"),
        ("L4,cloud_on_demand,C,r,i,1,1.0,per_fortnight,2025-03-01,,s\n", "unit", "'per_fortnight' is not one of"),
        (GOOD_ROW, "effective_from", "duplicates line 2"),
    ],
)
def test_it_imports_nothing_from_a_file_with_one_bad_row(tmp_path, bad_row, column, reason):
    run()
    before = Price.objects.count()
    other_good = "T4,cloud_spot,ExampleCloud,eu-west-1,x.t4,1,0.20,per_instance_hour,2025-03-01,,quote\n"
    path = write(tmp_path, GOOD_ROW, other_good, bad_row)
    with pytest.raises(CommandError, match="1 bad row"):
        call_command("load_catalog", "--prices", str(path), stdout=StringIO(), stderr=(err := StringIO()))
    assert f"line 4, column '{column}': " in err.getvalue()
    assert reason in err.getvalue()
    assert Price.objects.count() == before


def test_it_refuses_to_overwrite_a_stored_price(tmp_path):
    run()
    run("--prices", str(write(tmp_path, GOOD_ROW)))
    changed = GOOD_ROW.replace("0.70", "0.75")
    with pytest.raises(CommandError):
        call_command(
            "load_catalog", "--prices", str(write(tmp_path, changed)), stdout=StringIO(), stderr=(err := StringIO())
        )
    assert "prices are never overwritten" in err.getvalue()
    assert str(Price.objects.get(provider="ExampleCloud").price_usd) == "0.700000"


def test_it_exits_non_zero_from_the_command_line(tmp_path):
    path = write(tmp_path, "Z999,cloud_on_demand,C,r,i,1,1.0,per_instance_hour,2025-03-01,,s\n")
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path}/x.db"}
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], check=True, env=env)
    result = subprocess.run(
        [sys.executable, "manage.py", "load_catalog", "--prices", str(path)], capture_output=True, text=True, env=env
    )
    assert result.returncode != 0
    assert "line 2, column 'model'" in result.stderr


def test_it_imports_nothing_from_a_file_with_a_back_dated_price(tmp_path):
    run()
    run("--prices", str(write(tmp_path, GOOD_ROW)))  # ExampleCloud x.l4 from 2025-03-01
    later = GOOD_ROW.replace("2025-03-01", "2025-09-01").replace("0.70", "0.72")
    back_dated = GOOD_ROW.replace("2025-03-01", "2025-01-01").replace("0.70", "7.00")
    with pytest.raises(CommandError, match="1 bad row"):
        call_command("load_catalog", "--prices", str(write(tmp_path, later, back_dated)), stdout=StringIO(),
                     stderr=(err := StringIO()))  # fmt: skip
    assert "line 3, column 'effective_from': 2025-01-01 00:00 UTC is not after 2025-03-01 00:00 UTC" in err.getvalue()
    assert Price.objects.filter(provider="ExampleCloud").count() == 1  # the good later row was not imported either
