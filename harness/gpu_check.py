"""``make gpu-check``: the reference workloads on this host's GPU, one table of what ran, what was skipped
and why, and what failed. Django-free (``python -m harness.gpu_check``); run after the ``gpu`` tests.

Each reference workload (ResNet-50, BERT-large, Llama-3.1-8B, DLRM-v2, ...) at its published size, Offline
at batch 1 and the largest of the quick suite's sweep, on every backend and precision the quick suite runs on
CUDA: the point's median throughput with its interval, p99, and whether the point is valid (and why not).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace

from .runner import Failure, Skip
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
                figure = (
                    f"{point['throughput_per_s']:.1f} [{interval.get('low', 0):.1f}, {interval.get('high', 0):.1f}]"
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.gpu_check", description=__doc__)
    parser.add_argument("--workload", action="append", help="Model classes (default: every reference workload).")
    parser.add_argument("--backend", action="append", help="Backends (default: those the quick suite runs).")
    parser.add_argument("--precision", action="append", help="Precisions (default: those the quick suite runs).")
    parser.add_argument(
        "--batch-sizes", type=_batch_sizes, help="Offline batch sizes, e.g. 1,32 (default: the quick suite's)."
    )
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}): nothing to check", file=sys.stderr)
        return 2
    items = plan_suite(
        "quick",
        workloads=args.workload,
        backends=args.backend,
        precisions=args.precision,
        sizes=["reference"],
        device="cuda",
    )
    items = [item for item in items if item.scenario == "offline"]
    if args.batch_sizes:
        items = [replace(item, settings=item.settings.with_(offline_batch_sizes=args.batch_sizes)) for item in items]
    with tempfile.TemporaryDirectory(prefix="inferledger-gpu-check-") as out:
        results = list(run_suite(items, out, progress=None))
    header = ("workload", "backend/precision", "scenario", "point", "per s [interval]", "p99 ms", "verdict")
    rows = [header, *table_rows(items, results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
    return 1 if any(isinstance(result, Failure) for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
