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
