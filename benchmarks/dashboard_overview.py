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
import statistics
import sys
import time

import seeding  # benchmarks/seeding.py, beside this script

DB_NAME = "inferledger_dash_bench"
BENCH_URL = seeding.database_url(DB_NAME)
TARGET_MEDIAN_MS = 300
BACKENDS, PRECISIONS, SCENARIOS = ["eager", "compile", "onnxruntime"], ["fp32", "fp16", "int8"], ["offline", "server"]
OVERVIEW_QUERIES = [
    "/?model_class=tabular&sla_p99_ms=20&price_kind=cloud_on_demand&utilization=1",
    "/?model_class=cv-classification&sla_p99_ms=15&price_kind=cloud_spot&utilization=0.6",
    "/?workload=llama3.1-8b&ttft_p99_ms=2000&tpot_p99_ms=100&price_kind=cloud_on_demand&utilization=1",
]
BASELINE = "/accounts/login/"


def _env() -> dict:
    # Production settings (DEBUG off: no debug toolbar-style overheads), plain HTTP in-process.
    return os.environ | {
        "DATABASE_URL": BENCH_URL, "LOG_LEVEL": "WARNING", "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 60,
        "ALLOWED_HOSTS": "testserver", "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false",
        "CSRF_COOKIE_SECURE": "false",
    }  # fmt: skip


def create_database() -> None:
    seeding.create_database(DB_NAME, _env())


def drop_database() -> None:
    seeding.drop_database(DB_NAME)


def setup_django() -> None:
    seeding.setup_django(_env())


def seed(run_count: int, points_per_run: int) -> None:
    from agents.models import Agent, Job, JobState

    seeding.seed_runs(run_count, points_per_run, backends=BACKENDS, precisions=PRECISIONS, scenarios=SCENARIOS)
    agents = Agent.objects.bulk_create(
        [Agent(name=f"gpu-host-{n}", hostname=f"gpu{n}", queue=f"agent.gpu-host-{n}") for n in range(20)]
    )
    states = [JobState.SUCCEEDED, JobState.FAILED, JobState.RUNNING, JobState.QUEUED]
    Job.objects.bulk_create(
        [Job(agent=agents[n % 20], state=states[n % 4], progress_pct=n % 100) for n in range(500)], batch_size=500
    )


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
            drop_database()


if __name__ == "__main__":
    sys.exit(main())
