"""Reads from the catalog: the price in force, the on-premises assumptions in force.

Each rule has one statement, with a batch form for callers that ask about many accelerators or moments at once
(the snapshots of hundreds of published results): the prices in force are `PriceQuerySet.in_force`, which
`prices_in_force` and `cheapest_prices_in_force` filter through; the assumption set in force is
`onprem_assumptions_in_force_at`, of which `onprem_assumptions_in_force` is the one-moment form.
"""

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, date, datetime, time
from decimal import Decimal

from django.conf import settings
from django.db.models import Value
from django.db.models.functions import Concat
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .models import Accelerator, OnPremAssumptions, Price


def prices_in_force(accelerators: Iterable[Accelerator], *, at: datetime) -> dict[int, list[Price]]:
    """{accelerator id: the price rows in force at `at`, one per offering} for every accelerator given (an empty
    list when none is), looked up on the accelerator each one is priced as. One query however many accelerators."""
    accelerators = list(accelerators)
    pricing_ids = {accelerator.pricing_accelerator.pk for accelerator in accelerators}
    rows: dict[int, list[Price]] = defaultdict(list)
    for price in Price.objects.filter(accelerator_id__in=pricing_ids).in_force(at):
        rows[price.accelerator_id].append(price)
    return {accelerator.pk: list(rows[accelerator.pricing_accelerator.pk]) for accelerator in accelerators}


def cheapest_prices_in_force(
    accelerators: list[Accelerator], *, kind: str, at: datetime | None = None, region=None, provider=None
) -> dict[int, Price]:
    """{accelerator id: the offering of `kind` with the lowest price per accelerator in force at `at`}.

    One query however many accelerators; prices are looked up on the accelerator each one is priced as
    (a local CPU on its cloud slice). Ties go to the older row.
    """
    pricing_ids = {accelerator.pricing_accelerator.pk for accelerator in accelerators}
    rows = Price.objects.filter(kind=kind, accelerator_id__in=pricing_ids).in_force(at or timezone.now())
    rows = rows.select_related("accelerator")
    if region:
        rows = rows.filter(region=region)
    if provider:
        rows = rows.filter(provider__iexact=provider)
    cheapest: dict[int, Price] = {}
    for price in rows:
        held = cheapest.get(price.accelerator_id)
        if held is None or (price.usd_per_accelerator, price.pk) < (held.usd_per_accelerator, held.pk):
            cheapest[price.accelerator_id] = price
    return {
        accelerator.pk: cheapest[accelerator.pricing_accelerator.pk]
        for accelerator in accelerators
        if accelerator.pricing_accelerator.pk in cheapest
    }


def cheapest_price_in_force(accelerator: Accelerator, *, kind: str, at: datetime | None = None) -> Price | None:
    """The offering with the lowest price per accelerator in force at `at`, or None if there is none."""
    return cheapest_prices_in_force([accelerator], kind=kind, at=at).get(accelerator.pk)


def onprem_assumptions_in_force(name: str = "default", *, at: datetime | None = None) -> OnPremAssumptions:
    """The set of this name in force at `at` (default: the latest version); see onprem_assumptions_in_force_at."""
    return onprem_assumptions_in_force_at([at], name=name)[at]


def onprem_assumptions_in_force_at(
    moments: Iterable[datetime | None], *, name: str = "default"
) -> dict[datetime | None, OnPremAssumptions]:
    """{moment: the set of this name in force then}: the latest version created at or before the moment.

    When no version is that old (or the moment is None), the latest version; when none exists at all, the defaults
    stated in the README are stored as version 1. One query however many moments.
    """
    versions = list(OnPremAssumptions.objects.filter(name=name).order_by("-version"))
    if not versions:
        defaults = {key: Decimal(value) for key, value in settings.INFERLEDGER_ONPREM_DEFAULTS.items()}
        versions = [
            OnPremAssumptions.objects.create(
                name=name, version=1, notes="created from the built-in defaults", created_at=timezone.now(), **defaults
            )
        ]

    def in_force(at: datetime | None) -> OnPremAssumptions:
        found = next((v for v in versions if v.created_at <= at), None) if at is not None else None
        return found or versions[0]

    return {moment: in_force(moment) for moment in moments}


def parse_as_of(text: str) -> datetime:
    """A date (meaning the end of that day, UTC) or an ISO-8601 date-time with a zone, as aware UTC."""
    text = (text or "").strip()
    try:
        day = date.fromisoformat(text)
        return datetime.combine(day, time.max, tzinfo=UTC)
    except ValueError:
        pass
    parsed = parse_datetime(text)
    if parsed is None:
        raise ValueError(f"'{text}' is not a date: use YYYY-MM-DD or an ISO-8601 date-time")
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def accelerator_named(name: str) -> Accelerator | None:
    """The catalog accelerator named as the catalog lists it, "<vendor> <model>" (case and spacing aside)."""
    wanted = " ".join((name or "").split())
    if not wanted:
        return None
    named = Accelerator.objects.annotate(full_name=Concat("vendor", Value(" "), "model"))
    return named.filter(full_name__iexact=wanted).first()
