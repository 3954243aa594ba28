"""Suite API for callers (``manage.py bench``, the agent): plan items, run them, stream results.

items = plan_suite("quick")
for result in run_suite(items, "out/", progress=print):
    ...  # a validated inferledger.result/1 dict, or a Skip(workload, scenario, backend, precision, reason)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from .backends import BACKENDS, PRECISIONS
from .runner import ProgressFn, Skip, SuiteItem, run_item
from .scenarios import SCENARIOS, preset
from .workloads import SIZES, WORKLOADS

SUITES = ("quick", "standard", "publishable")
# (model classes, backend, precision) run on top of eager fp32 everywhere; cheap ones only in quick.
QUICK_EXTRAS = [
    (("tabular", "encoder"), "eager", "int8"),
    (("tabular", "encoder"), "eager", "bf16"),
    (("tabular",), "onnxruntime", "fp32"),
]
STANDARD_BACKENDS = ("eager", "compile", "onnxruntime", "cudagraphs", "tensorrt")


def _check(names: Iterable[str] | None, known: Iterable[str], kind: str) -> list[str] | None:
    if names is None:
        return None
    names, known = list(names), list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown {kind} {unknown}; known: {', '.join(known)}")
    return names


def _combos(suite: str, device: str) -> list[tuple[str, str, str]]:
    """(model_class, backend, precision) in run order for a suite, before filtering."""
    combos = [(w, "eager", "fp32") for w in WORKLOADS]
    if suite == "quick":
        return combos + [(w, b, p) for classes, b, p in QUICK_EXTRAS for w in classes]
    for w in WORKLOADS:
        for backend in STANDARD_BACKENDS:
            for precision in PRECISIONS:
                if (w, backend, precision) not in combos:
                    combos.append((w, backend, precision))
    return combos


def plan_suite(
    suite: str = "quick",
    workloads: Iterable[str] | None = None,
    backends: Iterable[str] | None = None,
    precisions: Iterable[str] | None = None,
    sizes: Iterable[str] | None = None,
    device: str | None = None,
) -> list[SuiteItem]:
    """The items of a suite, optionally narrowed; unsupported combinations stay in (they become Skips)."""
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
    workloads = _check(workloads, WORKLOADS, "workloads")
    backends = _check(backends, BACKENDS, "backends")
    precisions = _check(precisions, PRECISIONS, "precisions")
    sizes = _check(sizes, SIZES, "sizes") or (["tiny"] if suite == "quick" else ["tiny"])
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    settings = preset(suite)
    items = []
    for model_class, backend, precision in _combos(suite, device):
        if (workloads and model_class not in workloads) or (backends and backend not in backends):
            continue
        if precisions and precision not in precisions:
            continue
        for size in sizes:
            for scenario in SCENARIOS:
                items.append(SuiteItem(model_class, size, scenario, backend, precision, device, settings))
    return items


def run_suite(items: list[SuiteItem], out_dir: str | Path, progress: ProgressFn | None = None) -> Iterator[dict | Skip]:
    """Run items in order, yielding each payload or Skip; an item that fails becomes a Skip, never a crash."""
    total = len(items)
    for index, item in enumerate(items):
        try:
            yield run_item(item, out_dir, progress, index, total)
        except Exception as exc:  # one broken combination must not stop the suite
            yield Skip(
                f"{item.model_class}-{item.size}",
                item.scenario,
                item.backend,
                item.precision,
                f"failed: {type(exc).__name__}: {exc}",
            )
    if progress:
        progress(
            {
                "item": total,
                "items": total,
                "workload": None,
                "scenario": None,
                "point": "done",
                "fraction": 1.0,
            }
        )


__all__ = ["SUITES", "Skip", "SuiteItem", "plan_suite", "run_item", "run_suite"]
