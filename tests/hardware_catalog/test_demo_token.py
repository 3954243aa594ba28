from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def issue(base_url="http://127.0.0.1:8123"):
    out = StringIO()
    call_command("demo_token", "--base-url", base_url, stdout=out)
    text = out.getvalue()
    token = text.split("API token for 'demo': ")[1].split()[0]
    return text, token


def test_it_prints_a_working_token_and_where_to_use_it(catalog):
    text, token = issue()
    assert "with password:" in text
    assert f'curl -H "Authorization: Token {token}" http://127.0.0.1:8123/api/v1/accelerators/' in text
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/v1/accelerators/").status_code == 200


def test_it_replaces_the_old_token_and_keeps_the_password(catalog):
    _, first = issue()
    text, second = issue()
    assert "with password:" not in text
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {first}")
    assert client.get("/api/v1/accelerators/").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"Token {second}")
    assert client.get("/api/v1/accelerators/").status_code == 200


def issue_kept(token_file, *extra):
    out = StringIO()
    call_command("demo_token", "--token-file", str(token_file), *extra, stdout=out)
    text = out.getvalue()
    return text, text.split("API token for 'demo': ")[1].split()[0]


def authenticates(token) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client.get("/api/v1/accelerators/").status_code == 200


def test_it_keeps_the_token_of_the_last_run_while_it_works(catalog, tmp_path):
    token_file = tmp_path / "var" / "demo-token"
    _, first = issue_kept(token_file)
    text, second = issue_kept(token_file)
    assert second == first
    assert "kept from the last run" in text
    assert authenticates(second)
    assert token_file.stat().st_mode & 0o777 == 0o600  # a credential: its owner reads it, nobody else


def test_it_rotates_the_token_when_asked(catalog, tmp_path):
    token_file = tmp_path / "demo-token"
    _, first = issue_kept(token_file)
    _, second = issue_kept(token_file, "--rotate")
    assert second != first
    assert not authenticates(first)
    assert authenticates(second)
    assert token_file.read_text().strip() == second


def test_it_issues_a_new_token_when_the_kept_one_was_revoked(catalog, tmp_path):
    from knox.models import AuthToken

    token_file = tmp_path / "demo-token"
    _, first = issue_kept(token_file)
    AuthToken.objects.all().delete()  # revoked (a password change, a logout of every session)
    text, second = issue_kept(token_file)
    assert second != first
    assert "kept from the last run" not in text
    assert authenticates(second)
