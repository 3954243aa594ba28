"""Loads that many tests repeat, done for real once per session and replayed after that (CI time).

Loading the shipped catalog and published results takes 10-15 s (1,274 results, 15,786 cost snapshots); about
twenty tests start from that data, and eighty from the catalog. `replayed(name, load)` runs `load()` the first
time and keeps a binary COPY of every table it wrote; a later call whose starting point is the same replays
those rows (PostgreSQL COPY, a fraction of a second) instead of loading again.

It replays only when that is exactly what the load would have done:
- the project's own tables hold the same rows as when the load was recorded (counted and hashed, ids included);
  a test that made an accelerator first, say, loads for real;
- every table the load wrote was empty before it (a load that updated rows already there is never recorded);
- the same kind of test database: inside a test's transaction (callbacks on commit never run) or committed
  (a live-server test: they run), recorded separately.
The loads replayed read only the project's tables and files, so Django's own tables (users, sessions, permissions)
do not take part in the comparison. What the load's saves would have signalled (the ranking cache's data version)
is signalled after a replay. `load_counts()` says how often each load ran for real and was replayed.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.management.color import no_style
from django.db import connection, transaction

LOADED, REPLAYED = "loaded", "replayed"
_counts: Counter = Counter()


@dataclass(frozen=True)
class _Recording:
    before: dict[str, tuple[int, str]]  # the project's tables when the load began: (rows, hash of the rows)
    rows: dict[str, bytes]  # each table the load wrote: its rows in PostgreSQL's binary COPY format
    models: tuple  # the models of those tables (their id sequences are moved past the replayed ids)


_recordings: dict[tuple[str, bool], _Recording] = {}


def replayed(name: str, load: Callable[[], None]) -> None:
    """load(), or the rows it wrote when it last ran from this same starting point (see the module)."""
    if connection.vendor != "postgresql":
        load()
        _counts[name, LOADED] += 1
        return
    key = (name, connection.in_atomic_block)
    before = _fingerprint(_tables())
    recording = _recordings.get(key)
    if recording is not None and _ours(before) == recording.before:
        _replay(recording)
        _counts[name, REPLAYED] += 1
        return
    load()
    _counts[name, LOADED] += 1
    if recording is None:
        _record(key, before)


def load_counts() -> dict[tuple[str, str], int]:
    return dict(_counts)


def _record(key: tuple[str, bool], before: dict[str, tuple[int, str]]) -> None:
    after = _fingerprint(_tables())
    written = [table for table, state in after.items() if state != before.get(table)]
    if any(before.get(table, (0, ""))[0] for table in written):
        return  # the load changed rows that were there before it: replaying its rows alone would not redo that
    by_table = {model._meta.db_table: model for model in apps.get_models(include_auto_created=True)}
    models = tuple(by_table[table] for table in written if table in by_table)
    if len(models) != len(written):
        return  # a table no model describes: its id sequence could not be moved on
    with connection.cursor() as cursor:
        rows = {table: _copy_out(cursor, table) for table in written}
    _recordings[key] = _Recording(_ours(before), rows, models)


def _replay(recording: _Recording) -> None:
    from accounting.rankings.cache import forget_data_version

    with transaction.atomic(), connection.cursor() as cursor:  # foreign keys are checked at the end, all at once
        for table, rows in recording.rows.items():
            with cursor.cursor.copy(f"COPY {connection.ops.quote_name(table)} FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(rows)
        for statement in connection.ops.sequence_reset_sql(no_style(), recording.models):
            cursor.execute(statement)
    forget_data_version()  # as the load's saves would have


def _copy_out(cursor, table: str) -> bytes:
    chunks = []
    with cursor.cursor.copy(f"COPY {connection.ops.quote_name(table)} TO STDOUT (FORMAT BINARY)") as copy:
        for chunk in copy:
            chunks.append(bytes(chunk))
    return b"".join(chunks)


def _tables() -> list[str]:
    return sorted(connection.introspection.table_names(include_views=False))


def _fingerprint(tables: list[str]) -> dict[str, tuple[int, str]]:
    """Each table's row count and a hash of its rows (as text, sorted), in one query."""
    quote = connection.ops.quote_name
    parts = [
        f"SELECT %s, count(*), coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '') FROM {quote(table)} t"
        for table in tables
    ]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(parts), tables)
        return {table: (count, digest) for table, count, digest in cursor.fetchall()}


def _ours(fingerprint: dict[str, tuple[int, str]]) -> dict[str, tuple[int, str]]:
    """The fingerprint of the project's own apps' tables (not Django's or a library's)."""
    own = _own_tables()
    return {table: state for table, state in fingerprint.items() if table in own}


def _own_tables() -> frozenset[str]:
    root = Path(settings.BASE_DIR).resolve()
    return frozenset(
        model._meta.db_table
        for config in apps.get_app_configs()
        if Path(config.path).resolve().is_relative_to(root) and "site-packages" not in Path(config.path).parts
        for model in config.get_models(include_auto_created=True)
    )
