"""Command line: ``python -m harness run|list`` (see ``--help``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .backends import BACKENDS, PRECISIONS
from .runner import Failure, Skip, SuiteItem, run_item
from .scenarios import SCENARIOS, preset
from .suite import SUITES, plan_suite, run_suite
from .workloads import SIZES, WORKLOADS


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list workloads, scenarios, backends (with support here) and precisions")
    run = sub.add_parser("run", help="run one combination (--out file.json) or a suite (--suite, --out dir)")
    run.add_argument("--suite", choices=SUITES)
    run.add_argument("--workload", choices=list(WORKLOADS))
    run.add_argument("--scenario", choices=list(SCENARIOS))
    run.add_argument("--backend", choices=list(BACKENDS), default="eager")
    run.add_argument("--precision", choices=PRECISIONS, default="fp32")
    run.add_argument("--size", choices=SIZES, default="tiny")
    run.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    run.add_argument("--preset", choices=SUITES, default="quick", help="settings preset for a single run")
    run.add_argument("--out", required=True, help="result JSON file (single run) or directory (suite)")
    return parser


def _progress(event: dict) -> None:
    print(
        f"[{event['fraction']:5.1%}] {event.get('workload')} {event.get('scenario')} {event['point']}",
        file=sys.stderr,
    )


def _list() -> int:
    from .backends import get_backend_class

    print("workloads:", ", ".join(WORKLOADS), "| sizes:", ", ".join(SIZES))
    print("scenarios:", ", ".join(SCENARIOS))
    print("precisions:", ", ".join(PRECISIONS))
    for name in BACKENDS:
        ok, reason = get_backend_class(name).supports("fp32", "cpu")
        ok_gpu, reason_gpu = get_backend_class(name).supports("fp32", "cuda")
        print(
            f"backend {name:12s} cpu: {'yes' if ok else 'no (' + reason + ')'}; "
            f"cuda: {'yes' if ok_gpu else 'no (' + reason_gpu + ')'}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        return _list()
    started = time.perf_counter()
    if args.suite:
        skips = failures = 0
        for result in run_suite(plan_suite(args.suite), Path(args.out), progress=_progress):
            if isinstance(result, Skip):
                skips += 1
                print(f"skip {result.workload} {result.scenario} {result.backend} {result.precision}: {result.reason}")
            elif isinstance(result, Failure):
                failures += 1
                print(f"FAILED {result.workload} {result.scenario} {result.backend} {result.precision}:\n"
                      f"{result.traceback}", file=sys.stderr)  # fmt: skip
        elapsed_s = time.perf_counter() - started
        print(f"suite {args.suite} done in {elapsed_s:.1f} s ({skips} skipped, {failures} failed)")
        return 1 if failures else 0
    if not (args.workload and args.scenario):
        _parser().error("run needs --workload and --scenario (or --suite)")
    out = Path(args.out)
    item = SuiteItem(
        args.workload,
        args.size,
        args.scenario,
        args.backend,
        args.precision,
        args.device,
        preset(args.preset),
    )
    result = run_item(item, out.parent / (out.stem + "_logs"), _progress)
    if isinstance(result, Skip):
        print(f"skipped: {result.reason}", file=sys.stderr)
        return 2
    out.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n")
    print(f"wrote {out} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
