"""Where result trees come from: a directory, or a .tar.xz/.tar.gz archive of one (unpacked to a temp dir)."""

from __future__ import annotations

import contextlib
import tarfile
import tempfile
from pathlib import Path

from .tree import Record, read_tree, round_from_path


class SourceError(ValueError):
    pass


@contextlib.contextmanager
def opened(path: Path):
    """The tree's root directory for `path` (an archive is unpacked for the duration)."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file() or not tarfile.is_tarfile(path):
        raise SourceError(f"{path}: neither a directory nor a tar archive")
    with tempfile.TemporaryDirectory(prefix="mlperf-") as temp, tarfile.open(path) as archive:
        archive.extractall(temp, filter="data")
        yield Path(temp)


def read_source(path: Path, round_name: str | None = None) -> list[Record]:
    """Records of one tree or archive; the round is read from the path ('..._v5.1_...'), else the one given."""
    round_name = round_from_path(path) or round_name
    if not round_name:
        raise SourceError(f"{path}: the round is not in the path; give --round (e.g. v4.1)")
    with opened(path) as root:
        return read_tree(root, round_name=round_name)


def unique(records: list[Record]) -> list[Record]:
    """One record per (round, division, submitter, system, benchmark, scenario): the first seen."""
    seen, kept = set(), []
    for record in records:
        key = (record.round, record.division, record.submitter, record.system, record.benchmark, record.scenario)
        if key not in seen:
            seen.add(key)
            kept.append(record)
    return kept
