"""manage.py enqueue and run_agent in the embedded default (no broker: jobs run in-process)."""

import pytest
from django.core.management import CommandError, call_command

from agents.models import Agent, Job
from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db


def test_it_registers_the_local_host_when_no_broker_is_configured(catalog, capsys):
    call_command("run_agent", "--name", "local", "--once")
    assert "this host is the built-in agent 'local'" in capsys.readouterr().out
    assert Agent.objects.get(name="local").devices[0]["type"] in ("cpu", "cuda")


def test_it_enqueues_a_job_that_the_local_agent_runs(catalog, capsys, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # outside a test, the commit dispatches it
        call_command(
            "enqueue", "--workload", "tabular", "--scenario", "single-stream", "--backend", "eager", "--precision",
            "fp32", "--min-duration-ms", "100", "--time-limit-s", "120",
        )  # fmt: skip
    job = Job.objects.get()
    assert f"job {job.pk} on agent local" in capsys.readouterr().out
    assert job.state == "queued"  # no job runs inside the command (or an HTTP request) that creates it

    call_command("run_agent", "--name", "local", "--once")

    job.refresh_from_db()
    assert job.state == "succeeded" and BenchmarkRun.objects.filter(job=job).count() == 1


def test_it_names_the_bad_option(catalog):
    with pytest.raises(CommandError, match="--batch-size"):
        call_command("enqueue", "--batch-size", "0")


def test_prepare_run_with_a_broker_set_prints_the_token_then_says_why_nothing_was_queued(catalog, settings, tmp_path):
    from io import StringIO

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # set, and no agent registered on it
    out, err = StringIO(), StringIO()
    call_command("prepare_run", "--token-file", str(tmp_path / "demo-token"), stdout=out, stderr=err)
    assert "API token for 'demo': " in out.getvalue()
    assert err.getvalue().startswith("The quick suite was not queued: agent: give an agent")
    assert not Job.objects.exists()
