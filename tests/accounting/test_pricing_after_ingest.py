"""Pricing runs after ingest has committed the run, in a task of its own: a failure to price leaves the run
stored and listed, never quarantined, and `recompute_costs` prices it once the cause is gone."""

import logging
from io import StringIO

import pytest
from django.core.management import call_command

from accounting.models import CostSnapshot
from agents.models import Job
from agents.registry import agent_enroll, agent_register
from agents.tasks import ingest_job_result
from results.ingest import STORED, ingest_result
from results.models import BenchmarkRun, QuarantinedPayload

pytestmark = pytest.mark.django_db


@pytest.fixture
def costing_raises(monkeypatch):
    """Costing breaks (a fault injected where the pricing task calls it): the run must still be stored."""

    def broken(run):
        raise RuntimeError("costing is broken")

    monkeypatch.setattr("accounting.history.run_costs.snapshots_for_run", broken)
    return monkeypatch


def test_it_stores_a_run_whose_pricing_raises_and_prices_it_on_recompute(
    catalog, result_payload, costing_raises, django_capture_on_commit_callbacks, caplog
):
    with caplog.at_level(logging.ERROR, logger="accounting.history.run_costs"):
        with django_capture_on_commit_callbacks(execute=True):
            outcome = ingest_result(result_payload, source="test")

    assert outcome.status == STORED
    run = BenchmarkRun.objects.get(pk=result_payload["run_id"])
    assert not CostSnapshot.objects.filter(run=run).exists()  # stored, not priced
    assert not QuarantinedPayload.objects.exists()
    assert f"run {run.pk} is stored but could not be priced" in caplog.text

    costing_raises.undo()
    call_command("recompute_costs", stdout=StringIO())
    assert CostSnapshot.objects.filter(run=run).exists()


def test_it_reports_an_agents_result_stored_when_its_pricing_raises(
    catalog, result_payload, costing_raises, django_capture_on_commit_callbacks
):
    agent_enroll(name="gpu01")
    agent = agent_register(report={"name": "gpu01", "devices": [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]})
    job = Job.objects.create(agent=agent, workloads=["tabular"], time_limit_s=120)

    with django_capture_on_commit_callbacks(execute=True):
        status = ingest_job_result.apply(args=[str(job.pk), result_payload]).get()

    assert status == STORED  # before: "quarantined", for a run that was stored
    assert BenchmarkRun.objects.filter(pk=result_payload["run_id"], job=job).exists()
    assert not QuarantinedPayload.objects.exists()
    job.refresh_from_db()
    assert "quarantined" not in (job.error or "")
