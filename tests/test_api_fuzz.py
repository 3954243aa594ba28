"""schemathesis over every operation of the OpenAPI schema, as staff and as a plain user: no server errors.

The audit that opened issue #17 found 57 responses 500 this way (27,669 cases). Here each operation gets a
bounded number of schema-conforming and schema-violating cases, through the WSGI app against the real
database in autocommit (as in production: a failed statement must not poison the requests after it).
INFERLEDGER_FUZZ_EXAMPLES raises the bound for a deeper local run.

schemathesis never generates a body the parser cannot take, so every operation with a JSON body is also
sent two by hand (issue #26): 2,000 nested arrays (4 KB; a 500 RecursionError before) and one byte over
DATA_UPLOAD_MAX_MEMORY_SIZE.
"""

import os

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from knox.models import AuthToken
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.agents.conftest import celery_broker  # noqa: F401 - jobs go to a real broker, as in production

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

# Logging out revokes the token every later case is sent with (they would all be 401s).
REVOKES_THE_FUZZERS_TOKEN = {"/api/v1/auth/logout/", "/api/v1/auth/logout-all/"}
EXAMPLES_PER_OPERATION = int(os.environ.get("INFERLEDGER_FUZZ_EXAMPLES", "5"))
FUZZ = settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    database=None,  # the same cases every run: no example database carried between CI runs
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure is reported as found, with its curl
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
def seeded(catalog, result_payload, celery_broker):  # noqa: F811
    """Something behind the list and detail endpoints: the shipped catalog and one stored run."""
    from results.ingest import ingest_result

    ingest_result(result_payload, source="bench")


def _server_errors(token: str) -> list[str]:
    headers = {"Authorization": f"Token {token}"}
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application(), headers=headers)
    found = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path in REVOKES_THE_FUZZERS_TOKEN:
            continue  # tests/security/test_tokens_and_logins.py
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @FUZZ
            @given(case=operation.as_strategy(generation_mode=mode))
            def call(case):
                case.call_and_validate(headers=headers, checks=[not_a_server_error])

            try:
                call()
                _send_unparseable_bodies(operation, headers)
            except Unsatisfiable:  # nothing to send that violates the schema (an operation without parameters)
                continue
            except Exception as exc:  # noqa: BLE001 - collect every operation's first failure, then assert
                causes = "".join(f"\n    {cause!r}" for cause in getattr(exc, "exceptions", ()))
                found.append(f"{operation.label} ({mode.value}): {exc}{causes}")
    return found


def _unparseable_bodies() -> list[bytes]:
    deep = b"[" * 2000 + b"]" * 2000
    oversized = b'["' + b"x" * django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"]'
    return [deep, oversized]


def _send_unparseable_bodies(operation, headers) -> None:
    if "application/json" not in operation.definition.raw.get("requestBody", {}).get("content", {}):
        return
    path_parameters = {parameter.name: "1" for parameter in operation.path_parameters}
    for body in _unparseable_bodies():
        case = operation.Case(body=body, media_type="application/json", path_parameters=path_parameters)
        case.call_and_validate(headers=headers, checks=[not_a_server_error])


@pytest.mark.slow
@pytest.mark.parametrize("is_staff", [True, False], ids=["staff", "plain user"])
def test_no_operation_answers_a_server_error(seeded, django_user_model, is_staff):
    user = django_user_model.objects.create_user(username="fuzzer", password="pw-fuzzer-123", is_staff=is_staff)
    _, token = AuthToken.objects.create(user)
    errors = _server_errors(token)
    assert not errors, f"{len(errors)} server error(s):\n" + "\n".join(errors)
