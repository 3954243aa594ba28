"""Declaring deployments and metering periods through the API: validated whole, scheduled daily, refused clearly."""

import json

import pytest
from django_celery_beat.models import PeriodicTask

from metering.models import Deployment, MeteredPeriod
from metering.tasks import meter_deployment
from tests.prometheus_server import free_port

pytestmark = pytest.mark.django_db


def _body(accelerator, **fields):
    return {"name": "chat-prod", "prometheus_url": f"http://127.0.0.1:{free_port()}", "selector": 'job="vllm"',
            "engine": "vllm", "workload_name": "llama3.1-8b", "accelerator": accelerator.pk,
            "accelerator_count": 8, "price_kind": "cloud_on_demand"} | fields  # fmt: skip


def test_it_declares_a_deployment_with_its_daily_metering_schedule(staff_api, make_accelerator):
    response = staff_api.post("/api/v1/deployments/", _body(make_accelerator("H100")), format="json")

    assert response.status_code == 201, response.data
    deployment = Deployment.objects.get(name="chat-prod")
    task = PeriodicTask.objects.get(name="inferledger metering: chat-prod")
    assert (task.task, json.loads(task.args)) == ("metering.meter_deployment", [deployment.pk])
    assert (task.crontab.minute, task.crontab.hour, str(task.crontab.timezone)) == ("20", "0", "UTC")


def test_only_staff_declare_deployments(api, make_accelerator):
    assert api.post("/api/v1/deployments/", _body(make_accelerator()), format="json").status_code == 403


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"selector": "job=vllm"}, "selector"),  # an unquoted value is not a PromQL label matcher
        ({"selector": '}) or vector(1) or ({job="x"'}, "selector"),
        ({"engine": "triton"}, "engine"),  # Triton counts no tokens; llama3.1-8b is costed per output token
        ({"workload_name": "no-such-workload"}, "workload"),
        ({"accelerator_count": 0}, "accelerator_count"),
    ],
)
def test_it_refuses_a_declaration_naming_the_field(staff_api, make_accelerator, fields, field):
    response = staff_api.post("/api/v1/deployments/", _body(make_accelerator(), **fields), format="json")

    assert response.status_code == 400
    assert field in response.data
    assert not Deployment.objects.exists() and not PeriodicTask.objects.filter(task="metering.meter_deployment")


def test_metering_an_unreachable_prometheus_is_refused_and_stores_nothing(staff_api, make_accelerator, make_price):
    gpu = make_accelerator("H100")
    make_price(gpu, "3.60")
    staff_api.post("/api/v1/deployments/", _body(gpu), format="json")

    response = staff_api.post(
        "/api/v1/deployments/chat-prod/meter/",
        {"start": "2026-11-01T00:00:00Z", "end": "2026-11-02T00:00:00Z"},
        format="json",
    )

    assert response.status_code == 400
    assert "prometheus_url" in response.data
    assert "vllm:request_success_total" in str(response.data["prometheus_url"])
    assert not MeteredPeriod.objects.exists()
    # The daily task logs the same refusal and stores nothing either.
    assert meter_deployment.apply(args=[Deployment.objects.get().pk]).get() is None
    assert not MeteredPeriod.objects.exists()
