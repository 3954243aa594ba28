"""Runs one suite item end to end: build, load, accuracy guard, scenario points, payload."""

from __future__ import annotations

import copy
import json
import re
import time
import traceback
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import torch

import workloads as registry

from . import SCHEMA_ID
from .accuracy import check_accuracy
from .backends import Backend, check_support, get_backend_class
from .backends.base import OutsideProfile
from .backends.eager import EagerBackend
from .operator_profile import profile_one_batch, profiled_batch_size
from .result import dumps_result
from .rounds import point_from_rounds
from .scenarios import Engine, PointResult, RunSettings, Scenario, get_scenario
from .stats import relative_spread
from .telemetry import TelemetrySession, capture_environment, device_info
from .workloads import Workload, get_workload
from .workloads.file import FileWorkload, file_backend, file_support
from .workloads.memory import memory_shortfall

ProgressFn = Callable[[dict], None]


@dataclass(frozen=True)
class Skip:
    """A combination that was not measured because it cannot run here, and why."""

    workload: str
    scenario: str
    backend: str
    precision: str
    reason: str


@dataclass(frozen=True)
class Failure:
    """A combination that can run here but raised (in loading, measuring or reporting): an error, not a skip."""

    workload: str
    scenario: str
    backend: str
    precision: str
    error: str
    traceback: str

    @classmethod
    def of(cls, item: SuiteItem, exc: BaseException) -> Failure:
        return cls(
            item.workload_id, item.scenario, item.backend, item.precision,
            f"{type(exc).__name__}: {exc}", "".join(traceback.format_exception(exc)),
        )  # fmt: skip


@dataclass(frozen=True)
class SuiteItem:
    model_class: str
    size: str
    scenario: str
    backend: str
    precision: str
    device: str = "cpu"
    settings: RunSettings = field(default_factory=RunSettings)
    # A user's declared model file (model_class "user", size "file"); None for the harness's own workloads.
    user_spec: registry.UserWorkloadSpec | None = None

    @property
    def workload_id(self) -> str:
        """The registry id of the workload this item runs (e.g. ``resnet50``, ``tabular-tiny``, ``user:x``)."""
        if self.user_spec is not None:
            return self.user_spec.id
        return registry.for_harness(self.model_class, self.size).id

    @property
    def slug(self) -> str:
        return f"{self.workload_id}_{self.scenario}_{self.backend}_{self.precision}_{self.device}"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _workload_of(item: SuiteItem) -> Workload:
    if item.user_spec is not None:
        return FileWorkload(item.user_spec)
    return get_workload(item.model_class, item.size)


def skip_reason(item: SuiteItem) -> str | None:
    if item.user_spec is not None:
        ok, reason = file_support(item.user_spec, item.backend, item.precision, item.device)
        return None if ok else reason
    ok, reason = check_support(item.backend, item.precision, item.device, item.model_class)
    if not ok:
        return reason
    with_reference = (item.backend, item.precision) != ("eager", "fp32")
    return memory_shortfall(get_workload(item.model_class, item.size), item.device, with_reference_copy=with_reference)


@contextmanager
def _intra_op_threads(settings: RunSettings):
    previous = torch.get_num_threads()
    torch.set_num_threads(settings.resolved_threads())
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def batch_sizes_of(item: SuiteItem) -> tuple[int, ...]:
    """The batch sizes the item's scenario will run."""
    settings = item.settings
    return {"offline": settings.offline_batch_sizes, "server": (settings.server_max_batch_size,)}.get(
        item.scenario, (1,)
    )


def _refuse_batches_outside(backend: Backend, item: SuiteItem) -> None:
    """An item whose batches the loaded backend does not cover fails before measuring, naming them."""
    outside = [size for size in batch_sizes_of(item) if backend.max_batch is not None and size > backend.max_batch]
    if outside:
        backend.close()
        raise OutsideProfile(f"batch sizes {outside} are outside the {backend.name} engine's optimisation profile "
                             f"(batches 1 to {backend.max_batch})")  # fmt: skip


@dataclass
class PreparedItem:
    """An item whose backend is loaded and checked, ready to measure its points round after round."""

    item: SuiteItem
    out_dir: Path
    workload: Workload
    backend: Backend
    engine: Engine
    telemetry: TelemetrySession
    started_at: str
    parameters: int
    weight_bytes: int
    flops_per_inference: int
    accuracy: dict | None
    labels: list[str]
    log_root: Path
    measured: dict[int, list[PointResult]] = field(default_factory=dict)
    # The item's scenario, holding its calibrations from round to round.
    scenario: Scenario | None = None

    def __post_init__(self):
        if self.scenario is None:
            self.scenario = get_scenario(self.item.scenario, self.item.settings)


# FLOPs of one inference by (workload class, its configuration): counting Llama-3.1-8B's generation on the
# meta device takes ~40 s, and a suite prepares the same workload once per backend and precision.
_FLOPS_COUNTED: dict[tuple[type, str], int] = {}


def _counted_flops(workload) -> int:
    key = (type(workload), json.dumps(workload.config, sort_keys=True, default=str))
    if key not in _FLOPS_COUNTED:
        _FLOPS_COUNTED[key] = workload.flops_per_inference(device="meta")
    return _FLOPS_COUNTED[key]


def _model_to_measure(workload, item: SuiteItem, reference_model, needs_reference: bool):
    """The model the item's backend loads, built once: the reference itself when the item is the reference
    (eager fp32), else a copy of it, which has the same seeded weights. Building anew cost as much again: for
    Llama-3.1-8B, random-initialising 8B parameters on the CPU a second time (about a minute on a GPU host).
    A user's model file is opened again (its ONNX session is not copied)."""
    if item.user_spec is not None:
        return workload.build("cpu")
    return copy.deepcopy(reference_model) if needs_reference else reference_model


def prepare_item(item: SuiteItem, out_dir: str | Path) -> PreparedItem | Skip:
    """Build and load the model, run the accuracy guard; a Skip when the combination is unsupported."""
    reason = skip_reason(item)
    if reason is not None:
        return Skip(item.workload_id, item.scenario, item.backend, item.precision, reason)
    workload = _workload_of(item)
    settings, started_at = item.settings, _now()
    scenario = get_scenario(item.scenario, settings)
    reference_backend = getattr(workload, "native_backend", "eager")
    with _intra_op_threads(settings):
        reference_model = workload.build("cpu")
        # Counted before the fp32 reference is loaded onto the item's device (load moves the model in place),
        # and for the harness's own workloads on the meta device: counting on the CPU ran a whole inference
        # there (for Llama-3.1-8B a 2,048-token prefill and 128 decode steps of an 8B model).
        parameters, weight_bytes = workload.parameter_count(reference_model), workload.weight_bytes(reference_model)
        if item.user_spec is None:
            flops_per_inference = _counted_flops(workload)
        else:
            flops_per_inference = workload.flops_per_inference(reference_model, "cpu")
        if item.user_spec is not None:
            backend = file_backend(item.user_spec, item.backend, item.precision, item.device)
        else:
            backend = get_backend_class(item.backend)(item.precision, item.device)
        needs_reference = (item.backend, item.precision) != (reference_backend, "fp32")
        backend.load(_model_to_measure(workload, item, reference_model, needs_reference), workload.example_inputs(2))
        _refuse_batches_outside(backend, item)
        accuracy = None
        if needs_reference:
            # The fp32 reference: eager for torch models; for an ONNX file its CPU run on ONNX Runtime.
            reference = EagerBackend("fp32", "cpu" if item.user_spec is not None else item.device)
            reference.load(reference_model, workload.example_inputs(2))
            accuracy = check_accuracy(
                workload, reference, backend, item.precision, settings.accuracy_batch_size
            ).to_dict()
        return PreparedItem(
            item=item,
            out_dir=Path(out_dir),
            workload=workload,
            backend=backend,
            engine=Engine(workload, backend, settings.performance_sample_count, settings.seed),
            telemetry=TelemetrySession(item.device),
            started_at=started_at,
            parameters=parameters,
            weight_bytes=weight_bytes,
            flops_per_inference=flops_per_inference,
            accuracy=accuracy,
            labels=scenario.labels(),
            log_root=Path(out_dir) / "loadgen" / item.slug,
            scenario=scenario,
        )


def measure_round(
    prepared: PreparedItem,
    round_index: int,
    progress: ProgressFn | None = None,
    points: list[int] | None = None,
    **where,
) -> None:
    """Measure the item's points (all, or the indices ``points``) once more, as round ``round_index``.

    The scenario calibrates each point in its first round (the Offline query size, the Server capacity and
    so the offered rate) and reuses that, so that every round measures the same thing.
    """
    item, settings, engine, telemetry = prepared.item, prepared.item.settings, prepared.engine, prepared.telemetry
    rounds = settings.rounds
    with _intra_op_threads(settings):
        for n, label in enumerate(prepared.labels):
            if points is not None and n not in points:
                continue
            if progress:
                if rounds == 1 and round_index == 0:
                    shown = label
                elif round_index < rounds:
                    shown = f"{label} (round {round_index + 1}/{rounds})"
                else:
                    shown = f"{label} (extra round {round_index + 1 - rounds}: earlier rounds disagree)"
                progress(where | {"workload": prepared.workload.name, "scenario": item.scenario,
                                  "backend": item.backend, "precision": item.precision, "point": shown,
                                  "round": round_index + 1, "rounds": rounds,
                                  "point_index": n, "points": len(prepared.labels)})  # fmt: skip
            log_dir = prepared.log_root / re.sub(r"[^a-z0-9.]+", "-", label)
            if rounds > 1 or round_index > 0:
                log_dir = log_dir / f"round-{round_index + 1}"
            prepared.scenario.calibrate(engine, n, log_dir, prepared.log_root, telemetry)
            point = prepared.scenario.measure(engine, n, log_dir, telemetry)
            prepared.measured.setdefault(n, []).append(point)


def unsettled_points(prepared: PreparedItem) -> list[int]:
    """Points whose rounds so far disagree by more than ``settings.rounds_agreement`` (their spread, (max - min)
    / median) and that may still have an extra round (``settings.extra_rounds``)."""
    settings, unsettled = prepared.item.settings, []
    for n, runs in prepared.measured.items():
        if len(runs) >= settings.rounds + settings.extra_rounds:
            continue
        values = [prepared.scenario.figure_of_merit(run) for run in runs]
        if relative_spread(values) > settings.rounds_agreement:
            unsettled.append(n)
    return unsettled


def finish_item(prepared: PreparedItem) -> dict:
    """Each point from its rounds (median, interval, validity), build and validate the payload, write it, release
    the backend."""
    item, workload = prepared.item, prepared.workload
    points = [point_from_rounds(prepared.scenario, prepared.measured[n], item.settings)
              for n in range(len(prepared.labels))]  # fmt: skip
    # One batch under torch.profiler, after every measured round: its overhead never reaches a timed window.
    with _intra_op_threads(item.settings):
        profile = profile_one_batch(prepared.engine, profiled_batch_size(points))
    prepared.backend.close()
    payload = {
        "schema": SCHEMA_ID,
        "run_id": str(uuid.uuid4()),
        "started_at": prepared.started_at,
        "finished_at": _now(),
        "workload": {
            "id": workload.name,
            "name": workload.name,
            "model_class": workload.model_class,
            "size": item.size,
            "parameters": prepared.parameters,
            "flops_per_inference": prepared.flops_per_inference,
            "weight_bytes": prepared.weight_bytes,
            "config": workload.config,
        },
        "scenario": item.scenario,
        "backend": item.backend,
        "precision": item.precision,
        "device": device_info(item.device),
        "environment": capture_environment() | {"torch_threads": item.settings.resolved_threads()},
        "settings": item.settings.to_dict(),
        "accuracy": prepared.accuracy,
        "telemetry": prepared.telemetry.summary(),
        "points": points,
        "profile": profile,
    }
    text = dumps_result(payload)
    prepared.out_dir.mkdir(parents=True, exist_ok=True)
    (prepared.out_dir / f"{item.slug}.json").write_text(text)
    return payload


def release(prepared: PreparedItem) -> None:
    """Free the backend of an item that will not be finished (it failed in a later round)."""
    try:
        prepared.backend.close()
    except Exception:  # noqa: BLE001 - releasing after a failure must not mask the failure
        pass


# Where the progress bar stands during extra rounds, whose number is not known ahead.
EXTRA_ROUNDS_SHARE = 0.975


def measure_in_rounds(
    measuring: dict[int, PreparedItem],
    total: int,
    progress: ProgressFn | None,
    fraction: Callable[[float], float],
    on_error: Callable[[int, PreparedItem, Exception], None],
) -> None:
    """Measure prepared items (keyed by their index in the suite) round by round: each round measures
    every point of every item, so the rounds of one point are a suite apart; then extra rounds for the
    points whose rounds disagree, until none do or the smallest ``extra_rounds_budget_s`` is spent.

    ``fraction`` maps the share of the work done (0-1) to the progress bar; an item that raises is
    released, dropped from ``measuring`` and handed to ``on_error``.
    """
    measurements = sum(len(p.labels) * p.item.settings.rounds for p in measuring.values()) or 1
    # The share shown so far: extra rounds start from where the rounds left the bar (past EXTRA_ROUNDS_SHARE
    # when there were many points), so the bar never goes back.
    reached = [0.0]

    def measure(index: int, prepared: PreparedItem, round_index: int, points, share) -> None:
        def on_point(event):
            reached[0] = max(reached[0], share(event))
            progress(event | {"fraction": fraction(reached[0])})

        try:
            measure_round(prepared, round_index, on_point if progress else None, points, item=index, items=total)
        except Exception as exc:
            release(prepared)
            del measuring[index]
            on_error(index, prepared, exc)

    done, base_rounds = 0, max((p.item.settings.rounds for p in measuring.values()), default=0)
    for round_index in range(base_rounds):
        for index, prepared in list(measuring.items()):
            if round_index < prepared.item.settings.rounds:
                measure(
                    index, prepared, round_index, None, lambda e, done=done: (done + e["point_index"]) / measurements
                )
                done += len(prepared.labels)
    extra_began, round_index = time.monotonic(), base_rounds
    budget_s = min((p.item.settings.extra_rounds_budget_s for p in measuring.values()), default=0.0)
    while unsettled := {index: points for index, p in measuring.items() if (points := unsettled_points(p))}:
        for index, points in unsettled.items():
            if time.monotonic() - extra_began > budget_s:
                return
            measure(index, measuring[index], round_index, points, lambda _event: EXTRA_ROUNDS_SHARE)
        round_index += 1


def run_item(
    item: SuiteItem, out_dir: str | Path, progress: ProgressFn | None = None, index: int = 0, total: int = 1
) -> dict | Skip:
    """Measure one item (all its rounds); returns its validated payload (also written to
    ``out_dir/<slug>.json``) or a Skip."""
    prepared = prepare_item(item, out_dir)
    if isinstance(prepared, Skip):
        return prepared

    def reraise(_index, _prepared, exc):
        raise exc

    try:
        measure_in_rounds({index: prepared}, total, progress, lambda share: (index + share) / total, reraise)
        return finish_item(prepared)
    except BaseException:
        release(prepared)
        raise
