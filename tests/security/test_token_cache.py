"""A checked API token is remembered per token (issue 28), and forgotten whenever it must stop working.

The revocations in test_tokens_and_logins.py (password change, logout, logout-all) run through the cache too:
each of them authenticates the token once (cached) before revoking it.
"""

from datetime import timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

from inferledger.accounts import authentication
from inferledger.accounts.authentication import CachedTokenAuthentication

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

READ = "/api/v1/accelerators/"


def _with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_it_checks_a_token_in_the_database_once_then_from_the_cache(analyst, django_assert_num_queries):
    _, token = AuthToken.objects.create(analyst)
    checker = CachedTokenAuthentication()
    with django_assert_num_queries(2):  # knox: the token with its user, then the user's other tokens
        user, _ = checker.authenticate_credentials(token.encode())
    with django_assert_num_queries(0):
        again, _ = checker.authenticate_credentials(token.encode())
    assert user == again == analyst


def test_a_token_sharing_a_cached_tokens_key_is_refused(analyst):
    """The cache is found by the token's first 15 characters; the rest is still checked against the digest."""
    _, token = AuthToken.objects.create(analyst)
    CachedTokenAuthentication().authenticate_credentials(token.encode())
    forged = token[:15] + ("0" if token[15] != "0" else "1") + token[16:]
    with pytest.raises(AuthenticationFailed):
        CachedTokenAuthentication().authenticate_credentials(forged.encode())


def test_a_deleted_token_stops_working_at_once(analyst):
    instance, token = AuthToken.objects.create(analyst)
    assert _with_token(token).get(READ).status_code == 200
    instance.delete()
    assert _with_token(token).get(READ).status_code == 401


def test_a_rotated_demo_token_stops_working_at_once(db):
    printed = StringIO()
    call_command("demo_token", stdout=printed)
    token = next(line for line in printed.getvalue().splitlines() if line.startswith("API token for")).split()[-1]
    assert _with_token(token).get(READ).status_code == 200  # now cached
    call_command("demo_token", "--rotate", stdout=StringIO())
    assert _with_token(token).get(READ).status_code == 401


def test_a_deactivated_user_is_refused_at_once(analyst):
    _, token = AuthToken.objects.create(analyst)
    assert _with_token(token).get(READ).status_code == 200
    analyst.is_active = False
    analyst.save()
    response = _with_token(token).get(READ)
    assert response.status_code == 401 and "inactive" in response.json()["detail"].lower()


def test_a_password_change_revokes_a_cached_token(analyst):
    _, token = AuthToken.objects.create(analyst)
    assert _with_token(token).get(READ).status_code == 200  # now cached
    analyst.set_password("a-new-password-456")
    analyst.save()
    assert _with_token(token).get(READ).status_code == 401


def test_a_cached_token_ends_at_its_expiry(analyst):
    _, token = AuthToken.objects.create(analyst, expiry=timedelta(minutes=5))
    assert _with_token(token).get(READ).status_code == 200  # cached, with its expiry
    later = timezone.now() + timedelta(minutes=6)
    with (
        mock.patch.object(authentication.timezone, "now", return_value=later),
        mock.patch("knox.auth.timezone.now", return_value=later),
    ):
        assert _with_token(token).get(READ).status_code == 401
    assert not AuthToken.objects.filter(user=analyst).exists()  # knox deleted it, as without the cache


def test_zero_seconds_checks_every_request_in_the_database(analyst, settings, django_assert_num_queries):
    settings.API_TOKEN_CACHE_SECONDS = 0
    _, token = AuthToken.objects.create(analyst)
    checker = CachedTokenAuthentication()
    checker.authenticate_credentials(token.encode())
    with django_assert_num_queries(2):
        checker.authenticate_credentials(token.encode())
