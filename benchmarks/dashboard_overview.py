"""Server-time benchmark of the dashboard overview over 10,000 runs, against a baseline from the same run.

    .venv/bin/python benchmarks/dashboard_overview.py [--runs 10000] [--points-per-run 5] [--requests 40]

1. Creates (drops first) the PostgreSQL database `inferledger_dash_bench`, migrates it, loads the catalog.
2. Bulk-inserts RUNS runs with POINTS_PER_RUN points each over the catalog's priced accelerators, the
   four model classes, several backends, precisions and scenarios, repeated over time; plus agents and jobs.
3. In-process with Django's test Client (no network, so this is server time: URL routing, middleware,
   session, queries, figure building and template rendering), after a warm-up, requests the overview
   REQUESTS times per query string and the login page (the baseline) as many times.
4. Prints median and p95 of each, and overview median / baseline median. Drops the database (unless
   --keep-db). Target: overview median under 300 ms; exits 1 when missed.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_URL = os.environ.get("BENCH_SERVER_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
DB_NAME = "inferledger_dash_bench"
BENCH_URL = SERVER_URL.rsplit("/", 1)[0] + f"/{DB_NAME}"
TARGET_MEDIAN_MS = 300
MODEL_CLASSES = {"cv-classification": "resnet50", "encoder": "bert", "llm-decoder": "llama", "tabular": "risk-mlp"}
BACKENDS, PRECISIONS, SCENARIOS = ["eager", "compile", "onnxruntime"], ["fp32", "fp16", "int8"], ["offline", "server"]
OVERVIEW_QUERIES = [
    "/?model_class=tabular&sla_p99_ms=20&price_kind=cloud_on_demand&utilization=1",
    "/?model_class=cv-classification&sla_p99_ms=15&price_kind=cloud_spot&utilization=0.6",
    "/?model_class=llm-decoder&sla_p99_ms=2000&price_kind=cloud_on_demand&utilization=1",
]
BASELINE = "/accounts/login/"


def _env() -> dict:
    # Production settings (DEBUG off: no debug toolbar-style overheads), plain HTTP in-process.
    return os.environ | {
        "DATABASE_URL": BENCH_URL, "LOG_LEVEL": "WARNING", "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 60,
        "ALLOWED_HOSTS": "testserver", "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }  # fmt: skip


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(sql)


def create_database() -> None:
    _admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    _admin(f"CREATE DATABASE {DB_NAME}")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=_env(), check=True)
    subprocess.run([*manage, "load_catalog"], cwd=ROOT, env=_env(), check=True, stdout=subprocess.DEVNULL)


def setup_django() -> None:
    os.environ.update(_env())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferledger.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def seed(run_count: int, points_per_run: int) -> None:
    from django.db import connection

    from agents.models import Agent, BenchmarkRun, Job, JobState, OperatingPoint
    from hardware_catalog.models import Accelerator

    rng = random.Random(42)
    accelerators = list(Accelerator.objects.filter(prices__isnull=False).distinct())
    configs = [
        (accelerator, cls, backend, precision, scenario)
        for accelerator in accelerators for cls in MODEL_CLASSES
        for backend in BACKENDS for precision in PRECISIONS for scenario in SCENARIOS
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
            payload={"bench": number}, payload_sha256=f"{number:064x}",
        )  # fmt: skip
        runs.append(run)
        speed = rng.uniform(50, 5000)
        for index in range(points_per_run):
            batch = 2**index
            throughput = speed * batch / (1 + batch * 0.05)
            p99 = 1000 * batch / throughput * rng.uniform(1.5, 3)
            points.append(
                OperatingPoint(
                    run=run, index=index, batch_size=batch, throughput_per_s=throughput,
                    output_tokens_per_s=throughput * 128 if cls == "llm-decoder" else None,
                    latency_p50_ms=p99 / 2, latency_p99_ms=p99, power_w_mean=rng.uniform(100, 700), loadgen_valid=True,
                )
            )  # fmt: skip
    BenchmarkRun.objects.bulk_create(runs, batch_size=2000)
    OperatingPoint.objects.bulk_create(points, batch_size=5000)
    agents = Agent.objects.bulk_create(
        [Agent(name=f"gpu-host-{n}", hostname=f"gpu{n}", queue=f"agent.gpu-host-{n}") for n in range(20)]
    )
    states = [JobState.SUCCEEDED, JobState.FAILED, JobState.RUNNING, JobState.QUEUED]
    Job.objects.bulk_create(
        [Job(agent=agents[n % 20], state=states[n % 4], progress_pct=n % 100) for n in range(500)], batch_size=500
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # what autovacuum would do soon after a bulk load


def timed(client, path: str, count: int) -> list[float]:
    latencies = []
    for _ in range(count):
        began = time.perf_counter()
        response = client.get(path)
        latencies.append((time.perf_counter() - began) * 1000)
        assert response.status_code == 200, f"{path}: HTTP {response.status_code}"
    return latencies


def describe(name: str, latencies: list[float]) -> float:
    ordered = sorted(latencies)
    median = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"{name:<44} n={len(ordered):>4}  median={median:7.1f} ms  p95={p95:7.1f} ms")
    return median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points-per-run", type=int, default=5)
    parser.add_argument("--requests", type=int, default=40, help="Timed requests per overview query and baseline.")
    parser.add_argument("--keep-db", action="store_true", help=f"Leave {DB_NAME} in place afterwards.")
    args = parser.parse_args()

    began = time.perf_counter()
    create_database()
    setup_django()
    seed(args.runs, args.points_per_run)
    print(f"seeded {args.runs:,} runs x {args.points_per_run} points in {time.perf_counter() - began:.1f} s")
    try:
        from django.contrib.auth import get_user_model
        from django.test import Client

        client = Client()
        client.force_login(get_user_model().objects.create_user("bench"))
        for path in [*OVERVIEW_QUERIES, BASELINE]:
            timed(client, path, 3)  # warm-up: connections, template and URL caches
        baseline = timed(Client(), BASELINE, args.requests)
        overview = []
        for path in OVERVIEW_QUERIES:
            latencies = timed(client, path, args.requests)
            describe(f"overview {path[2:42]}", latencies)
            overview += latencies
        base_median = describe("baseline (login page)", baseline)
        median = describe("overview, all queries", overview)
        print(f"overview median / baseline median = {median / base_median:.1f}x")
        met = median < TARGET_MEDIAN_MS
        print(f"target: overview median < {TARGET_MEDIAN_MS} ms -> {'met' if met else 'MISSED'}")
        return 0 if met else 1
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep_db:
            _admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


if __name__ == "__main__":
    sys.exit(main())
