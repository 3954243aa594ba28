"""Suite API for callers (``manage.py bench``, the agent): plan items, run them, stream results.

items = plan_suite("quick")
for result in run_suite(items, "out/", progress=print):
    ...  # a validated inferledger.result/1 dict, a Skip (cannot run here, with the reason)
         # or a Failure (raised: the error and its traceback)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

from .backends import BACKENDS, PRECISIONS
from .names import SUITES, resolve_workloads
from .runner import (
    Failure,
    PreparedItem,
    ProgressFn,
    Skip,
    SuiteItem,
    finish_item,
    measure_in_rounds,
    prepare_item,
    run_item,
)
from .scenarios import SCENARIOS, preset
from .workloads import SIZES, WORKLOADS

logger = logging.getLogger(__name__)

# The quick suite (a few minutes on 2 cores, within 5) leaves these classes out unless they are named:
# DLRM's three scenarios would take it past its limit.
QUICK_SUITE_LEAVES_OUT = ("recommendation",)
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
    """The items of a suite, optionally narrowed; unsupported combinations stay in (they become Skips).

    ``workloads`` are model classes (run at each of ``sizes``, default ``tiny``) or registry workload
    ids (``resnet50``: the class at the size that is that workload).
    """
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
    backends = _check(backends, BACKENDS, "backends")
    precisions = _check(precisions, PRECISIONS, "precisions")
    sizes = _check(sizes, SIZES, "sizes") or ["tiny"]
    if not workloads:
        workloads = [w for w in WORKLOADS if not (suite == "quick" and w in QUICK_SUITE_LEAVES_OUT)]
    wanted = resolve_workloads(workloads, sizes)
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    settings = preset(suite)
    combos = _combos(suite, device)
    if backends or precisions:
        # A backend or precision named outright is measured even where the suite would not pair it with the
        # workload (the quick suite runs ONNX Runtime on tabular only): unsupported pairs become Skips.
        named = [(w, b, p) for w in WORKLOADS for b in backends or ["eager"] for p in precisions or ["fp32"]]
        combos += [combo for combo in named if combo not in combos]
    items = []
    for model_class, backend, precision in combos:
        if model_class not in wanted or (backends and backend not in backends):
            continue
        if precisions and precision not in precisions:
            continue
        for size in wanted[model_class]:
            for scenario in SCENARIOS:
                items.append(SuiteItem(model_class, size, scenario, backend, precision, device, settings))
    return items


def plan_user_workload(
    spec,
    suite: str = "quick",
    backends: Iterable[str] | None = None,
    precisions: Iterable[str] | None = None,
    scenarios: Iterable[str] | None = None,
    device: str | None = None,
    open_file: bool = True,
) -> list[SuiteItem]:
    """The items for a user's declared model file (``workloads.UserWorkloadSpec``): its native backend at
    fp32 unless ``backends``/``precisions`` say otherwise, in every scenario (or ``scenarios``). With
    ``open_file`` the file is opened and checked against its declaration here, so a bad one fails before
    anything runs (``bench``); a job's items each check it when they run instead."""
    from .workloads.file import FileWorkload

    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r}; known: {', '.join(SUITES)}")
    if open_file:
        FileWorkload(spec).build("cpu")
    backends = _check(backends, BACKENDS, "backends") or [spec.native_backend]
    precisions = _check(precisions, PRECISIONS, "precisions") or ["fp32"]
    scenarios = _check(scenarios, SCENARIOS, "scenarios") or list(SCENARIOS)
    if device is None:
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
    settings = preset(suite)
    return [
        SuiteItem("user", "file", scenario, backend, precision, device, settings, user_spec=spec)
        for backend in backends
        for precision in precisions
        for scenario in scenarios
    ]


def run_suite(
    items: list[SuiteItem], out_dir: str | Path, progress: ProgressFn | None = None
) -> Iterator[dict | Skip | Failure]:
    """Run items, yielding each one's payload, Skip or Failure in the order of ``items``; an item that
    raises becomes a Failure (its traceback logged and kept), never a crash of the suite.

    With ``settings.rounds`` = 1 each item is measured and yielded in turn. With more, every item is
    loaded first, then each round measures every point of every item (so the rounds of one point are a
    suite's length apart), and the results come at the end, each point the median of its rounds.
    """
    if all(item.settings.rounds == 1 for item in items):
        yield from _run_one_by_one(items, out_dir, progress)
        return
    total = len(items)
    outcomes: dict[int, PreparedItem | Skip | Failure] = {}
    for index, item in enumerate(items):
        if progress:
            progress(_event(index, total, item, "loading", index / total * LOADING_SHARE))
        outcomes[index] = _attempt(item, lambda item=item: prepare_item(item, out_dir))
    measuring = {index: p for index, p in outcomes.items() if isinstance(p, PreparedItem)}

    def record_failure(index: int, prepared: PreparedItem, exc: Exception) -> None:
        outcomes[index] = _failed(prepared.item, exc)

    measure_in_rounds(
        measuring, total, progress, lambda share: LOADING_SHARE + (1 - LOADING_SHARE) * share, record_failure
    )
    for index in range(total):
        outcome = outcomes[index]
        yield _attempt(outcome.item, lambda p=outcome: finish_item(p)) if index in measuring else outcome
    if progress:
        progress(_event(total, total, None, "done", 1.0))


# Share of the progress bar for loading the models before the rounds start.
LOADING_SHARE = 0.05


def _run_one_by_one(
    items: list[SuiteItem], out_dir: str | Path, progress: ProgressFn | None
) -> Iterator[dict | Skip | Failure]:
    total = len(items)
    for index, item in enumerate(items):
        yield _attempt(item, lambda item=item, index=index: run_item(item, out_dir, progress, index, total))
    if progress:
        progress(_event(total, total, None, "done", 1.0))


def _attempt(item: SuiteItem, step) -> dict | Skip | Failure | PreparedItem:
    try:
        return step()
    except Exception as exc:  # one broken combination must not stop the suite
        return _failed(item, exc)


def _failed(item: SuiteItem, exc: Exception) -> Failure:
    logger.error("%s failed", item.slug, exc_info=exc)
    return Failure.of(item, exc)


def _event(index: int, total: int, item: SuiteItem | None, point: str, fraction: float) -> dict:
    return {
        "item": index,
        "items": total,
        "workload": item.workload_id if item else None,
        "scenario": item.scenario if item else None,
        "point": point,
        "fraction": fraction,
    }


__all__ = ["SUITES", "Failure", "Skip", "SuiteItem", "plan_suite", "plan_user_workload", "run_item", "run_suite"]
