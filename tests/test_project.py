"""The project's own contract: settings, schema, docs."""

import os
import subprocess
import sys

import pytest


def test_it_refuses_to_start_without_a_secret_key_when_debug_is_off():
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "", "DATABASE_URL": "sqlite:///:memory:"}
    env.pop("SECRET_KEY")
    result = subprocess.run([sys.executable, "manage.py", "check"], capture_output=True, text=True, env=env)
    assert result.returncode != 0
    assert "SECRET_KEY is required when DEBUG is off" in result.stderr


@pytest.mark.django_db
def test_it_serves_an_openapi_schema(api):
    response = api.get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert "/api/v1/accelerators/" in paths and "/api/v1/cost-estimate/" in paths


@pytest.mark.django_db
def test_it_serves_the_api_docs_from_local_assets(client, staff):
    client.force_login(staff)
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert "cdn" not in page.lower() and "//unpkg" not in page


def test_it_has_no_missing_migrations():
    result = subprocess.run(
        [sys.executable, "manage.py", "makemigrations", "--check", "--dry-run"],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": "sqlite:///:memory:"},
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_benchmark_make_bench_runs_has_something_to_run_and_a_row_in_the_readme():
    """A helper module run as a benchmark exits 0 and would be summed up as "met target" (benchmarks/run_all.py)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        from run_all import NOT_TARGETS
    finally:
        sys.path.remove(str(root / "benchmarks"))
    readme = (root / "README.md").read_text()
    for script in sorted((root / "benchmarks").glob("*.py")):
        if script.name in NOT_TARGETS:
            continue
        assert 'if __name__ == "__main__":' in script.read_text(), f"{script.name} runs nothing: list it in NOT_TARGETS"
        assert f"| `{script.name}` |" in readme, f"{script.name} has no row in the README's benchmark table"
