"""Writes: the cost snapshots of runs stored in bulk (published MLPerf results), in a few queries.

`results.mlperf` stores hundreds of published results at once with bulk inserts, so no `run_ingested` fires
for each; `results.signals.published_stored` names them all instead. Each run gets the snapshots history
gives it, the same rows `recompute_all` would add (tests/accounting/test_published_snapshots.py):
  - the prices in force when it finished (`snapshots_for_run`);
  - every price of its hardware, at the price's effective_from, while it is the latest run of its
    configuration then (`snapshots_for_price`: a 2026 catalog price applies to a 2024 result);
  - every on-prem assumption set, on the purchase prices in force at its creation, while it is the latest
    run then (`snapshots_for_assumptions`).
Prices, assumption sets and the runs of the same configurations are read once and matched in memory.
"""

from collections import defaultdict
from datetime import datetime

from hardware_catalog.models import OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import onprem_assumptions_in_force
from results.models import BenchmarkRun

from . import policy
from .snapshots import feasible_choices, priced, store_new

# What makes two runs one configuration, of which only the latest counts (policy.latest_run_ids).
_CONFIGURATION = (
    "accelerator_id", "origin", "external_source", "accelerator_count", "workload_name", "backend", "precision",
    "scenario",
)  # fmt: skip


def _offering(price: Price) -> tuple:
    return tuple(getattr(price, name) for name in Price.OFFERING_FIELDS)


def _in_force(prices: list[Price], at: datetime) -> list[Price]:
    """Price.objects.in_force(at) over the rows already read: per offering, the latest current (uncorrected) row
    with effective_from <= at."""
    corrected = {price.corrects_id for price in prices if price.corrects_id is not None}
    latest: dict[tuple, Price] = {}
    for price in prices:
        if price.pk not in corrected and price.effective_from <= at:
            found = latest.get(_offering(price))
            if found is None or price.effective_from > found.effective_from:
                latest[_offering(price)] = price
    return list(latest.values())


class _Latest:
    """Whether a run is the latest counted run of its configuration at a moment (policy.latest_run_ids)."""

    def __init__(self, accelerator_ids):
        runs = policy.eligible_runs(workload=None, published=policy.Published.ALL, accelerator_ids=accelerator_ids)
        self._peers = defaultdict(list)
        for row in runs.values("id", "started_at", *_CONFIGURATION):
            self._peers[tuple(row[name] for name in _CONFIGURATION)].append((row["started_at"], row["id"]))

    def at(self, run: BenchmarkRun, moment: datetime) -> bool:
        if run.started_at > moment or run.finished_at > moment:
            return False
        peers = self._peers[tuple(getattr(run, name) for name in _CONFIGURATION)]
        return not any(
            started <= moment and (started > run.started_at or (started == run.started_at and pk < run.pk))
            for started, pk in peers
        )


def snapshots_for_published(run_ids) -> int:
    """Store the snapshots of these runs (see the module docstring) not stored yet; returns how many."""
    runs = list(
        BenchmarkRun.objects.that_count()
        .filter(pk__in=list(run_ids))
        .select_related("accelerator__priced_as")
        .prefetch_related("points")
    )
    if not runs:
        return 0
    pricing_ids = {run.accelerator.pricing_accelerator.pk for run in runs}
    prices = defaultdict(list)
    for price in Price.objects.filter(accelerator_id__in=pricing_ids).order_by("effective_from", "pk"):
        prices[price.accelerator_id].append(price)
    if any(price.is_purchase for rows in prices.values() for price in rows):
        onprem_assumptions_in_force()  # creates the default set when none is stored yet, as the signals would
    sets = list(OnPremAssumptions.objects.order_by("created_at", "pk"))
    defaults = sorted((s for s in sets if s.name == "default"), key=lambda s: s.version, reverse=True)

    def default_at(moment: datetime) -> OnPremAssumptions:  # onprem_assumptions_in_force(at=moment)
        return next((s for s in defaults if s.created_at <= moment), defaults[0])

    latest = _Latest({run.accelerator_id for run in runs})
    built = []
    for run in runs:
        choices = feasible_choices(run)
        if not choices:
            continue
        own = prices[run.accelerator.pricing_accelerator.pk]
        offers = [(price, run.finished_at) for price in _in_force(own, run.finished_at)]
        offers += [(price, price.effective_from) for price in own if latest.at(run, price.effective_from)]
        for price, moment in offers:
            used = default_at(moment) if price.kind == PriceKind.PURCHASE else None
            built += priced(run, [price], used, choices)
        for assumptions in sets:
            if latest.at(run, assumptions.created_at):
                purchase = [p for p in _in_force(own, assumptions.created_at) if p.kind == PriceKind.PURCHASE]
                built += priced(run, purchase, assumptions, choices)
    return len(store_new(built))
