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
