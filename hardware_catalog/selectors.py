"""Reads from the catalog: the price in force, the on-premises assumptions in force."""

from datetime import UTC, date, datetime, time
from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .models import Accelerator, OnPremAssumptions, Price


def prices_in_force(accelerator: Accelerator, *, kind: str, at: datetime | None = None):
    """Every offering's price of `kind` for this accelerator (or the slice it is priced as) at `at`."""
    return Price.objects.for_accelerator(accelerator).filter(kind=kind).in_force(at)


def cheapest_price_in_force(accelerator: Accelerator, *, kind: str, at: datetime | None = None) -> Price | None:
    """The offering with the lowest price per accelerator in force at `at`, or None if there is none."""
    rows = list(prices_in_force(accelerator, kind=kind, at=at))
    return min(rows, key=lambda price: (price.usd_per_accelerator, price.pk), default=None)


def onprem_assumptions_in_force(name: str = "default") -> OnPremAssumptions:
    """The latest version of a named assumption set; the defaults (stated in the README) if none exists yet."""
    latest = OnPremAssumptions.objects.filter(name=name).order_by("-version").first()
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
