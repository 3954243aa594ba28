"""Shared by the benchmarks that need a large PostgreSQL database: create it, seed it, drop it.

Each benchmark uses its own database (created fresh, migrated, catalog loaded) and these synthetic but
well-formed runs: every configuration of accelerator x model class x backend x precision x scenario,
repeated over time so that "the latest run per configuration" matters, with points whose latency grows
with batch size.
"""

import os
import random
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_URL = os.environ.get("BENCH_SERVER_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
# Each class's reference workload as the harness runs it, by registry id (the name every answer is keyed by).
MODEL_CLASSES = {
    "cv-classification": "resnet50",
    "encoder": "bert-large-99",
    "llm-decoder": "llama3.1-8b",
    "tabular": "risk-mlp",
}


def database_url(name: str) -> str:
    return SERVER_URL.rsplit("/", 1)[0] + f"/{name}"


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(sql)


def create_database(name: str, env: dict) -> None:
    """Drop and create `name`, migrate it and load the shipped catalog (env carries its DATABASE_URL)."""
    _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    _admin(f"CREATE DATABASE {name}")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([*manage, "load_catalog"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def drop_database(name: str) -> None:
    _admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def setup_django(env: dict) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferledger.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def seed_runs(
    run_count: int,
    points_per_run: int,
    *,
    backends: list[str],
    precisions: list[str],
    scenarios: list[str],
    batch_for_index: Callable[[int], int] = lambda index: 2**index,
    payload_for: Callable[[int, int], dict] | None = None,
) -> None:
    """Bulk-insert run_count runs of points_per_run points each, then VACUUM ANALYZE (Django set up first).
    ``payload_for(number, points_per_run)``: each run's stored payload (default: a marker of a few bytes)."""
    from django.db import connection

    from hardware_catalog.models import Accelerator
    from results.models import BenchmarkRun, OperatingPoint

    rng = random.Random(42)
    accelerators = list(Accelerator.objects.filter(prices__isnull=False).distinct())
    configs = [
        (accelerator, cls, backend, precision, scenario)
        for accelerator in accelerators for cls in MODEL_CLASSES
        for backend in backends for precision in precisions for scenario in scenarios
    ]  # fmt: skip
    start = datetime(2025, 1, 1, tzinfo=UTC)
    runs, points = [], []
    for number in range(run_count):
        accelerator, cls, backend, precision, scenario = configs[number % len(configs)]
        started = start + timedelta(hours=number)
        run = BenchmarkRun(
            accelerator=accelerator, device_name=str(accelerator), workload_name=MODEL_CLASSES[cls],
            model_class=cls, size="reference", scenario=scenario, backend=backend, precision=precision,
            started_at=started, finished_at=started + timedelta(minutes=10), loadgen_valid=rng.random() > 0.05,
            accuracy_passed=None if precision == "fp32" else rng.random() > 0.05,
            payload=payload_for(number, points_per_run) if payload_for else {"bench": number},
            payload_sha256=f"{number:064x}",
        )  # fmt: skip
        runs.append(run)
        speed = rng.uniform(50, 5000)
        for index in range(points_per_run):
            batch = batch_for_index(index)
            throughput = speed * batch / (1 + batch * 0.05)
            p99 = 1000 * batch / throughput * rng.uniform(1.5, 3)
            points.append(
                OperatingPoint(
                    run=run, index=index, batch_size=batch, throughput_per_s=throughput,
                    output_tokens_per_s=throughput * 128 if cls == "llm-decoder" else None,
                    ttft_p99_ms=p99 / 10 if cls == "llm-decoder" else None,
                    tpot_p99_ms=p99 / 128 if cls == "llm-decoder" else None,
                    latency_p50_ms=p99 / 2, latency_p99_ms=p99, power_w_mean=rng.uniform(100, 700), loadgen_valid=True,
                )
            )  # fmt: skip
    BenchmarkRun.objects.bulk_create(runs, batch_size=2000)
    OperatingPoint.objects.bulk_create(points, batch_size=5000)
    with connection.cursor() as cursor:
        # What autovacuum would do soon after a bulk load; done now so it does not run during the measurement.
        cursor.execute("VACUUM ANALYZE")
