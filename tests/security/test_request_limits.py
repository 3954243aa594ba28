"""Bodies the JSON parser cannot take are a 400 naming the limit, on every route (issue #26, item 1).

Before: a 4 KB body of 2,000 nested arrays answered 500 (RecursionError in json.loads) on
POST /api/v1/cost-estimate/ as a plain user, and on prices, jobs and recommendations as staff.
"""

import json

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator

from inferledger.parsers import MAX_JSON_DEPTH, json_depth

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

NESTED_2000 = "[" * 2000 + "]" * 2000  # 4,000 bytes


def _json_write_routes() -> list[tuple[str, str]]:
    """(method, path) of every operation that takes a JSON body and has no path parameter."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        (method, path)
        for path, operations in schema["paths"].items()
        if "{" not in path
        for method, operation in operations.items()
        if "application/json" in operation.get("requestBody", {}).get("content", {})
    )


def test_it_counts_depth_outside_strings():
    # [ {"a": "[[[["}, [1] ] : the array, the object, the inner array: 2 deep at most; the string's brackets don't count
    assert json_depth(b'[{"a": "[[[[\\"["}, [1]]') == 2
    assert json_depth(NESTED_2000.encode()) == 2000


def test_a_deeply_nested_body_is_a_400_naming_the_limit_on_every_json_route(staff_api):
    routes = _json_write_routes()
    assert ("post", "/api/v1/cost-estimate/") in routes and ("post", "/api/v1/prices/") in routes
    for method, path in routes:
        response = getattr(staff_api, method)(path, NESTED_2000, content_type="application/json")
        assert response.status_code == 400, (method, path, response.status_code)
        assert response.json() == {"detail": f"JSON nested too deep: 2000 levels, the limit is {MAX_JSON_DEPTH}."}


def test_a_deeply_nested_body_from_a_plain_user_is_a_400(api):
    response = api.post("/api/v1/cost-estimate/", NESTED_2000, content_type="application/json")
    assert response.status_code == 400
    assert "the limit is 64" in response.json()["detail"]


def test_an_oversized_body_is_a_413_naming_the_limit(staff_api):
    # One byte over DATA_UPLOAD_MAX_MEMORY_SIZE (1,048,576): {"source": "xxx…"} padded to 1,048,577 bytes.
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = json.dumps({"source": ""})
    body = body[:-2] + "x" * (limit + 1 - len(body)) + body[-2:]
    assert len(body) == limit + 1
    response = staff_api.post("/api/v1/prices/", body, content_type="application/json")
    assert response.status_code == 413
    detail = f"Request body too large: the limit is {limit} bytes (DATA_UPLOAD_MAX_MEMORY_SIZE)."
    assert response.json() == {"detail": detail}


def test_a_body_at_the_depth_limit_is_parsed(staff_api):
    # 64 nested arrays parse; the serializer then says what it expected (a 400 about fields, not the limit).
    body = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    response = staff_api.post("/api/v1/prices/", body, content_type="application/json")
    assert response.status_code == 400 and "nested" not in json.dumps(response.json())
