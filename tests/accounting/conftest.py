import hashlib
import uuid
from datetime import UTC, datetime, timedelta

import pytest


@pytest.fixture
def make_run(db):
    """A stored BenchmarkRun with its OperatingPoints, built directly (no payload validation).

    points: dicts with throughput_per_s and latency_p99_ms, plus any other OperatingPoint field.
    """
    from results.models import BenchmarkRun, OperatingPoint

    def make(
        accelerator,
        points,
        *,
        model_class="cv-classification",
        workload_name="resnet50",
        scenario="server",
        backend="eager",
        precision="fp16",
        started_at=datetime(2025, 3, 1, tzinfo=UTC),
        **fields,
    ):
        fields.setdefault("loadgen_valid", True)
        run = BenchmarkRun.objects.create(
            accelerator=accelerator,
            device_name=str(accelerator),
            workload_name=workload_name,
            model_class=model_class,
            size="reference",
            scenario=scenario,
            backend=backend,
            precision=precision,
            started_at=started_at,
            finished_at=fields.pop("finished_at", started_at + timedelta(minutes=10)),
            payload={"test": True},
            payload_sha256=hashlib.sha256(uuid.uuid4().bytes).hexdigest(),
            **fields,
        )
        rows = []
        for index, point in enumerate(points):
            values = {"batch_size": 1, "latency_p50_ms": point["latency_p99_ms"] / 2, "loadgen_valid": True}
            values.update(point)
            rows.append(OperatingPoint(run=run, index=index, **values))
        OperatingPoint.objects.bulk_create(rows)
        return run

    return make


@pytest.fixture
def alpha(make_accelerator, make_price, make_run):
    """One GPU at 2.00 USD/h doing 400 inferences/s within 9 ms: 2.00 / (400 * 3600) * 1e6 = 1.3889 USD per 1M."""
    gpu = make_accelerator("Alpha")
    make_price(gpu, "2.00")
    make_run(gpu, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    return gpu


@pytest.fixture(autouse=True)
def _fresh_ranking_cache():
    """Each test starts with an empty ranking cache (LocMemCache lives as long as the process)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
