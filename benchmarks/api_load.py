"""Load benchmark of GET /api/v1/rankings/ against a real server, with a baseline measured in the same run.

    .venv/bin/python benchmarks/api_load.py [--runs 10000] [--points-per-run 20] [--clients 16] [--seconds 30]
                                            [--client wrk|python]   (wrk: apt-get install wrk)

Where it runs comes from the environment, so it runs beside other work (a test suite, another benchmark):
BENCH_SERVER_DATABASE_URL (the PostgreSQL server; default: 127.0.0.1:5432), BENCH_DB_NAME
(default: inferledger_bench_<pid>), BENCH_PORT (default: a free port), BENCH_CACHE_URL (default: Redis DB 14).

1. Creates (drops first) its PostgreSQL database, migrates it, loads the catalog.
2. Bulk-inserts RUNS benchmark runs with POINTS_PER_RUN operating points each (default 10,000 and
   200,000), spread over the catalog's accelerators, the four model classes, several backends,
   precisions and scenarios, and repeated over time (so "latest run per configuration" matters).
3. Starts gunicorn (2 sync workers, as docs/operations.md deploys, sharing a Redis cache, bound to 127.0.0.1
   only), times each ranking query once with an empty cache (the cost of a rebuild after new data), and each
   serving ranking and overview query once (so each is measured in steady state), then, with CLIENTS
   concurrent clients (wrk when installed) for SECONDS each, measures a floor (GET /api/v1/auth/me/: the
   least an authenticated JSON answer costs), the rankings, the LLM serving ranking and the dashboard overview
   (logged in with a session, the same questions as some of the rankings), steady state: the data does not change.
   Between the rankings' first pass and the rest, a cold stampede: the cache flushed, CLIENTS concurrent
   requests for one ranking; prints how many times it was built (the target: once per key,
   accounting.rankings.cache's single flight).
4. Prints p50/p99 latency, requests/s and error counts, ranking p99 / baseline p99, serving p99 / ranking p99
   and overview p50 / ranking p50. Stops the server and drops the database (unless --keep-db).
   Every request says Accept-Encoding: gzip, as browsers and HTTP libraries do.
   Targets (issue 28): 0 errors, ranking p99 < 25 ms, serving p99 within 1.5x of the rankings', overview p50
   within 3x of the rankings', one build per key on a cold cache; each printed as met or MISSED, and the exit
   status is 1 when any is missed.
"""

import argparse
import http.client
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import seeding  # benchmarks/seeding.py, beside this script
from faultkit import free_port  # benchmarks/faultkit.py

ROOT = Path(__file__).resolve().parent.parent
DB_NAME = os.environ.get("BENCH_DB_NAME") or f"inferledger_bench_{os.getpid()}"
BENCH_URL = seeding.database_url(DB_NAME)
HOST, PORT = "127.0.0.1", int(os.environ.get("BENCH_PORT") or free_port())
# The web workers share one cache, as in production (docs/operations.md); flushed before each run.
CACHE_URL = os.environ.get("BENCH_CACHE_URL", "redis://127.0.0.1:6379/14")
MODEL_CLASSES = seeding.MODEL_CLASSES
BACKENDS, PRECISIONS, SCENARIOS = (
    ["eager", "compile", "onnxruntime", "tensorrt"],
    ["fp32", "fp16", "int8"],
    ["offline", "server"],
)
# Each seeded workload by id; LLM workloads are bounded by TTFT/TPOT p99 (sla_p99_ms is refused for them).
RANKING_QUERIES = [
    f"/api/v1/rankings/?workload={MODEL_CLASSES[cls]}&price_kind={kind}&"
    + (f"ttft_p99_ms={sla * 10}&tpot_p99_ms={sla}" if cls == "llm-decoder" else f"sla_p99_ms={sla}")
    for cls in MODEL_CLASSES
    for kind in ("cloud_on_demand", "cloud_spot")
    for sla in (10, 50, 200)
]  # fmt: skip
# The floor: the least an authenticated JSON answer of ours costs (who the token belongs to).
BASELINE_QUERY = "/api/v1/auth/me/"
# The LLM serving ranking, read at speeds (output tokens/s per user) inside the seeded fronts' measured ranges
# (their slowest points serve 80 to 16,000 tokens/s per user): a front is never read below its slowest point, so
# slower speeds would measure an empty answer. cold_pass checks that each has rows.
SERVING_QUERIES = [
    f"/api/v1/serving/ranking/?workload={MODEL_CLASSES['llm-decoder']}&price_kind={kind}&interactivity_tps_per_user={tps}"
    for kind in ("cloud_on_demand", "cloud_spot")
    for tps in (2000, 4000, 8000)
]  # fmt: skip
EMPTY_REASON_HEADER = "X-Empty-Reason"
# Issue 28's targets.
RANKING_P99_TARGET_MS, SERVING_OVER_RANKING_P99, OVERVIEW_OVER_RANKING_P50 = 25, 1.5, 3
# As browsers, requests and curl --compressed send it: cached answers are kept gzipped and sent so.
CLIENT_HEADERS = {"Accept-Encoding": "gzip"}
# The dashboard overview asks the same questions as some of the rankings above (same workload, SLA, price kind).
OVERVIEW_QUERIES = [
    f"/?workload={MODEL_CLASSES[cls]}&price_kind=cloud_on_demand&"
    + ("ttft_p99_ms=500&tpot_p99_ms=50" if cls == "llm-decoder" else "sla_p99_ms=50")
    for cls in MODEL_CLASSES
]  # fmt: skip


def _env() -> dict:
    return os.environ | {
        "DATABASE_URL": BENCH_URL, "DEBUG": "false", "SECRET_KEY": "bench-" + "x" * 60, "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false", "SESSION_COOKIE_SECURE": "false", "CSRF_COOKIE_SECURE": "false",
        "LOG_LEVEL": "WARNING", "CACHE_URL": CACHE_URL,
    }  # fmt: skip


def create_database() -> None:
    seeding.create_database(DB_NAME, _env())


def drop_database() -> None:
    seeding.drop_database(DB_NAME)


def seed(run_count: int, points_per_run: int) -> tuple[str, str]:
    """Bulk-insert the runs and points; returns (an API token, a dashboard session cookie) of one user."""
    seeding.setup_django(_env())
    from django.contrib.auth import get_user_model
    from django.test import Client
    from knox.models import AuthToken

    seeding.seed_runs(
        run_count, points_per_run, backends=BACKENDS, precisions=PRECISIONS, scenarios=SCENARIOS,
        batch_for_index=lambda index: 2 ** (index % 10) * (1 + index // 10),
    )  # fmt: skip
    user, _ = get_user_model().objects.get_or_create(username="bench")
    browser = Client()
    browser.force_login(user)  # a session stored in the database (the default session engine)
    return AuthToken.objects.create(user)[1], f"sessionid={browser.cookies['sessionid'].value}"


def flush_cache() -> None:
    if CACHE_URL.startswith("redis://"):
        import redis

        redis.Redis.from_url(CACHE_URL).flushdb()


def rebuild_count() -> int | None:
    """Builds counted by accounting.rankings.cache in the shared cache (None where the cache is not Redis)."""
    if not CACHE_URL.startswith("redis://"):
        return None
    import redis

    client = redis.Redis.from_url(CACHE_URL)
    keys = client.keys("*accounting:ranking-rebuilds")  # Django prefixes its keys (":1:...")
    return int(client.get(keys[0])) if keys else 0


def cold_stampede(query: str, token: str, clients: int) -> int | None:
    """CLIENTS requests for one ranking at once on an empty cache; how many times the ranking was built."""
    flush_cache()
    barrier = threading.Barrier(clients)

    def one():
        connection = http.client.HTTPConnection(HOST, PORT, timeout=120)
        barrier.wait()
        connection.request("GET", query, headers=CLIENT_HEADERS | {"Authorization": f"Token {token}"})
        connection.getresponse().read()
        connection.close()

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return rebuild_count()


def start_server() -> subprocess.Popen:
    flush_cache()
    command = [str(Path(sys.executable).parent / "gunicorn"), "inferledger.wsgi", "-w", "2", "-b", f"{HOST}:{PORT}"]
    # Sync workers, as docs/operations.md deploys: each request is taken by whichever worker is free. With
    # keep-alive (gthread) each of wrk's 16 connections stayed with the worker that accepted it, and that split
    # was often lopsided (counted in gunicorn's access log: 954 against 6,221 requests, 246 against 4,872), so
    # a phase ran on about one worker, at random, and its latency doubled.
    command += os.environ.get("BENCH_GUNICORN_ARGS", "-k sync").split()
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


def load(paths: list[str], token: str, clients: int, seconds: float, *, cookie: str | None = None) -> dict:
    """CLIENTS threads issue requests back to back for SECONDS; returns latencies (ms) and errors.
    With `cookie`, requests carry that session cookie (the dashboard) instead of the token."""
    headers = CLIENT_HEADERS | ({"Cookie": cookie} if cookie else {"Authorization": f"Token {token}"})
    latencies, errors, lock = [], [], threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number: int) -> None:
        turn, connection = number, None
        while time.monotonic() < deadline:
            path, turn = paths[turn % len(paths)], turn + 1
            began = time.perf_counter()
            try:
                connection = connection or http.client.HTTPConnection(HOST, PORT, timeout=30)
                connection.request("GET", path, headers=headers)
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


def cold_pass(
    token: str, paths: list[str] = RANKING_QUERIES, cookie: str | None = None, empty: list | None = None
) -> list[float]:
    """Latency (ms) of each query sent once, in turn, to a server with an empty cache: what the one request
    that rebuilds a ranking after a data change pays (the others meanwhile get the old one). With `cookie`,
    requests carry that session cookie (the dashboard) instead of the token."""
    headers = CLIENT_HEADERS | ({"Cookie": cookie} if cookie else {"Authorization": f"Token {token}"})
    connection, latencies = http.client.HTTPConnection(HOST, PORT, timeout=120), []
    for path in paths:
        began = time.perf_counter()
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status} for {path}")
        latencies.append((time.perf_counter() - began) * 1000)
        if empty is not None and response.getheader(EMPTY_REASON_HEADER):
            empty.append(path)
    return latencies


WRK_SCRIPT = """
paths = {}
for p in string.gmatch(os.getenv("WRK_PATHS"), "[^ ]+") do table.insert(paths, p) end
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter % #paths) + 1],
                    {[os.getenv("WRK_HEADER")] = os.getenv("WRK_VALUE"), ["Accept-Encoding"] = "gzip"})
end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %d %d %d %.3f %.3f\\n", summary.requests,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""


def load_with_wrk(paths: list[str], token: str, clients: int, seconds: float, *, cookie: str | None = None) -> dict:
    """The same closed loop driven by wrk (C, event loop): the client costs the 2 shared cores far less
    CPU than Python threads, and its latencies carry no client-side GIL wait. With `cookie`, requests carry
    that session cookie (the dashboard) instead of the token."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
    header = ("Cookie", cookie) if cookie else ("Authorization", f"Token {token}")
    env = {**os.environ, "WRK_PATHS": " ".join(paths), "WRK_HEADER": header[0], "WRK_VALUE": header[1]}
    command = [
        "wrk",
        "-t",
        "2",
        "-c",
        str(clients),
        "--timeout",  # a slow answer counts as its latency, not as a socket error (wrk's default is 2 s)
        "60s",
        "-d",
        f"{int(seconds)}s",
        "-s",
        script.name,
        f"http://{HOST}:{PORT}",
    ]
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    os.unlink(script.name)
    requests, socket_errors, status_errors, p50_ms, p99_ms = output.split("RESULT", 1)[1].split()
    errors = int(socket_errors) + int(status_errors)
    return {"requests": int(requests) - errors, "errors": errors, "p50_ms": float(p50_ms), "p99_ms": float(p99_ms),
            "seconds": seconds}  # fmt: skip


ERRORS: list[int] = []  # each measurement's error count, summed into the targets


def wrk_summary(name: str, result: dict) -> tuple[float, float]:
    ERRORS.append(result["errors"])
    rate = result["requests"] / result["seconds"]
    print(f"{name:<10} requests={result['requests']:>6}  req/s={rate:7.1f}  p50={result['p50_ms']:7.1f} ms  "
          f"p99={result['p99_ms']:7.1f} ms  errors={result['errors']}  (wrk)")  # fmt: skip
    return result["p50_ms"], result["p99_ms"]


def summary(name: str, result: dict) -> tuple[float, float]:
    ERRORS.append(len(result["errors"]))
    latencies = sorted(result["latencies"])
    p50 = statistics.median(latencies) if latencies else float("nan")
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else float("nan")
    rate = len(latencies) / result["seconds"]
    print(f"{name:<10} requests={len(latencies):>6}  req/s={rate:7.1f}  p50={p50:7.1f} ms  p99={p99:7.1f} ms  "
          f"errors={len(result['errors'])}")  # fmt: skip
    for error in sorted(set(result["errors"]))[:5]:
        print(f"           error: {error}")
    return p50, p99


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points-per-run", type=int, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--keep-db", action="store_true", help=f"Leave {DB_NAME} in place afterwards.")
    parser.add_argument(
        "--client",
        choices=["wrk", "python"],
        default="wrk" if shutil.which("wrk") else "python",
        help="Load generator: wrk (apt-get install wrk; the default when installed) or Python threads, "
        "whose own CPU use and GIL waits inflate the latencies on a 2-core machine.",
    )
    args = parser.parse_args()

    began = time.monotonic()
    create_database()
    token, cookie = seed(args.runs, args.points_per_run)
    print(f"seeded {args.runs} runs, {args.runs * args.points_per_run} points in {time.monotonic() - began:.0f} s")
    server = start_server()
    try:
        empty: list[str] = []
        cold_ms = cold_pass(token, empty=empty)
        print(f"cold       {len(cold_ms)} rankings, each built once with an empty cache, one at a time: "
              f"p50={statistics.median(cold_ms):.1f} ms  max={max(cold_ms):.1f} ms  "
              f"({len(cold_ms) - len(empty)} with rows, {len(empty)} empty)")  # fmt: skip
        # Before any load, so that no request left in flight by wrk builds its own query on the flushed cache.
        builds = cold_stampede(RANKING_QUERIES[0], token, args.clients)
        print(f"stampede   {args.clients} concurrent requests on a cold cache for one ranking: built {builds} time(s) "
              "(target: 1)")  # fmt: skip
        cold_pass(token)  # the rankings built again after the stampede's flush
        # The serving rankings and the overviews asked once each too, so that each is measured in steady state.
        for name, paths, session in (("serving", SERVING_QUERIES, None), ("overview", OVERVIEW_QUERIES, cookie)):
            empty = []
            cold_ms = cold_pass(token, paths, session, empty)
            print(f"cold       {len(cold_ms)} {name} pages asked once each, one at a time: "
                  f"p50={statistics.median(cold_ms):.1f} ms  max={max(cold_ms):.1f} ms")  # fmt: skip
            if name == "serving" and empty:
                raise SystemExit(f"serving answers without a row (an empty answer is not what is measured): {empty}")
        load(RANKING_QUERIES + SERVING_QUERIES + [BASELINE_QUERY], token, 2, 3)  # warm both workers' connections
        measure = load_with_wrk if args.client == "wrk" else load
        report = wrk_summary if args.client == "wrk" else summary
        _, baseline = report("baseline", measure([BASELINE_QUERY], token, args.clients, args.seconds))
        ranking_p50, ranking = report("rankings", measure(RANKING_QUERIES, token, args.clients, args.seconds))
        _, serving = report("serving", measure(SERVING_QUERIES, token, args.clients, args.seconds))
        overview_p50, _ = report(
            "overview", measure(OVERVIEW_QUERIES, token, args.clients, args.seconds, cookie=cookie)
        )
    finally:
        stop_server(server)
        if not args.keep_db:
            drop_database()
    errors = sum(ERRORS)
    targets = [
        (f"ranking p99 = {ranking:.1f} ms (floor p99 {baseline:.1f} ms, ratio {ranking / baseline:.2f})",
         f"< {RANKING_P99_TARGET_MS} ms", ranking < RANKING_P99_TARGET_MS),
        (f"serving p99 / ranking p99 = {serving / ranking:.2f}", f"<= {SERVING_OVER_RANKING_P99}",
         serving / ranking <= SERVING_OVER_RANKING_P99),
        (f"overview p50 / ranking p50 = {overview_p50 / ranking_p50:.2f}", f"<= {OVERVIEW_OVER_RANKING_P50}",
         overview_p50 / ranking_p50 <= OVERVIEW_OVER_RANKING_P50),
        (f"errors = {errors}", "0", errors == 0),
        (f"builds on a cold cache under {args.clients} requests = {builds}", "1", builds in (1, None)),
    ]  # fmt: skip
    for text, target, met in targets:
        print(f"{'met   ' if met else 'MISSED'} {text}  (target: {target})")
    sys.exit(0 if all(met for _, _, met in targets) else 1)


if __name__ == "__main__":
    main()
