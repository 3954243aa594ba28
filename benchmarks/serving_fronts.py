"""Time to rebuild an LLM workload's serving fronts over 10,000 runs, against a floor from the same run.

    .venv/bin/python benchmarks/serving_fronts.py [--runs 10000] [--points-per-run 5] [--repeats 7]

1. Creates (drops first) its own PostgreSQL database (BENCH_DB_NAME, default inferledger_fronts_bench_<pid>),
   migrates it, loads the catalog.
2. Bulk-inserts RUNS runs (a quarter of them LLM runs of llama3.1-8b) with POINTS_PER_RUN points each, every
   run with a payload the size of a real one (its points, each with five rounds and LoadGen's settings: ~10 KB).
3. Times `accounting.serving.points.fronts(workload="llama3.1-8b")` REPEATS times (what a cold serving
   ranking rebuilds), and the floor: reading the same workload's point rows as plain tuples, the least any
   implementation reads. Prints the median and spread of each and fronts / floor.
Target (issue 28): fronts rebuilt in < 300 ms at 10k runs. Drops the database unless --keep-db.
"""

import argparse
import os
import statistics
import time

import seeding  # benchmarks/seeding.py, beside this script

DB_NAME = os.environ.get("BENCH_DB_NAME") or f"inferledger_fronts_bench_{os.getpid()}"
TARGET_MS = 300
WORKLOAD = "llama3.1-8b"


def _env() -> dict:
    return os.environ | {
        "DATABASE_URL": seeding.database_url(DB_NAME), "LOG_LEVEL": "WARNING", "DEBUG": "false",
        "SECRET_KEY": "bench-" + "x" * 60, "ALLOWED_HOSTS": "testserver",
    }  # fmt: skip


def realistic_payload(number: int, points_per_run: int) -> dict:
    """What a measured run's payload holds that a front could be tempted to read: every point with its rounds and
    LoadGen's settings (a real quick-suite payload is 5-20 KB)."""
    settings = {f"setting_{key}": key * 1.5 for key in range(60)}
    return {
        "run": number,
        "points": [
            {"index": index, "rounds": {"chosen_by": "throughput_per_s", "values": [100.0 + r for r in range(5)]},
             "loadgen_settings": settings, "latency_ms": [float(v) for v in range(40)]}
            for index in range(points_per_run)
        ],
    }  # fmt: skip


def timed_ms(function, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        function()
        times.append((time.perf_counter() - began) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--points-per-run", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--keep-db", action="store_true")
    args = parser.parse_args()
    seeding.create_database(DB_NAME, _env())
    try:
        seeding.setup_django(_env())
        seeding.seed_runs(
            args.runs, args.points_per_run, backends=["eager", "compile", "onnxruntime"],
            precisions=["fp32", "fp16", "int8"], scenarios=["offline", "server"], payload_for=realistic_payload,
        )  # fmt: skip
        from accounting.serving.points import fronts
        from results.models import BenchmarkRun, OperatingPoint

        llm_runs = BenchmarkRun.objects.filter(workload_name=WORKLOAD).count()
        groups = fronts(workload=WORKLOAD)  # warm: connections, registry, query plans
        floor_query = OperatingPoint.objects.filter(run__workload_name=WORKLOAD).values_list(
            "id", "run_id", "throughput_per_s", "output_tokens_per_s", "tpot_p99_ms", "ttft_p99_ms"
        )
        floor = timed_ms(lambda: list(floor_query.all()), args.repeats)  # .all(): a fresh read each time
        rebuild = timed_ms(lambda: fronts(workload=WORKLOAD), args.repeats)
    finally:
        if not args.keep_db:
            seeding.drop_database(DB_NAME)
    print(f"{args.runs} runs ({llm_runs} of {WORKLOAD}), {len(groups)} fronts")
    for name, times in (("floor", floor), ("fronts", rebuild)):
        print(f"{name:<7} median={statistics.median(times):7.1f} ms  min={min(times):7.1f}  max={max(times):7.1f} "
              f"(n={len(times)})")  # fmt: skip
    ratio = statistics.median(rebuild) / statistics.median(floor)
    verdict = "met" if statistics.median(rebuild) < TARGET_MS else "MISSED"
    print(f"fronts / floor = {ratio:.1f}x; target fronts < {TARGET_MS} ms: {verdict}")


if __name__ == "__main__":
    main()
