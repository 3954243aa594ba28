"""Where published results come from: a result tree (a directory, or a .tar.xz/.tar.gz archive of one, unpacked to
a temp dir) or MLCommons' results table of a round (a .json file); ``unique`` makes one record per result of all."""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import tarfile
import tempfile
import zlib
from pathlib import Path

from django.conf import settings

import workloads

from . import metrics, table
from .tree import Record, read_tree, round_from_path


class SourceError(ValueError):
    pass


@contextlib.contextmanager
def opened(path: Path):
    """The tree's root directory for `path` (an archive is unpacked for the duration).

    An archive is checked whole before anything is written: readable to its end (not truncated or
    corrupt), within settings.INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES and _MAX_MEMBERS, and every member a plain file or
    folder that lands inside the target (no absolute path, no '..', no link out). Any failure is a
    SourceError naming the archive and the problem.
    """
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file() or not tarfile.is_tarfile(path):
        raise SourceError(f"{path}: neither a directory nor a tar archive")
    with _reading(path):
        archive = tarfile.open(path)
    with archive:
        with _reading(path):
            unpacked_bytes = _checked_size(path, archive)
        with tempfile.TemporaryDirectory(prefix="mlperf-", dir=memory_temp_dir(unpacked_bytes)) as temp:
            with _reading(path):
                archive.extractall(temp, filter="data")
            yield Path(temp)


@contextlib.contextmanager
def _reading(path: Path):
    """A truncated or corrupt archive, as a SourceError naming it."""
    try:
        yield
    except (tarfile.TarError, EOFError, lzma.LZMAError, zlib.error, OSError) as exc:
        raise SourceError(
            f"{path}: not a readable archive (truncated or corrupt?): {type(exc).__name__}: {exc}"
        ) from None


def _checked_size(path: Path, archive: tarfile.TarFile) -> int:
    """The bytes `archive` unpacks to, reading its headers to the end; SourceError past a bound or for a member
    that would land outside the target."""
    max_bytes, max_members = settings.INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES, settings.INFERLEDGER_ARCHIVE_MAX_MEMBERS
    total, count = 0, 0
    for member in archive:
        count += 1
        total += member.size
        if total > max_bytes:
            raise SourceError(
                f"{path}: unpacks to more than {max_bytes} bytes (INFERLEDGER_ARCHIVE_MAX_UNPACKED_BYTES): refused"
            )
        if count > max_members:
            raise SourceError(f"{path}: more than {max_members} members (INFERLEDGER_ARCHIVE_MAX_MEMBERS): refused")
        try:
            tarfile.data_filter(member, "/target")
        except tarfile.FilterError as exc:
            raise SourceError(f"{path}: member {member.name!r} refused: {exc}") from None
    return total


# A result tree is thousands of small folders and files: on a busy disk, making and removing them took most of
# an import (6.6 s of 10 s for the two shared subsets on a loaded 2-core host; 1.7 s in memory).
MEMORY_TEMP_DIRS = (Path("/dev/shm"),)


def memory_temp_dir(needed_bytes: int) -> str | None:
    """A RAM-backed temp dir with room for twice `needed_bytes`, if the host has one; else None (the default)."""
    for candidate in MEMORY_TEMP_DIRS:
        try:
            if os.access(candidate, os.W_OK) and shutil.disk_usage(candidate).free > 2 * needed_bytes:
                return str(candidate)
        except OSError:
            continue
    return None


def read_source(path: Path, round_name: str | None = None) -> list[Record]:
    """Records of one tree, archive or results table; the round is read from the path ('..._v5.1_...'), else the
    table's rows, else the one given."""
    path = Path(path)
    if table.is_table(path):
        try:
            records = table.read_table(path, round_name=round_from_path(path) or round_name)
        except table.TableError as exc:
            raise SourceError(str(exc)) from None
        if any(not record.round for record in records):
            raise SourceError(f"{path}: the round is neither in the path nor in its rows; give --round (e.g. v6.1)")
        return records
    round_name = round_from_path(path) or round_name
    if not round_name:
        raise SourceError(f"{path}: the round is not in the path; give --round (e.g. v4.1)")
    with opened(path) as root:
        return read_tree(root, round_name=round_name)


def result_key(record: Record) -> tuple:
    """What names one result whatever its source's spelling: scenario folders in any case, benchmark spellings."""
    scenario = metrics.scenario_from_folder(record.scenario) or record.scenario.lower()
    benchmark = workloads.normalise_benchmark_name(record.benchmark)
    return (record.round, record.division.lower(), record.submitter, record.system, benchmark, scenario)


def unique(records: list[Record]) -> list[Record]:
    """One record per result. Of two trees' records the first is kept; a result in a tree and in the results table
    keeps the tree's (its latency percentiles) with the table's figure and unit beside it, and the table's row
    stands in for a tree record that could not be read."""
    kept: dict[tuple, Record] = {}
    for record in records:
        key = result_key(record)
        first = kept.get(key)
        if first is None:
            kept[key] = record
            continue
        from_table, tree = (record, first) if record.table_value and not first.table_value else (first, record)
        if not (from_table.table_value and not tree.table_value):
            continue  # two trees, or two tables: the first seen
        if tree.problem and not from_table.problem:
            kept[key] = from_table
            continue
        tree.table_value, tree.table_unit = from_table.table_value, from_table.table_unit
        tree.availability = tree.availability or from_table.availability
        tree.published_on = tree.published_on or from_table.published_on
        kept[key] = tree
    return list(kept.values())
