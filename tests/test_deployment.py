"""A deployment that follows docs/operations.md serves its pages' CSS and plotly.js, with a CSP, and keeps
its anonymous surfaces closed (issue #26, item 10).

Before: with DEBUG off nothing served STATIC_ROOT (`/static/...` 404: no CSS, no plotly.js);
/api/schema/, /api/docs/ and /accounts/password_reset/ answered anonymous users (each reset POST logged
an SMTP traceback); no Content-Security-Policy.

The recipe of docs/operations.md §4, as written: `collectstatic --no-input`, then gunicorn on the WSGI app,
DEBUG off, behind a TLS proxy (the test sends the proxy's X-Forwarded-Proto).
"""

import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUNICORN = Path(sys.executable).with_name("gunicorn")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def deployed(tmp_path_factory):
    """gunicorn serving the app as docs/operations.md says, on a free port; yields its base URL."""
    static_root = tmp_path_factory.mktemp("static")
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(static_root),
        "DATABASE_URL": f"sqlite:///{tmp_path_factory.mktemp('db') / 'db.sqlite3'}",
    }
    env.pop("EMAIL_URL", None)
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    port = _free_port()
    server = subprocess.Popen(
        [str(GUNICORN), "inferledger.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1", "--timeout", "60"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()
                time.sleep(0.2)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


def _get(url: str, method: str = "GET", data: bytes | None = None):
    request = urllib.request.Request(url, method=method, data=data, headers={"X-Forwarded-Proto": "https"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_the_documented_deployment_serves_the_dashboard_css_and_plotly_js(deployed):
    status, headers, body = _get(f"{deployed}/static/dashboard/dashboard.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css") and b"{" in body
    status, headers, body = _get(f"{deployed}/static/plotly/plotly.min.js")
    assert status == 200 and "javascript" in headers["Content-Type"] and b"plotly" in body[:2000].lower()
    status, _, body = _get(f"{deployed}/static/dashboard/figures.js")
    assert status == 200 and b"Plotly.newPlot" in body


def test_the_login_page_carries_a_content_security_policy_without_inline_scripts(deployed):
    status, headers, body = _get(f"{deployed}/accounts/login/")
    assert status == 200
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy
    assert b"/static/dashboard/dashboard.css" in body


@pytest.mark.parametrize("path", ["/api/schema/", "/api/docs/", "/api/redoc/"])
def test_the_api_schema_and_docs_are_closed_to_anonymous_users(deployed, path):
    status, _, _ = _get(f"{deployed}{path}")
    assert status == 401


def test_there_is_no_password_reset_by_email_without_email_configured(deployed):
    assert _get(f"{deployed}/accounts/password_reset/")[0] == 404
    assert _get(f"{deployed}/accounts/password_reset/", "POST", b"email=a%40b.c")[0] == 404


def test_sessions_are_read_from_the_cache_only_when_every_worker_shares_it():
    """With per-process memory, a session ended in one worker (logout) would live on in the others' caches."""
    from inferledger.settings import session_engine_for

    assert session_engine_for("django.core.cache.backends.redis.RedisCache").endswith(".cached_db")
    assert session_engine_for("django.core.cache.backends.locmem.LocMemCache").endswith(".db")
    assert session_engine_for("django.core.cache.backends.dummy.DummyCache").endswith(".db")
