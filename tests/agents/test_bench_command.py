from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from agents.models import BenchmarkRun

pytestmark = pytest.mark.django_db


def test_it_runs_a_narrowed_suite_ingests_it_and_prints_a_summary(catalog, tmp_path, monkeypatch):
    from agents.harness.scenarios import settings as harness_settings

    short = harness_settings.preset("quick").with_(
        min_duration_ms=200, min_query_count=16, warmup_queries=2, offline_batch_sizes=(1, 4), rounds=2
    )
    monkeypatch.setitem(harness_settings.PRESETS, "quick", short)
    out = StringIO()
    call_command(
        "bench",
        "--workload",
        "tabular",
        "--backend",
        "eager",
        "--precision",
        "fp32",
        "--out",
        str(tmp_path),
        stdout=out,
    )
    text = out.getvalue()
    assert "3 runs stored, 0 skipped, 0 quarantined" in text
    assert {run.scenario for run in BenchmarkRun.objects.all()} == {"single-stream", "offline", "server"}
    assert "100.0%" in text and "tabular-tiny" in text
    assert list(tmp_path.rglob("mlperf_log_summary.txt"))

    again = StringIO()
    call_command("bench", "--once", stdout=again)
    assert "already has quick-suite results; skipping" in again.getvalue()
    assert BenchmarkRun.objects.count() == 3


def test_it_names_an_unknown_workload():
    with pytest.raises(CommandError, match="unknown workloads"):
        call_command("bench", "--workload", "speech", stdout=StringIO())
