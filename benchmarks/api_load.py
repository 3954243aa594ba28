"""Load benchmark of GET /api/v1/rankings/ against a real server, with a baseline measured in the same run.

    .venv/bin/python benchmarks/api_load.py [--runs 10000] [--points-per-run 20] [--clients 16] [--seconds 30]

1. Creates (drops first) the PostgreSQL database `inferledger_bench`, migrates it, loads the catalog.
2. Bulk-inserts RUNS benchmark runs with POINTS_PER_RUN operating points each (default 10,000 and
   200,000), spread over the catalog's accelerators, the four model classes, several backends,
   precisions and scenarios, and repeated over time (so "latest run per configuration" matters).
3. Starts gunicorn (2 workers, bound to 127.0.0.1 only) and, with CLIENTS concurrent clients for
   SECONDS each, measures a baseline (GET /api/v1/accelerators/?page_size=1) then the rankings.
4. Prints p50/p99 latency, requests/s and error counts, and ranking p99 / baseline p99. Stops the
   server and drops the database (unless --keep-db). Target: 0 errors and ranking p99 < 250 ms.
"""

import argparse
import http.client
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SERVER_URL = os.environ.get("BENCH_SERVER_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
DB_NAME = "inferledger_bench"
BENCH_URL = SERVER_URL.rsplit("/", 1)[0] + f"/{DB_NAME}"
HOST, PORT = "127.0.0.1", 8765
MODEL_CLASSES = {"cv-classification": "resnet50", "encoder": "bert", "llm-decoder": "llama", "tabular": "risk-mlp"}
BACKENDS, PRECISIONS, SCENARIOS = (
    ["eager", "compile", "onnxruntime", "tensorrt"],
    ["fp32", "fp16", "int8"],
    ["offline", "server"],
)
RANKING_QUERIES = [
    f"/api/v1/rankings/?model_class={cls}&price_kind={kind}&sla_p99_ms={sla}"
    for cls in MODEL_CLASSES
    for kind in ("cloud_on_demand", "cloud_spot")
    for sla in (10, 50, 200)
]  # fmt: skip
BASELINE_QUERY = "/api/v1/accelerators/?page_size=1"


def _env() -> dict:
    return os.environ | {
        "DATABASE_URL": BENCH_URL, "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 60, "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false", "CSRF_COOKIE_SECURE": "false",
        "LOG_LEVEL": "WARNING",
    }  # fmt: skip


def create_database() -> None:
    import psycopg

    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {DB_NAME}")
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], cwd=ROOT, env=_env(), check=True)
    subprocess.run([*manage, "load_catalog"], cwd=ROOT, env=_env(), check=True, stdout=subprocess.DEVNULL)


def drop_database() -> None:
    import psycopg

    with psycopg.connect(SERVER_URL, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")


def seed(run_count: int, points_per_run: int) -> str:
    """Bulk-insert the runs and points; returns an API token."""
    os.environ.update(_env())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "inferledger.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from knox.models import AuthToken

    from agents.models import BenchmarkRun, OperatingPoint
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
            batch = 2 ** (index % 10) * (1 + index // 10)
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
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # what autovacuum would do soon after a bulk load
    user, _ = get_user_model().objects.get_or_create(username="bench")
    return AuthToken.objects.create(user)[1]


def start_server() -> subprocess.Popen:
    command = [str(Path(sys.executable).parent / "gunicorn"), "inferledger.wsgi", "-w", "2", "-b", f"{HOST}:{PORT}"]
    # Threads with keep-alive: clients reuse their connection, as a browser or a proxy would.
    command += ["-k", "gthread", "--threads", "4", "--keep-alive", "30"]
    server = subprocess.Popen(command, cwd=ROOT, env=_env(), start_new_session=True)
    for _ in range(100):
        try:
            connection = http.client.HTTPConnection(HOST, PORT, timeout=2)
            connection.request("GET", "/api/v1/")
            connection.getresponse().read()
            return server
        except OSError:
            time.sleep(0.2)
    stop_server(server)
    raise SystemExit("gunicorn did not start within 20 s")


def stop_server(server: subprocess.Popen) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    server.wait(timeout=30)


def load(paths: list[str], token: str, clients: int, seconds: float) -> dict:
    """CLIENTS threads issue requests back to back for SECONDS; returns latencies (ms) and errors."""
    latencies, errors, lock = [], [], threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number: int) -> None:
        turn, connection = number, None
        while time.monotonic() < deadline:
            path, turn = paths[turn % len(paths)], turn + 1
            began = time.perf_counter()
            try:
                connection = connection or http.client.HTTPConnection(HOST, PORT, timeout=30)
                connection.request("GET", path, headers={"Authorization": f"Token {token}"})
                response = connection.getresponse()
                response.read()
                outcome = None if response.status == 200 else f"HTTP {response.status} {path}"
            except (OSError, http.client.HTTPException) as exc:
                outcome, connection = f"{type(exc).__name__} {path}", None
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                (errors.append(outcome) if outcome else latencies.append(elapsed))

    threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"latencies": latencies, "errors": errors, "seconds": seconds}


def summary(name: str, result: dict) -> float:
    latencies = sorted(result["latencies"])
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    rate = len(latencies) / result["seconds"]
    print(f"{name:<10} requests={len(latencies):>6}  req/s={rate:7.1f}  p50={p50:7.1f} ms  p99={p99:7.1f} ms  "
          f"errors={len(result['errors'])}")  # fmt: skip
    for error in sorted(set(result["errors"]))[:5]:
        print(f"           error: {error}")
    return p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points-per-run", type=int, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--keep-db", action="store_true", help="Leave inferledger_bench in place afterwards.")
    args = parser.parse_args()

    began = time.monotonic()
    create_database()
    token = seed(args.runs, args.points_per_run)
    print(f"seeded {args.runs} runs, {args.runs * args.points_per_run} points in {time.monotonic() - began:.0f} s")
    server = start_server()
    try:
        load(RANKING_QUERIES + [BASELINE_QUERY], token, 2, 3)  # warm both workers' connections and caches
        baseline = summary("baseline", load([BASELINE_QUERY], token, args.clients, args.seconds))
        ranking = summary("rankings", load(RANKING_QUERIES, token, args.clients, args.seconds))
    finally:
        stop_server(server)
        if not args.keep_db:
            drop_database()
    print(f"ranking p99 / baseline p99 = {ranking / baseline:.2f}  (target: ranking p99 < 250 ms, 0 errors)")


if __name__ == "__main__":
    main()
