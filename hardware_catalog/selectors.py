"""Reads from the catalog: the price in force, the on-premises assumptions in force."""

from datetime import UTC, date, datetime, time
from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .models import Accelerator, OnPremAssumptions, Price


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
    """The latest version of a named set created at or before `at` (default: the latest of all).

    When no version is that old, the current one; when none exists at all, the defaults stated in the
    README are stored as version 1.
    """
    versions = OnPremAssumptions.objects.filter(name=name).order_by("-version")
    found = versions.filter(created_at__lte=at).first() if at is not None else None
    latest = found or versions.first()
    if latest is not None:
        return latest
    defaults = {key: Decimal(value) for key, value in settings.INFERLEDGER_ONPREM_DEFAULTS.items()}
    return OnPremAssumptions.objects.create(
        name=name, version=1, notes="created from the built-in defaults", created_at=timezone.now(), **defaults
    )


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
