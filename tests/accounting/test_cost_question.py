"""One cost question, validated once: every answer's parameters become a CostQuestion, or a refusal that
names the parameter (the API answers it as a 400 under that name)."""

from decimal import Decimal

import pytest

from accounting.policy import ParameterError, Published
from accounting.question import CostQuestion
from accounting.sla import Sla


def test_it_holds_the_question_every_engine_answers(settings):
    settings.INFERLEDGER_UTILIZATION = "0.8"

    question = CostQuestion.ask(
        workload="llama2-70b-99", price_kind="cloud_on_demand", ttft_p99_ms=2000, tpot_p99_ms=200, published="all"
    )

    assert question.workload.id == "llama2-70b-99"
    assert question.sla == Sla(ttft_p99_ms=Decimal(2000), tpot_p99_ms=Decimal(200))
    assert question.utilization == Decimal("0.8")  # the configured default, none asked
    assert question.published is Published.ALL


@pytest.mark.parametrize(
    ("asked", "field"),
    [
        ({"workload": "resnet50", "ttft_p99_ms": 2000}, "ttft_p99_ms"),  # not an LLM: a p99 bound
        ({"workload": "llama2-70b-99", "sla_p99_ms": 100}, "sla_p99_ms"),  # an LLM: TTFT/TPOT bounds
        ({"workload": "resnet50", "utilization": Decimal("1.5")}, "utilization"),
        ({"workload": "no-such-workload"}, "workload"),
        ({"workload": "llama2-70b-99", "input_tokens_per_request": 0}, "input_tokens_per_request"),
    ],
)
def test_it_refuses_a_question_naming_the_parameter(asked, field):
    with pytest.raises(ParameterError) as refused:
        CostQuestion.ask(price_kind="cloud_on_demand", **asked)
    assert refused.value.field == field


@pytest.mark.django_db
def test_the_api_answers_a_refused_question_under_the_parameters_name(api):
    response = api.get(
        "/api/v1/rankings/", {"workload": "resnet50", "price_kind": "cloud_on_demand", "ttft_p99_ms": 2000}
    )

    assert response.status_code == 400
    assert response.json() == {"ttft_p99_ms": ["resnet50 is not an LLM workload: bound its latency with sla_p99_ms"]}


@pytest.mark.parametrize(
    ("bounds", "interactivity", "target"),
    [
        # TPOT 200 ms: a user gets 1000 / 200 = 5 tokens/s at least; 20 asked beside it is stricter: read at 20.
        ({"ttft_p99_ms": 2000, "tpot_p99_ms": 200}, 20, 20.0),
        # TPOT 40 ms: 1000 / 40 = 25 tokens/s, stricter than the 20 asked: read at 25.
        ({"ttft_p99_ms": 2000, "tpot_p99_ms": 40}, 20, 25.0),
        ({"ttft_p99_ms": 2000, "tpot_p99_ms": 200}, None, 5.0),  # the SLA's own speed, 1000 / 200
        ({}, 20, 20.0),  # no SLA: the speed asked
    ],
)
def test_a_serving_question_reads_at_the_stricter_of_its_speed_and_its_sla(bounds, interactivity, target):
    question = CostQuestion.ask(
        workload="llama2-70b-99", price_kind="cloud_on_demand", interactivity_tps_per_user=interactivity, **bounds
    )
    assert question.serving_target_tps_per_user() == target


@pytest.mark.parametrize(
    ("asked", "field"),
    [
        ({"ttft_p99_ms": 2000}, "tpot_p99_ms"),  # half an LLM SLA: the missing bound is named
        ({"tpot_p99_ms": 200}, "ttft_p99_ms"),
        ({}, "interactivity_tps_per_user"),  # neither a speed nor an SLA: nothing to read the fronts at
    ],
)
def test_a_serving_question_refuses_half_an_sla_or_no_target_naming_the_parameter(asked, field):
    question = CostQuestion.ask(workload="llama2-70b-99", price_kind="cloud_on_demand", **asked)
    with pytest.raises(ParameterError) as refused:
        question.serving_target_tps_per_user()
    assert refused.value.field == field


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path", "asked"),
    [
        ("get", "/api/v1/serving/ranking/", {"price_kind": "cloud_on_demand"}),
        (
            "post",
            "/api/v1/serving/plan/",
            {"price_kinds": ["cloud_on_demand"], "concurrent_users": 10, "interactivity_tps_per_user": 20},
        ),  # fmt: skip
    ],
)
def test_the_serving_answers_refuse_half_an_sla_by_the_one_rule(api, method, path, asked):
    # The serving ranking and the serving plan parse one question (AsksCostQuestion) and check it with the one serving
    # rule of an SLA (policy.serving_target_tps_per_user): a 400 under the missing bound's name, from both.
    body = {"workload": "llama2-70b-99", "ttft_p99_ms": 2000, **asked}
    response = getattr(api, method)(path, body, **({"format": "json"} if method == "post" else {}))

    assert response.status_code == 400
    assert response.json() == {"tpot_p99_ms": ["an LLM SLA needs both ttft_p99_ms and tpot_p99_ms"]}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        # A recommendation and a serving plan ask their SLA through the one cost question (policy.requested_sla).
        ("/api/v1/recommendations/", {"workload": "resnet50", "ttft_p99_ms": 2000, "target_qps": 100,
                                      "annual_volume": 1000, "price_kinds": ["cloud_on_demand"]}, "ttft_p99_ms"),
        ("/api/v1/recommendations/", {"workload": "llama2-70b-99", "sla_p99_ms": 100, "target_qps": 1,
                                      "annual_volume": 1000, "price_kinds": ["cloud_on_demand"]}, "sla_p99_ms"),
        ("/api/v1/serving/plan/", {"workload": "resnet50", "ttft_p99_ms": 2000, "tpot_p99_ms": 200,
                                   "concurrent_users": 10, "interactivity_tps_per_user": 20,
                                   "price_kinds": ["cloud_on_demand"]}, "ttft_p99_ms"),
    ],
)  # fmt: skip
def test_plans_refuse_a_question_under_the_parameters_name(api, path, body, field):
    response = api.post(path, body, format="json")

    assert response.status_code == 400
    assert list(response.json()) == [field]
