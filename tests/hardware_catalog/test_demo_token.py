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
