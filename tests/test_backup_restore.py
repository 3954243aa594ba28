"""docs/operations.md §11, run as written: a pg_dump restored into a new database migrates, every row there;
and the documented rollback (reverse a release's migrations, then forward again) keeps them (issue #26, item 11).
"""

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from django.db import connection

from results.ingest import quarantine_payload

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("hardware_catalog_accelerator", "hardware_catalog_price", "agents_quarantinedpayload")


def _url_of(database: str) -> str:
    parts = urlsplit(os.environ["DATABASE_URL"])
    return urlunsplit(parts._replace(path=f"/{database}"))


def _counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as db:
        return {table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in TABLES}


def _manage(*args: str, database_url: str) -> None:
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("TEST_DATABASE_NAME", None)
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def restored_database():
    name = f"{connection.settings_dict['NAME']}_restored"
    with psycopg.connect(_url_of("postgres"), autocommit=True) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        server.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(_url_of("postgres"), autocommit=True) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_dump_restores_into_a_new_database_that_migrates_and_rolls_back(catalog, restored_database, tmp_path):
    quarantine_payload("x" * 10, reason="refused: test", source="test")
    source_url = _url_of(connection.settings_dict["NAME"])
    before = _counts(source_url)
    assert before["hardware_catalog_price"] > 0 and before["agents_quarantinedpayload"] == 1

    dump = tmp_path / "inferledger.dump"
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", source_url], check=True)
    restored_url = _url_of(restored_database)
    subprocess.run(["pg_restore", "--no-owner", f"--dbname={restored_url}", str(dump)], check=True)
    _manage("migrate", "--no-input", database_url=restored_url)
    assert _counts(restored_url) == before

    # Rollback of a release, as documented: its migrations reversed (here results 0002), then forward again.
    _manage("migrate", "results", "0001", "--no-input", database_url=restored_url)
    _manage("migrate", "--no-input", database_url=restored_url)
    assert _counts(restored_url) == before
    with psycopg.connect(restored_url) as db:
        size, digest = db.execute("SELECT raw_size_bytes, raw_sha256 FROM agents_quarantinedpayload").fetchone()
    assert size == 10 and len(digest) == 64  # the forward migration digested the row again
