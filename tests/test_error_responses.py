"""Each request gets a 2xx, a 4xx naming the problem, or a 503 while a backing service is down; never a 500.

One test per server error the audit of issue #17 found, against PostgreSQL (a 503 case against a real
database that cannot be reached).
"""

import socket
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from agents.registry import agent_register

pytestmark = pytest.mark.postgres

UNREACHABLE_PORT = 55441  # nothing listens here: connections are refused (issue #17's test port range)


@pytest.mark.django_db
def test_a_run_filter_with_an_offset_postgresql_refuses_is_read_in_utc(api, result_payload):
    from results.ingest import ingest_result

    ingest_result(result_payload, source="bench")
    started = datetime.fromisoformat(result_payload["started_at"].replace("Z", "+00:00"))
    # The same instant as `started` minus a minute, written with a +18:40 offset (beyond PostgreSQL's +-15:59).
    offset = timedelta(hours=18, minutes=40)
    local = (started - timedelta(minutes=1) + offset).replace(tzinfo=None).isoformat(timespec="seconds")
    response = api.get("/api/v1/runs/", {"started_after": f"{local}+18:40"})
    assert response.status_code == 200, response.content
    assert response.data["count"] == 1
    response = api.get("/api/v1/runs/", {"started_before": f"{local}+18:40"})
    assert response.status_code == 200 and response.data["count"] == 0


@pytest.mark.django_db
def test_a_run_filter_out_of_range_once_in_utc_is_a_400_naming_it(api):
    response = api.get("/api/v1/runs/", {"started_after": "0001-01-01T00:00:00+05:00"})
    assert response.status_code == 400 and "started_after" in response.data


@pytest.mark.django_db
def test_deleting_an_accelerator_that_has_prices_is_a_409_naming_what_refers_to_it(staff_api, make_accelerator,
                                                                                   make_price):  # fmt: skip
    priced, unused = make_accelerator("Priced"), make_accelerator("Unused")
    make_price(priced, "2.00")
    make_price(priced, "2.50", effective_from=datetime(2025, 6, 1, tzinfo=UTC))
    response = staff_api.delete(f"/api/v1/accelerators/{priced.pk}/")
    assert response.status_code == 409
    assert response.data["detail"] == "Cannot delete: still referenced by 2 prices. Delete or reassign those first."
    assert staff_api.delete(f"/api/v1/accelerators/{unused.pk}/").status_code == 204


@pytest.fixture
def agent(catalog):
    return agent_register(report={"name": "gpu01", "devices": [{"kind": "cpu", "name": "Test CPU"}]})


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"every_s": 9_999_999_999}, "every_s"),  # beyond PostgreSQL's integer: was a 500
        ({"every_s": 30}, "every_s"),
        ({"every_s": None, "crontab": "99 * * * *"}, "crontab"),
        ({"every_s": None, "crontab": "a b c d e"}, "crontab"),
        ({"offline_batch_sizes": [99_999_999_999_999_999_999]}, "offline_batch_sizes"),  # was accepted
        ({"offline_batch_sizes": [65_537]}, "offline_batch_sizes"),
        ({"offline_batch_sizes": list(range(1, 40))}, "offline_batch_sizes"),
        ({"server_load_fractions": [3.0]}, "server_load_fractions"),
        ({"min_duration_ms": 9_999_999_999}, "min_duration_ms"),
        ({"min_query_count": 9_999_999_999}, "min_query_count"),
        ({"name": "n" * 190}, "name"),  # the beat task's name would exceed its 200 characters
    ],
)
def test_a_schedule_out_of_bounds_is_a_400_naming_the_field(staff_api, agent, change, field):
    body = {"name": "nightly", "agent": "gpu01", "every_s": 3600} | change
    body = {key: value for key, value in body.items() if value is not None}
    response = staff_api.post("/api/v1/schedules/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.data, response.data


@pytest.mark.django_db
@pytest.mark.parametrize("enforce_csrf_checks", [False, True], ids=["view reads the body", "CSRF reads it first"])
def test_an_oversized_dashboard_form_is_a_413(staff, settings, enforce_csrf_checks):
    client = Client(enforce_csrf_checks=enforce_csrf_checks)
    client.force_login(staff)
    client.get("/jobs/")  # sets the CSRF cookie, as a browser would have it
    body = {"suite": "quick", "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
            "padding": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}  # fmt: skip
    response = client.post("/jobs/", body)
    assert response.status_code == 413


@pytest.fixture
def unreachable_database(django_db_blocker):
    """The default database pointed at a port where no PostgreSQL listens, as when the server is down."""
    from django.db import connection

    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", UNREACHABLE_PORT)) != 0, f"something listens on {UNREACHABLE_PORT}"
    saved = dict(connection.settings_dict)
    with django_db_blocker.unblock():
        connection.close()
        connection.settings_dict.update(HOST="127.0.0.1", PORT=UNREACHABLE_PORT)
        try:
            yield
        finally:
            connection.close()
            connection.settings_dict.clear()
            connection.settings_dict.update(saved)


def test_the_api_answers_503_naming_the_database_while_it_is_unreachable(unreachable_database):
    response = Client().get("/api/v1/accelerators/", HTTP_AUTHORIZATION="Token " + "0" * 64)
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    assert response.json() == {
        "detail": "Service unavailable: the database cannot be reached. Nothing was changed; retry in a moment."
    }
    assert str(UNREACHABLE_PORT) not in response.content.decode()  # the error's host and port are logged only


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/"), ("get", "/jobs/"), ("post", "/accounts/login/")],
    ids=["overview", "jobs", "login"],
)
def test_the_dashboard_answers_503_while_the_database_is_unreachable(unreachable_database, method, path):
    client = Client()
    client.cookies["sessionid"] = "a" * 32  # a session to look up: the pages then need the database
    response = getattr(client, method)(path, {"username": "someone", "password": "pw"} if method == "post" else {})
    assert response.status_code == 503
    assert b"the database cannot be reached" in response.content and response["Retry-After"] == "30"
