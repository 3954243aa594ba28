"""One cost question: what every answer about cost is asked, parsed and validated once.

"What does a unit of work of this workload cost, under this SLA, on this cost basis, at this utilization, as
of then, counting which published results, with these token lengths, on runs of this precision and backend?"
The rankings, the LLM serving ranking and the dashboard pages all ask it; each builds it once with
``CostQuestion.ask`` (the API through ``accounting.api.question.CostQuestionSerializer``), so each rule of
validation lives here once: the workload (``policy.resolve_workload``), the SLA (``policy.requested_sla``),
the utilization (in (0, 1], default ``INFERLEDGER_UTILIZATION``), the token lengths, the published rule.
A refusal is a ``policy.ParameterError`` naming the parameter (the API answers 400 under that name).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from accounting import policy
from accounting.pricing import costing
from accounting.pricing.utilization import default_utilization
from accounting.sla import Sla
from workloads import Workload


@dataclass(frozen=True)
class CostQuestion:
    workload: Workload
    sla: Sla
    price_kind: str
    utilization: Decimal
    as_of: datetime | None = None
    published: policy.Published = policy.DEFAULT_PUBLISHED
    region: str | None = None
    provider: str | None = None
    precision: str | None = None
    backend: str | None = None
    input_tokens_per_request: Decimal | None = None
    output_tokens_per_request: Decimal | None = None
    # LLM serving: read each front at this speed (tokens/s per user); None: at the SLA's speed, if any.
    interactivity_tps_per_user: Decimal | None = None

    @classmethod
    def ask(
        cls,
        *,
        price_kind: str,
        workload: str | Workload | None = None,
        model_class: str | None = None,
        sla_p99_ms=None,
        ttft_p99_ms=None,
        tpot_p99_ms=None,
        utilization=None,
        as_of: datetime | None = None,
        published: policy.Published = policy.DEFAULT_PUBLISHED,
        region: str | None = None,
        provider: str | None = None,
        precision: str | None = None,
        backend: str | None = None,
        input_tokens_per_request=None,
        output_tokens_per_request=None,
        interactivity_tps_per_user=None,
        reference_sla_by_default: bool = False,
    ) -> CostQuestion:
        """The question, validated: raises ParameterError naming the first parameter it cannot answer.

        With no bound given, no SLA applies; or, with ``reference_sla_by_default``, the workload's reference SLA
        (policy.reference_sla: what the comparisons assume unasked)."""
        if isinstance(workload, Workload):  # already resolved (a comparison's: the workload its runs measured)
            chosen = workload
        else:
            chosen = policy.resolve_workload(workload=workload, model_class=model_class)
        bounds = {"sla_p99_ms": sla_p99_ms, "ttft_p99_ms": ttft_p99_ms, "tpot_p99_ms": tpot_p99_ms}
        if reference_sla_by_default and all(value is None for value in bounds.values()):
            sla = policy.reference_sla(chosen)
        else:
            sla = policy.requested_sla(chosen, **bounds)
        return cls(
            workload=chosen,
            sla=sla,
            price_kind=price_kind,
            utilization=_utilization(utilization),
            as_of=as_of,
            published=policy.Published(published),
            region=region or None,
            provider=provider or None,
            precision=precision or None,
            backend=backend or None,
            input_tokens_per_request=_positive_or_none(input_tokens_per_request, "input_tokens_per_request"),
            output_tokens_per_request=_positive_or_none(output_tokens_per_request, "output_tokens_per_request"),
            interactivity_tps_per_user=_positive_or_none(interactivity_tps_per_user, "interactivity_tps_per_user"),
        )

    def priced_as(self, price_kind: str) -> CostQuestion:
        """The same question on another cost basis (a plan asks it on each basis it may buy on)."""
        return replace(self, price_kind=price_kind)

    def serving_target_tps_per_user(self) -> float:
        """The speed an LLM serving answer reads its fronts at (policy.serving_target_tps_per_user)."""
        return policy.serving_target_tps_per_user(self.sla, self.interactivity_tps_per_user)

    def cache_key(self) -> dict:
        """Everything that changes the answer, as plain values (the rankings cache keys on it).

        Numbers in canonical form, so one question asked two ways (the API's sla_p99_ms=10.000, the dashboard's
        10) has one key: the API and the dashboard read the same cached answer."""
        return {
            "workload": self.workload.id, "sla": {name: _text(bound) for name, bound in self.sla.bounds.items()},
            "price_kind": self.price_kind, "utilization": _text(self.utilization),
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "published": self.published.value, "region": self.region, "provider": self.provider,
            "precision": self.precision, "backend": self.backend,
            "input_tokens_per_request": _text(self.input_tokens_per_request),
            "output_tokens_per_request": _text(self.output_tokens_per_request),
            "interactivity_tps_per_user": _text(self.interactivity_tps_per_user),
        }  # fmt: skip


def _utilization(value) -> Decimal:
    share = default_utilization() if value is None else costing.to_decimal(value, "utilization")
    if not 0 < share <= 1:
        raise policy.ParameterError("utilization", f"utilization must be in (0, 1], got {value}")
    return share


def _positive_or_none(value, name: str) -> Decimal | None:
    if value is None:
        return None
    number = costing.to_decimal(value, name)
    if number <= 0:
        raise policy.ParameterError(name, f"{name} must be greater than zero, got {value}")
    return number


def _text(value: Decimal | None) -> str | None:
    """A number's canonical text: 10, 10.0 and 10.000 are one value, so one text ("10")."""
    return None if value is None else f"{value.normalize():f}"
