"""Accuracy guard: a non-reference run's outputs on fixed inputs against the fp32 eager reference."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from .backends import Backend
from .workloads import Workload

# Max abs error allowed, per precision, relative to the reference output's scale (max(1, max|ref|)).
RELATIVE_TOLERANCE = {"fp32": 1e-3, "bf16": 5e-2, "fp16": 1e-2, "int8": 1e-1, "fp8": 1e-1}
ACCURACY_SEED = 10_000


@dataclass
class AccuracyReport:
    reference_precision: str
    max_abs_error: float
    top1_agreement: float | None
    tolerance: float
    passed: bool

    def to_dict(self) -> dict:
        return asdict(self)


def top1(workload: Workload, output: torch.Tensor) -> torch.Tensor | None:
    """The decision a user would act on: argmax over classes, or the sign of a single logit."""
    if not workload.has_decision:
        return None
    return (output[:, 0] > 0) if output.shape[-1] == 1 else output.argmax(-1)


def check_accuracy(
    workload: Workload, reference: Backend, candidate: Backend, precision: str, batch_size: int
) -> AccuracyReport:
    inputs = workload.example_inputs(batch_size, seed=ACCURACY_SEED)
    with torch.no_grad():
        reference_inputs = tuple(t.to(reference.device) for t in inputs)
        expected = workload.guard_output(reference.forward, reference.module, reference_inputs).float().cpu()
        candidate_inputs = tuple(t.to(candidate.device) for t in inputs)
        actual = workload.guard_output(candidate.forward, candidate.module, candidate_inputs).float().cpu()
    max_abs_error = float((expected - actual).abs().max())
    tolerance = RELATIVE_TOLERANCE[precision] * max(1.0, float(expected.abs().max()))
    ref_top1, cand_top1 = top1(workload, expected), top1(workload, actual)
    agreement = None if ref_top1 is None else float((ref_top1 == cand_top1).float().mean())
    passed = bool(max_abs_error <= tolerance)
    return AccuracyReport("fp32", max_abs_error, agreement, tolerance, passed)
