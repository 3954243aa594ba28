"""DEBUG is off unless asked for; when it is on, the error page masks the passwords inside URL settings."""

import os
import subprocess
import sys

import pytest
from django.test import Client

BROKER_PASSWORD, CACHE_PASSWORD, DATABASE_PASSWORD = "broker-pw-4711", "cache-pw-4712", "db-pw-4713"


def _debug_setting(**env) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "DEBUG"} | {"DATABASE_URL": "sqlite:///:memory:"} | env
    program = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    result = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        env=environment | {"DJANGO_SETTINGS_MODULE": "inferledger.settings"},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_debug_is_off_when_not_asked_for():
    assert _debug_setting(SECRET_KEY="k" * 60) == "False"


def test_debug_is_on_when_asked_for():
    assert _debug_setting(DEBUG="true") == "True"


@pytest.mark.urls("tests.failing_urls")
def test_a_debug_error_page_masks_the_passwords_in_url_settings_environment_and_locals(settings):
    settings.DEBUG = True
    settings.CELERY_BROKER_URL = f"redis://:{BROKER_PASSWORD}@redis.internal:6379/0"
    settings.CELERY_RESULT_BACKEND = settings.CELERY_BROKER_URL
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"redis://cache:{CACHE_PASSWORD}@cache.internal:6379/1",
        }
    }
    client = Client(raise_request_exception=False)
    # runserver copies the process environment into request.META, where the DEBUG page lists it.
    response = client.get("/fails/", DATABASE_URL=f"postgres://app:{DATABASE_PASSWORD}@db.internal/app")

    assert response.status_code == 500
    page = response.content.decode()
    assert "CELERY_BROKER_URL" in page and "redis.internal" in page and "db.internal" in page
    assert "broker_url" in page  # the view's local variable is listed too
    for password in (BROKER_PASSWORD, CACHE_PASSWORD, DATABASE_PASSWORD):
        assert password not in page


@pytest.mark.urls("tests.failing_urls")
def test_an_error_page_without_debug_shows_nothing_of_the_settings(settings):
    settings.DEBUG = False
    settings.CELERY_BROKER_URL = f"redis://:{BROKER_PASSWORD}@redis.internal:6379/0"
    response = Client(raise_request_exception=False).get("/fails/")
    assert response.status_code == 500 and b"redis.internal" not in response.content
