"""Tokens end with a password change and on their owner's request; logins are throttled (issue #26, item 9).

Before: a password change left every API token working; there was no API logout; 20 wrong passwords at the
login page, then the right one, logged in.
"""

import pytest
from django.conf import settings
from knox.models import AuthToken
from rest_framework.test import APIClient

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


def _with_token(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_a_password_change_revokes_the_users_api_tokens(analyst, django_user_model):
    _, token = AuthToken.objects.create(analyst)
    other = django_user_model.objects.create_user(username="other", password="pw-other-123")
    _, others_token = AuthToken.objects.create(other)
    assert _with_token(token).get("/api/v1/accelerators/").status_code == 200
    analyst.set_password("a-new-password-456")
    analyst.save()
    assert _with_token(token).get("/api/v1/accelerators/").status_code == 401
    assert _with_token(others_token).get("/api/v1/accelerators/").status_code == 200  # only the analyst's


def test_saving_a_user_without_a_new_password_keeps_the_tokens(analyst):
    _, token = AuthToken.objects.create(analyst)
    analyst.first_name = "Ada"
    analyst.save()
    assert _with_token(token).get("/api/v1/accelerators/").status_code == 200


def test_the_password_change_form_revokes_tokens(analyst, client):
    _, token = AuthToken.objects.create(analyst)
    client.force_login(analyst)
    response = client.post("/accounts/password_change/", {"old_password": "pw-analyst-123",
                           "new_password1": "n3w-Passw0rd-xyz", "new_password2": "n3w-Passw0rd-xyz"})  # fmt: skip
    assert response.status_code == 302
    assert _with_token(token).get("/api/v1/accelerators/").status_code == 401


def test_logout_revokes_the_token_it_was_made_with_and_no_other(analyst):
    _, first = AuthToken.objects.create(analyst)
    _, second = AuthToken.objects.create(analyst)
    response = _with_token(first).post("/api/v1/auth/logout/")
    assert response.status_code == 200 and response.json() == {"revoked": 1}
    assert _with_token(first).get("/api/v1/accelerators/").status_code == 401
    assert _with_token(second).get("/api/v1/accelerators/").status_code == 200


def test_logout_all_revokes_every_token_of_the_user(analyst):
    tokens = [AuthToken.objects.create(analyst)[1] for _ in range(3)]
    assert _with_token(tokens[0]).post("/api/v1/auth/logout-all/").json() == {"revoked": 3}
    assert all(_with_token(token).get("/api/v1/accelerators/").status_code == 401 for token in tokens)


def test_the_api_login_issues_a_token(analyst):
    response = APIClient().post("/api/v1/auth/login/", {"username": "analyst", "password": "pw-analyst-123"})
    assert response.status_code == 201
    assert _with_token(response.json()["token"]).get("/api/v1/accelerators/").status_code == 200


def test_dashboard_login_is_locked_after_the_failure_limit_even_with_the_right_password(analyst, client):
    assert settings.AXES_FAILURE_LIMIT == 5
    for _ in range(4):  # failures 1-4: the form again, with its error
        assert client.post("/accounts/login/", {"username": "analyst", "password": "wrong"}).status_code == 200
    assert client.post("/accounts/login/", {"username": "analyst", "password": "wrong"}).status_code == 429  # 5th
    response = client.post("/accounts/login/", {"username": "analyst", "password": "pw-analyst-123"})
    assert response.status_code == 429 and "_auth_user_id" not in client.session


def test_the_api_login_is_locked_after_the_failure_limit(analyst):
    api = APIClient()
    for _ in range(4):
        assert api.post("/api/v1/auth/login/", {"username": "analyst", "password": "wrong"}).status_code == 400
    assert api.post("/api/v1/auth/login/", {"username": "analyst", "password": "wrong"}).status_code == 429
    assert api.post("/api/v1/auth/login/", {"username": "analyst", "password": "pw-analyst-123"}).status_code == 429
    assert not AuthToken.objects.filter(user=analyst).exists()


def test_a_lockout_is_per_username_and_address(analyst, django_user_model, client):
    django_user_model.objects.create_user(username="colleague", password="pw-colleague-123")
    for _ in range(5):
        client.post("/accounts/login/", {"username": "analyst", "password": "wrong"})
    response = client.post("/accounts/login/", {"username": "colleague", "password": "pw-colleague-123"})
    assert response.status_code == 302  # another user from the same address still signs in


@pytest.mark.django_db
def test_me_names_the_tokens_user_and_when_the_token_expires(django_user_model, django_assert_max_num_queries):
    """GET /api/v1/auth/me/: a procurement tool's check of its token (and the load benchmark's floor)."""
    from django.core.cache import cache

    cache.clear()
    user = django_user_model.objects.create_user(username="buyer", password="pw-buyer-12345")
    instance, token = AuthToken.objects.create(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    answer = client.get("/api/v1/auth/me/").json()
    assert answer["username"] == "buyer" and answer["is_staff"] is False
    assert answer["token_expiry"] == instance.expiry.isoformat().replace("+00:00", "Z")
    with django_assert_max_num_queries(0):  # the token's check is cached: the floor costs no query
        assert client.get("/api/v1/auth/me/").status_code == 200
    assert APIClient().get("/api/v1/auth/me/").status_code == 401
