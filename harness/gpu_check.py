"""``make gpu-check``: the reference workloads on this host's GPU, one table of what ran, what was skipped
and why, and what failed. Django-free (``python -m harness.gpu_check``); run after the ``gpu`` tests.

Each reference workload (ResNet-50, BERT-large, Llama-3.1-8B, DLRM-v2, ...) at its published size, Offline
at batch 1 and the largest of the quick suite's sweep, on every backend and precision the quick suite runs on
CUDA: the point's median throughput with its interval, p99, and whether the point is valid (and why not).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from .runner import Failure, Skip
from .scenarios.settings import PRESETS
from .suite import plan_suite, run_suite


def table_rows(items, results) -> list[tuple[str, ...]]:
    rows = []
    for item, result in zip(items, results, strict=True):
        where = (item.workload_id, f"{item.backend}/{item.precision}", item.scenario)
        if isinstance(result, Skip):
            rows.append((*where, "-", "skipped", "", result.reason))
        elif isinstance(result, Failure):
            rows.append((*where, "-", "FAILED", "", result.error.splitlines()[0][:160]))
        else:
            for point in result["points"]:
                interval = point.get("throughput_interval_per_s") or {}
                validity = point.get("validity") or {"valid": True, "reasons": []}
                unit = point.get("throughput_unit") or "samples"
                figure = (
                    f"{point['throughput_per_s']:.1f} [{interval.get('low', 0):.1f}, {interval.get('high', 0):.1f}]"
                    + ("" if unit == "samples" else f" {unit.replace('_', ' ')}")
                )
                rows.append((*where, f"b={point['batch_size']}", figure, f"{point['latency_ms']['p99']:.3f}",
                             "valid" if validity["valid"] else "; ".join(validity["reasons"])))  # fmt: skip
    return rows


def _batch_sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"batch sizes are whole numbers separated by commas, not {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"batch sizes must be at least 1, not {text!r}")
    return sizes


def profile_line(result) -> str | None:
    """Where one batch's time went, from the payload's ``profile`` block: its top operators by self time (device
    time on CUDA), or why it was not profiled; None for a skip or failure."""
    if not isinstance(result, dict) or not result.get("profile"):
        return None
    block = result["profile"]
    if "not_profiled" in block:
        return f"  profile: not profiled: {block['not_profiled']}"
    kind = "device" if block["time_kind"] == "self_device" else "CPU"
    top = ", ".join(f"{op['name']} {op['share']:.0%}" for op in block["operators"][:3])
    return f"  profile (b={block['batch_size']}, {kind} self time {block['total_self_ms']:.2f} ms): {top}"


NOT_RUN = "not run: the check's time budget ({budget:.0f} s) ran out before it started"
HEADER = ("workload", "backend/precision", "scenario", "point", "per s [interval]", "p99 ms", "verdict")
WIDTHS = (16, 18, 9, 6, 30, 10)


def check_items(items, out_dir, budget_s: float | None = None, run_one=None, clock=time.monotonic):
    """Each item measured on its own (its rounds back to back, one model on the device at a time), yielding
    ``(item, result, seconds)`` as each finishes, so a check cut short still shows what it measured. Items not
    started within ``budget_s`` are yielded with the reason instead of a result: listed, never dropped."""
    run_one = run_one or (lambda item: next(iter(run_suite([item], out_dir, progress=None))))
    started = clock()
    for item in items:
        if budget_s is not None and clock() - started >= budget_s:
            yield item, Skip(item.workload_id, item.scenario, item.backend, item.precision,
                             NOT_RUN.format(budget=budget_s)), 0.0  # fmt: skip
            continue
        began = clock()
        result = run_one(item)
        yield item, result, clock() - began
        _free_device_memory()


def _free_device_memory() -> None:
    import gc

    import torch

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _keep(result: dict, item, results_dir: str) -> None:
    folder = Path(results_dir)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{item.workload_id}_{item.backend}_{item.precision}_{item.scenario}.json"
    (folder / name).write_text(json.dumps(result, indent=1, default=str))


def _line(row: tuple[str, ...]) -> str:
    return "  ".join(cell.ljust(width) for cell, width in zip(row, WIDTHS, strict=False)) + "  " + row[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.gpu_check", description=__doc__)
    parser.add_argument("--workload", action="append", help="Model classes (default: every reference workload).")
    parser.add_argument("--backend", action="append", help="Backends (default: those the quick suite runs).")
    parser.add_argument("--precision", action="append", help="Precisions (default: those the quick suite runs).")
    parser.add_argument(
        "--batch-sizes", type=_batch_sizes, help="Offline batch sizes, e.g. 1,32 (default: the quick suite's)."
    )
    parser.add_argument(
        "--budget-s", type=float, help="Start no item after this many seconds; the rest are listed as not run."
    )
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="quick",
        help="Run settings (default quick: rounds of 1 s, too short for small models on a fast GPU).",
    )
    parser.add_argument(
        "--round-s", type=float, help="Each round's minimum duration in seconds (default: the preset's)."
    )
    parser.add_argument("--rounds", type=int, help="Rounds per point (default: the preset's).")
    parser.add_argument(
        "--results-dir", help="Keep each measured item's result payload (JSON) here, to import or cite its figures."
    )
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}): nothing to check", file=sys.stderr)
        return 2
    items = plan_suite(
        args.preset,
        workloads=args.workload,
        backends=args.backend,
        precisions=args.precision,
        sizes=["reference"],
        device="cuda",
    )
    items = [item for item in items if item.scenario == "offline"]
    changes = {
        "offline_batch_sizes": args.batch_sizes,
        "min_duration_ms": None if args.round_s is None else round(args.round_s * 1000),
        "rounds": args.rounds,
    }
    changes = {name: value for name, value in changes.items() if value is not None}
    if changes:
        items = [replace(item, settings=item.settings.with_(**changes)) for item in items]
    settings = items[0].settings if items else None
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}: {len(items)} items", flush=True)
    if settings is not None:
        print(
            f"settings: preset {args.preset}, rounds of >= {settings.min_duration_ms / 1000:g} s, {settings.rounds} "
            f"round(s) (+ up to {settings.extra_rounds} if they disagree by over {settings.rounds_agreement:.0%}), "
            f"batch sizes {list(settings.offline_batch_sizes)}",
            flush=True,
        )
    print(_line(HEADER), flush=True)
    failed = False
    with tempfile.TemporaryDirectory(prefix="inferledger-gpu-check-") as out:
        for item, result, seconds in check_items(items, out, args.budget_s):
            failed = failed or isinstance(result, Failure)
            for row in table_rows([item], [result]):
                print(_line(row), flush=True)
            if (line := profile_line(result)) is not None:
                print(line, flush=True)
            if seconds:
                print(f"  ({item.workload_id} {item.backend}/{item.precision}: {seconds:.1f} s)", flush=True)
            if args.results_dir and isinstance(result, dict):
                _keep(result, item, args.results_dir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
