"""Writes: the cost snapshots of runs stored in bulk (published MLPerf results), in a few queries.

`results.mlperf` stores hundreds of published results at once with bulk inserts, so no `run_ingested` fires
for each; `results.signals.published_stored` names them all instead. Each run gets the snapshots history
gives it, the same rows `recompute_all` would add (tests/accounting/test_published_snapshots.py):
  - the prices in force when it finished (`snapshots_for_run`);
  - every price of its hardware, at the price's effective_from, while it is the latest run of its
    configuration then (`snapshots_for_price`: a 2026 catalog price applies to a 2024 result);
  - every on-prem assumption set, on the purchase prices in force at its creation, while it is the latest
    run then (`snapshots_for_assumptions`).
Prices, assumption sets and the runs' own rows are read once; the rules (the prices in force, the latest runs, the
assumption set in force) are asked once per distinct moment through their batch forms, so they are stated only
where they live (hardware_catalog.selectors, snapshots.latest_run_ids_at), and the queries grow with the number of
moments (publication rounds, price dates), not of runs.
"""

from collections import defaultdict

from accounting.history.snapshots import feasible_choices, latest_run_ids_at, priced, store_new
from hardware_catalog.models import OnPremAssumptions, Price
from hardware_catalog.selectors import onprem_assumptions_in_force_at, prices_in_force
from results.models import BenchmarkRun


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
    accelerators = list({run.accelerator_id: run.accelerator for run in runs}.values())
    history = defaultdict(list)  # every price of each pricing accelerator, corrected rows included, as recompute_all
    for price in Price.objects.filter(accelerator_id__in={a.pricing_accelerator.pk for a in accelerators}):
        history[price.accelerator_id].append(price)
    prices = [price for rows in history.values() for price in rows]
    finished = {run.finished_at for run in runs}
    price_dates = {price.effective_from for price in prices}
    # Stores the default set when none is stored yet, as the signals would, so that it is among the sets read next.
    purchase = any(price.is_purchase for price in prices)
    assumptions_at = onprem_assumptions_in_force_at(finished | price_dates) if purchase else {}
    sets = list(OnPremAssumptions.objects.order_by("created_at", "pk"))
    set_dates = {assumptions.created_at for assumptions in sets}

    in_force = {at: prices_in_force(accelerators, at=at) for at in finished | set_dates}
    accelerator_ids = [accelerator.pk for accelerator in accelerators]
    latest = {
        at: set(latest_run_ids_at(accelerator_ids, at).values_list("id", flat=True)) for at in price_dates | set_dates
    }

    built = []
    for run in runs:
        choices = feasible_choices(run)
        if not choices:
            continue
        offers = [(price, run.finished_at) for price in in_force[run.finished_at][run.accelerator_id]]
        offers += [
            (price, price.effective_from)
            for price in history[run.accelerator.pricing_accelerator.pk]
            if run.pk in latest[price.effective_from]
        ]
        for price, moment in offers:
            built += priced(run, [price], assumptions_at[moment] if price.is_purchase else None, choices)
        for assumptions in sets:
            if run.pk in latest[assumptions.created_at]:
                purchase_prices = [p for p in in_force[assumptions.created_at][run.accelerator_id] if p.is_purchase]
                built += priced(run, purchase_prices, assumptions, choices)
    return len(store_new(built))
