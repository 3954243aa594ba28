"""A cached answer is sent as the JSON bytes rendered when it was built (issue 28): the same bytes DRF would render,
without unpickling the nested answer or rendering it again on every request. `alpha` (tests/accounting/conftest.py):
2.00 USD/h at 400 inferences/s, 2.00 / (400 * 3600) * 1e6 = $1.3889 per 1M."""

import json
from unittest import mock

import pytest
from rest_framework.renderers import JSONRenderer

from accounting.api import answers
from tests.money import per_million_text

pytestmark = pytest.mark.django_db

RANKINGS = "/api/v1/rankings/?workload=resnet50&sla_p99_ms=10&price_kind=cloud_on_demand"


def test_a_cached_answer_is_sent_as_rendered_when_built(alpha, api):
    first = api.get(RANKINGS)
    with mock.patch.object(JSONRenderer, "render", side_effect=AssertionError("rendered again")):
        again = api.get(RANKINGS)
    assert again.status_code == 200 and again["Content-Type"] == "application/json"
    assert again.content == first.content
    data = json.loads(again.content)
    assert data["rows"][0]["cost_per_million_usd"] == per_million_text("2.00", 400)  # "1.3889"
    assert again.data == data  # what a test (or a renderer) reads is the same answer


def test_the_bytes_sent_are_what_drf_renders_of_the_answer(alpha, api):
    response = api.get(RANKINGS)
    assert response.content == JSONRenderer().render(json.loads(response.content))


def test_other_renderings_are_rendered_from_the_answer(alpha, api):
    indented = api.get(RANKINGS, HTTP_ACCEPT="application/json; indent=2")
    assert indented.content.startswith(b'{\n  "') and json.loads(indented.content) == json.loads(
        api.get(RANKINGS).content
    )
    csv = api.get(RANKINGS + "&format=csv")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv") and "Alpha" in csv.content.decode()


def test_the_answer_keeps_its_empty_reason_beside_its_json(alpha):
    from accounting.question import CostQuestion

    question = CostQuestion.ask(workload="resnet50", sla_p99_ms=1, price_kind="cloud_on_demand")  # 9 ms > 1 ms
    answer = answers.ranking_answer(question)
    assert answer.empty_reason and json.loads(answer.json)["empty_reason"] == answer.empty_reason


def test_a_client_that_accepts_gzip_gets_the_answer_gzipped_as_kept(alpha, api):
    import gzip

    plain = api.get(RANKINGS)
    zipped = api.get(RANKINGS, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert gzip.decompress(zipped.content) == plain.content and len(zipped.content) < len(plain.content)
    assert "Content-Encoding" not in plain and "Accept-Encoding" in plain["Vary"]
