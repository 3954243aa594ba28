"""CPU cost of one request in the web process, without a server or a load generator: the API floor (who the token
belongs to), a cached ranking and a signed-in dashboard overview of the same question, through Django's WSGI
handler, against a floor measured in the same run.

    .venv/bin/python benchmarks/request_cost.py [--runs 10000] [--points-per-run 20] [--batches 40]

On a shared, noisy host wrk's latencies move with the neighbours; the least time a batch of requests takes is the
steadiest figure of what the code costs. Seeds the same database as benchmarks/api_load.py (BENCH_DB_NAME,
BENCH_CACHE_URL as there), warms the ranking into the shared cache, then times BATCHES batches of 50 requests of
each kind, interleaved, and prints per request the minimum and the lower quartile of the batches, rankings / floor
and overview / rankings. Drops the database unless --keep-db. What it reads: where a cached answer's time goes
beside the floor's (issue 28); the absolute targets are api_load.py's.
"""

import argparse
import io
import statistics
import sys
import time
from functools import partial

import api_load  # benchmarks/api_load.py: the same seeded data, queries and settings

PER_BATCH = 50
RANKING = api_load.RANKING_QUERIES[1]
OVERVIEW = api_load.OVERVIEW_QUERIES[0]


def _wsgi_caller(token: str, cookie: str):
    from django.core.handlers.wsgi import WSGIHandler

    app = WSGIHandler()

    def call(address: str, *, signed_in: bool = False) -> str:
        path, _, query = address.partition("?")
        credentials = {"HTTP_COOKIE": cookie} if signed_in else {"HTTP_AUTHORIZATION": f"Token {token}"}
        environ = {
            "REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query, "SCRIPT_NAME": "",
            "SERVER_NAME": api_load.HOST, "SERVER_PORT": "80", "HTTP_HOST": api_load.HOST, "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr, **credentials,
            **{"HTTP_" + name.upper().replace("-", "_"): value for name, value in api_load.CLIENT_HEADERS.items()},
        }  # fmt: skip
        status = []
        b"".join(app(environ, lambda line, headers, exc_info=None: status.append(line)))
        return status[0]

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points-per-run", type=int, default=20)
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--keep-db", action="store_true", help=f"Leave {api_load.DB_NAME} in place afterwards.")
    args = parser.parse_args()
    api_load.create_database()
    try:
        token, cookie = api_load.seed(args.runs, args.points_per_run)
        api_load.flush_cache()
        call = _wsgi_caller(token, cookie)
        addresses = {"floor": api_load.BASELINE_QUERY, "rankings": RANKING, "overview": OVERVIEW}
        signed_in = {"overview"}  # the dashboard's session; the others send the API token
        callers = {name: partial(call, address, signed_in=name in signed_in) for name, address in addresses.items()}
        for name, caller in callers.items():
            status = caller()
            if not status.startswith("200"):
                raise SystemExit(f"{name} {addresses[name]} answered {status}")
            for _ in range(10):
                caller()
        per_request_us: dict[str, list[float]] = {name: [] for name in addresses}
        for _ in range(args.batches):
            for name, caller in callers.items():
                began = time.perf_counter()
                for _ in range(PER_BATCH):
                    caller()
                per_request_us[name].append((time.perf_counter() - began) / PER_BATCH * 1e6)
        for name, times in per_request_us.items():
            quartile = statistics.quantiles(times, n=4)[0]
            print(f"{name:9s} per request: min {min(times):7.0f} us  lower quartile {quartile:7.0f} us  "
                  f"({addresses[name]})")  # fmt: skip
        least = {name: min(times) for name, times in per_request_us.items()}
        print(f"rankings / floor (min): {least['rankings'] / least['floor']:.2f}")
        print(f"overview / rankings (min): {least['overview'] / least['rankings']:.2f}")
    finally:
        if not args.keep_db:
            api_load.drop_database()


if __name__ == "__main__":
    main()
