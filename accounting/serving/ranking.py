"""The LLM ranking at a target interactivity (or at a TTFT/TPOT SLA): cost per 1M input, output and
total tokens per front, on the asked cost basis and on every other basis the catalog has."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from accounting.pricing import costing
from accounting.pricing.offerings import hourly_offer, no_price_reason
from accounting.question import CostQuestion
from accounting.serving.at_sla import read_at_sla
from accounting.serving.economics import (
    Energy,
    TokenCosts,
    energy_at,
    tie_groups,
    token_costs,
)
from accounting.serving.front import INTERPOLATION_METHOD, INTERVAL_METHOD, FrontReading, Refused, read_at_interactivity
from accounting.serving.points import FrontGroup, fronts, llm_workload
from accounting.tokens import input_tokens_per_output_token
from hardware_catalog.models import OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force
from workloads import registry


@dataclass(frozen=True)
class BasisCost:
    price_kind: str
    price: Price
    assumptions: OnPremAssumptions | None
    hourly: costing.HourlyCost
    costs: TokenCosts


@dataclass(frozen=True)
class ServingRow:
    rank: int
    tied_with_next: bool
    tie_group: int
    group: FrontGroup
    reading: FrontReading
    basis: BasisCost
    other_bases: list[BasisCost]
    energy: Energy | None
    output_tokens_per_request: Decimal | None
    input_per_output_token: Decimal | None


@dataclass(frozen=True)
class ServingRefusal:
    group: FrontGroup
    reason: str


@dataclass(frozen=True)
class ServingRanking:
    workload: registry.Workload
    target_interactivity_tps_per_user: float
    ttft_p99_ms: float | None
    tpot_p99_ms: float | None
    price_kind: str
    utilization: Decimal
    as_of: datetime
    input_tokens_per_request: Decimal | None
    rows: list[ServingRow]
    refused: list[ServingRefusal]
    interpolation_method: str = INTERPOLATION_METHOD
    interval_method: str = INTERVAL_METHOD
    fronts: list[FrontGroup] = field(default_factory=list)


def _tokens_per_request(reading: FrontReading, stated, key: str) -> Decimal | None:
    """The stated mean (request or workload), else the mean measured at the two bracketing points."""
    if stated is not None:
        return costing.to_decimal(stated, key)
    measured = [p.extra.get(key) for p in (reading.lower, reading.upper)]
    if any(value is None for value in measured):
        return None
    return (Decimal(str(measured[0])) + Decimal(str(measured[1]))) / 2


def read_serving(question: CostQuestion, *, accelerator_ids=None) -> ServingRanking:
    """Fronts of the question's LLM workload read at its target speed (its interactivity, or its SLA's
    1000 / TPOT bound: the stricter); rows by cost per 1M output tokens on its price kind."""
    spec, sla, share = llm_workload(question.workload.id), question.sla, question.utilization
    price_kind, region, provider = question.price_kind, question.region, question.provider
    target = question.serving_target_tps_per_user()  # the one serving rule of an SLA (policy)
    at = question.as_of or timezone.now()
    stated_input = question.input_tokens_per_request
    input_len = stated_input if stated_input is not None else spec.input_tokens_per_request
    published, precision, backend = question.published, question.precision, question.backend
    groups = fronts(
        workload=spec.id, as_of=at, published=published, precision=precision, backend=backend,
        accelerator_ids=accelerator_ids,
    )  # fmt: skip

    readings, refused = [], []
    for group in groups:
        try:
            readings.append((group, _reading(group, sla, target)))
        except Refused as exc:
            refused.append(ServingRefusal(group, exc.reason))

    kinds = list(PriceKind.values)
    prices = {
        kind: cheapest_prices_in_force(
            [g.accelerator for g, _ in readings], kind=kind, at=at, region=region, provider=provider
        )
        for kind in kinds
    }
    assumptions = onprem_assumptions_in_force(at=at) if readings else None
    rows = []
    for group, reading in readings:
        tdp = group.accelerator.tdp_w
        energy = energy_at(reading, tdp_w=tdp)
        output_len = _tokens_per_request(reading, spec.output_tokens_per_request, "output_tokens_per_request")
        input_for_row = _tokens_per_request(reading, input_len, "input_tokens_per_request")
        ratio = input_tokens_per_output_token(input_for_row, output_len)
        bases, problems = _bases(group, reading, prices, assumptions, energy, ratio, share)
        chosen = next((b for b in bases if b.price_kind == price_kind), None)
        if chosen is None:
            reason = problems.get(price_kind) or no_price_reason(price_kind, at, region=region, provider=provider)
            refused.append(ServingRefusal(group, reason))
            continue
        others = [b for b in bases if b is not chosen]
        rows.append((group, reading, chosen, others, energy, output_len, ratio))

    rows.sort(key=lambda r: (r[2].costs.output_usd_per_million, str(r[0].accelerator), r[0].backend))
    intervals = [
        r[2].costs.output_interval_usd_per_million
        or (r[2].costs.output_usd_per_million, r[2].costs.output_usd_per_million)
        for r in rows
    ]
    ties = tie_groups(intervals)
    built = [
        ServingRow(index + 1, index + 1 < len(rows) and ties[index + 1] == ties[index], ties[index], *row)
        for index, row in enumerate(rows)
    ]
    refused.sort(key=lambda r: (str(r.group.accelerator), r.group.backend, r.group.precision, r.group.origin))
    return ServingRanking(
        spec, target, None if sla.ttft_p99_ms is None else float(sla.ttft_p99_ms),
        None if sla.tpot_p99_ms is None else float(sla.tpot_p99_ms), price_kind, share, at,
        None if input_len is None else costing.to_decimal(input_len, "input_tokens_per_request"), built, refused,
        fronts=groups,
    )  # fmt: skip


def _reading(group: FrontGroup, sla, target: float) -> FrontReading:
    """The group's front read at the target speed; under an SLA, with the points meeting it decided by the
    SLA rule (accounting.sla), and at the SLA's own speed when no faster interactivity was asked for."""
    if not sla:
        return read_at_interactivity(group.front, target)
    points = [*group.front.points, *(p for p, _ in group.front.excluded)]
    at_sla = read_at_sla(points, sla)
    if target > 1000.0 / float(sla.tpot_p99_ms):  # a faster speed asked beside the SLA: read there
        return read_at_interactivity(at_sla.front, target)
    return at_sla.reading


def _bases(group, reading, prices, assumptions, energy, ratio, share) -> tuple[list[BasisCost], dict[str, str]]:
    """The reading costed on every basis with a price in force, and why a basis could not be costed."""
    measured_w = energy.power_w_per_accelerator if energy and energy.power_source == "measured" else None
    bases, problems = [], {}
    for kind, in_force in prices.items():
        price = in_force.get(group.accelerator.pk)
        if price is None:
            continue
        try:
            offer = hourly_offer(
                group.accelerator, price_kind=kind, price=price, assumptions=assumptions, measured_power_w=measured_w
            )
        except ValueError as exc:
            problems[kind] = f"cannot be costed: {exc}"
            continue
        costs = token_costs(
            hourly_usd_per_accelerator=offer.hourly.total_usd_per_hour,
            output_tokens_per_s_per_accelerator=reading.output_tokens_per_s_per_accelerator,
            input_per_output_token=ratio, utilization=share, interval=reading.interval,
        )  # fmt: skip
        bases.append(BasisCost(kind, price, offer.assumptions, offer.hourly, costs))
    return bases, problems
