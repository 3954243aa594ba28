"""A measured LLM point's rounds reach its serving point: read in SQL (PointsRounds, only the payload's rounds
blocks) by the fronts, and in Python from the run's payload, the same."""

import json
import sqlite3

import pytest

from accounting.serving.points import PointsRounds, fronts, llm_workload, serving_point
from results.models import BenchmarkRun

from .data import llm_point

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

BY_THROUGHPUT = {"count": 3, "chosen_by": "throughput_per_s", "values": [760.0, 800.0, 840.0]}
BY_LATENCY = {"count": 3, "chosen_by": "latency_p50_ms", "values": [9.0, 10.0, 11.0]}
# Point 0: rounds chosen by throughput (its values are its spread); point 1: none recorded; point 2: rounds
# chosen by latency, whose values are not throughputs. Only point 0 carries values, and at its own index.
PAYLOAD = {"points": [{"index": 0, "rounds": BY_THROUGHPUT}, {"index": 1}, {"index": 2, "rounds": BY_LATENCY}]}


@pytest.fixture
def run(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Alpha", tdp_w=700)
    make_price(gpu, "2.88")
    kwargs = {"model_class": "llm-decoder", "workload_name": "llama3.1-8b", "backend": "vllm", "precision": "bf16"}
    run = make_run(gpu, [llm_point(100, 1200), llm_point(50, 800), llm_point(25, 400)], **kwargs)
    BenchmarkRun.objects.filter(pk=run.pk).update(payload=PAYLOAD)
    return BenchmarkRun.objects.get(pk=run.pk)


def test_the_fronts_read_each_points_rounds_as_the_payload_holds_them(run):
    (group,) = fronts(workload="llama3.1-8b")
    by_throughput = {p.output_tokens_per_s: p.output_tokens_per_s_values for p in group.front.points}
    # All three are on the front (each is more interactive and slower than the one before); point 0 is 1,200 tok/s.
    assert by_throughput == {1200.0: (760.0, 800.0, 840.0), 800.0: (), 400.0: ()}
    values = {point.index: serving_point(point, run, llm_workload("llama3.1-8b")) for point in run.points.all()}
    assert values[0].output_tokens_per_s_values == (760.0, 800.0, 840.0)
    assert values[1].output_tokens_per_s_values == values[2].output_tokens_per_s_values == ()
    on_front = {p.extra["point"].pk: p.output_tokens_per_s_values for p in group.front.points}
    in_python = {point.pk: values[point.index].output_tokens_per_s_values for point in run.points.all()}
    assert on_front == {pk: in_python[pk] for pk in on_front}


def test_the_sql_keeps_every_point_in_order_with_null_where_a_point_has_no_rounds(run):
    (found,) = BenchmarkRun.objects.filter(pk=run.pk).annotate(r=PointsRounds("payload")).values_list("r", flat=True)
    assert found == [BY_THROUGHPUT, None, BY_LATENCY]


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (PAYLOAD, [BY_THROUGHPUT, None, BY_LATENCY]),
        ({"points": []}, []),
        ({"test": True}, []),  # no points at all
    ],
)
def test_the_embedded_databases_sql_reads_the_same(payload, expected):
    """The SQLite form, on the SQLite the embedded default runs on (Python's own)."""
    database = sqlite3.connect(":memory:")
    database.execute("CREATE TABLE run (payload TEXT)")
    database.execute("INSERT INTO run VALUES (?)", [json.dumps(payload)])
    (found,) = database.execute(f"SELECT {PointsRounds.SQLITE % {'expressions': 'payload'}} FROM run").fetchone()
    assert json.loads(found) == expected
