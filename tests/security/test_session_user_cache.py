"""A signed-in session's user is read from the cache (issue 28), and a session still ends whenever it must.

Before: every dashboard page read the user row from the database (one query, and the connection check before it),
40 % of a cached overview page's cost.
"""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.test import Client

from inferledger.accounts.backends import CachedUserBackend

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

SIGNED_IN_PAGE = "/accounts/password_change/"  # 200 when signed in, a redirect to the login page when not


def _signed_in(username: str = "analyst", password: str = "pw-analyst-123") -> Client:
    client = Client()
    assert client.post("/accounts/login/", {"username": username, "password": password}).status_code == 302
    assert client.get(SIGNED_IN_PAGE).status_code == 200  # the user row is now cached
    return client


def test_a_signed_in_login_names_the_cached_backend(analyst):
    client = _signed_in()
    assert client.session["_auth_user_backend"] == "inferledger.accounts.backends.CachedUserBackend"


def test_the_user_row_is_read_from_the_database_once_then_from_the_cache(analyst, django_assert_num_queries):
    backend = CachedUserBackend()
    with django_assert_num_queries(1):
        first = backend.get_user(analyst.pk)
    with django_assert_num_queries(0):
        again = backend.get_user(analyst.pk)
    assert first == again == analyst


def test_an_unknown_user_is_not_remembered(db, django_assert_num_queries):
    backend = CachedUserBackend()
    assert backend.get_user(987654) is None
    with django_assert_num_queries(1):  # asked again, not remembered as missing
        assert backend.get_user(987654) is None


def test_a_password_change_elsewhere_ends_a_cached_session_at_once(analyst):
    client = _signed_in()
    analyst.set_password("a-new-password-456")
    analyst.save()
    response = client.get(SIGNED_IN_PAGE)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_the_password_change_form_keeps_its_own_session_and_ends_the_others(analyst):
    changing, other = _signed_in(), _signed_in()
    response = changing.post(SIGNED_IN_PAGE, {"old_password": "pw-analyst-123",
                             "new_password1": "n3w-Passw0rd-xyz", "new_password2": "n3w-Passw0rd-xyz"})  # fmt: skip
    assert response.status_code == 302
    assert changing.get(SIGNED_IN_PAGE).status_code == 200  # Django re-signs the session that changed it
    assert other.get(SIGNED_IN_PAGE).status_code == 302


def test_a_deactivated_user_is_signed_out_at_once(analyst):
    client = _signed_in()
    analyst.is_active = False
    analyst.save()
    assert client.get(SIGNED_IN_PAGE).status_code == 302


def test_a_deleted_user_is_signed_out_at_once(analyst):
    client = _signed_in()
    analyst.delete()
    assert client.get(SIGNED_IN_PAGE).status_code == 302


def test_a_revoked_staff_flag_is_seen_at_once(analyst):
    analyst.is_staff = True
    analyst.save()
    client = _signed_in()
    assert client.get("/admin/").status_code == 200
    analyst.is_staff = False
    analyst.save()
    assert client.get("/admin/").status_code == 302  # the admin's login page


def test_a_write_that_sends_no_signal_is_seen_after_the_cache_time(analyst, settings):
    """A bulk update() sends no signal: the cached row serves until it expires (SESSION_USER_CACHE_SECONDS), the
    documented bound; with 0 seconds every request reads the row."""
    client = _signed_in()
    get_user_model().objects.filter(pk=analyst.pk).update(is_active=False)
    assert client.get(SIGNED_IN_PAGE).status_code == 200  # still the cached, active row
    cache.clear()  # what the expiry does
    assert client.get(SIGNED_IN_PAGE).status_code == 302
    settings.SESSION_USER_CACHE_SECONDS = 0
    get_user_model().objects.filter(pk=analyst.pk).update(is_active=True)
    client = _signed_in()
    get_user_model().objects.filter(pk=analyst.pk).update(is_active=False)
    assert client.get(SIGNED_IN_PAGE).status_code == 302  # read from the database, not remembered


def test_a_session_signed_in_by_the_old_backend_signs_in_again(analyst, client):
    """Sessions name the backend that signed them in; one from before this backend is asked to sign in again."""
    session = client.session
    session.update({"_auth_user_id": str(analyst.pk), "_auth_user_hash": analyst.get_session_auth_hash(),
                    "_auth_user_backend": "django.contrib.auth.backends.ModelBackend"})  # fmt: skip
    session.save()
    response = client.get(SIGNED_IN_PAGE)
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
