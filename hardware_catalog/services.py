"""Writes to the catalog: loading the shipped data, importing users' price lists, registering local CPUs.

Imports validate every row first and write in one transaction, so a file with one bad row imports
nothing; what is already stored is never overwritten.
"""

import csv
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from django.db import transaction
from django.utils.dateparse import parse_datetime

from .models import Accelerator, AcceleratorKind, Price, PriceKind, PriceUnit

DATA_DIR = Path(__file__).resolve().parent / "data"
SHIPPED_ACCELERATORS_CSV = DATA_DIR / "accelerators.csv"
SHIPPED_PRICES_CSV = DATA_DIR / "prices.csv"
# Loaded in this order by load_catalog; accelerators_2026.csv is the shared data's file unchanged, and
# accelerators_mlperf.csv names the few parts published results use that no other file has.
SHIPPED_ACCELERATOR_FILES = (
    SHIPPED_ACCELERATORS_CSV,
    DATA_DIR / "accelerators_2026.csv",
    DATA_DIR / "accelerators_2026b.csv",
    DATA_DIR / "accelerators_mlperf.csv",
)
# Other spellings of the spec columns (accelerators_2026.csv): column -> our column.
_COLUMN_ALIASES = {
    "memory_gb": "memory_gib",
    "fp16_dense_tflops": "fp16_tflops_dense",
    "fp8_dense_tflops": "fp8_tflops_dense",
    "int8_dense_tops": "int8_tops_dense",
    "tdp_w": "tdp_watts",
}

_SPEC_COLUMNS = {
    "memory_gib": "memory_gib",
    "memory_bandwidth_gbps": "memory_bandwidth_gbps",
    "fp32_tflops": "fp32_tflops",
    "tf32_tflops_dense": "tf32_tflops_dense",
    "fp16_tflops_dense": "fp16_tflops_dense",
    "bf16_tflops_dense": "bf16_tflops_dense",
    "fp8_tflops_dense": "fp8_tflops_dense",
    "int8_tops_dense": "int8_tops_dense",
    "tdp_watts": "tdp_w",
}
_PRICE_REQUIRED_COLUMNS = ("model", "price_kind", "provider", "price_usd", "unit", "effective_from")
_VCPU_PATTERN = re.compile(r"\((\d+)\s*vCPU\)", re.IGNORECASE)


class CatalogImportError(Exception):
    """A file could not be imported; `errors` lists every problem found, each with line and column."""

    def __init__(self, errors: list["RowError"]):
        self.errors = errors
        super().__init__(f"{len(errors)} problem(s); nothing was imported")


@dataclass(frozen=True)
class RowError:
    line: int
    column: str
    reason: str

    def __str__(self):
        return f"line {self.line}, column '{self.column}': {self.reason}"


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0


def _optional_float(text: str) -> float | None:
    text = (text or "").strip()
    return float(text) if text else None


def _accelerator_kind(row: dict) -> str:
    if "cpu" in row["model"].lower() or row.get("architecture", "").lower().startswith("x86"):
        return AcceleratorKind.CPU
    if row["vendor"].strip().upper() == "NVIDIA" or row["vendor"].strip().upper() == "AMD":
        return AcceleratorKind.GPU
    return AcceleratorKind.OTHER


def load_accelerators(path: Path = SHIPPED_ACCELERATORS_CSV) -> ImportReport:
    """Create missing accelerators and bring changed specs up to date (specs are not history; prices are)."""
    report = ImportReport()
    with open(path, newline="", encoding="utf-8") as handle, transaction.atomic():
        for raw in csv.DictReader(handle):
            row = {_COLUMN_ALIASES.get(column, column): value for column, value in raw.items()}
            vcpus = _VCPU_PATTERN.search(row["model"])
            values = {
                model_field: _optional_float(row.get(column, "")) for column, model_field in _SPEC_COLUMNS.items()
            }
            values.update(
                kind=_accelerator_kind(row),
                architecture=row.get("architecture", "").strip(),
                form_factor=row.get("form_factor", "").strip(),
                launch_year=int(row["launch_year"]) if row.get("launch_year", "").strip() else None,
                vcpu_count=int(vcpus.group(1)) if vcpus else None,
                source=row.get("source", "").strip(),
            )
            accelerator, created = Accelerator.objects.get_or_create(
                vendor=row["vendor"].strip(), model=row["model"].strip(), defaults=values
            )
            if created:
                report.added.append(str(accelerator))
                continue
            # Identity (the kind) is never changed by a file: the accelerator's history is stored under it.
            changed = {name: value for name, value in values.items()
                       if name not in Accelerator.IDENTITY_FIELDS and getattr(accelerator, name) != value}  # fmt: skip
            if changed:
                Accelerator.objects.filter(pk=accelerator.pk).update(**changed)
                report.updated.append(f"{accelerator} ({', '.join(sorted(changed))})")
            else:
                report.unchanged += 1
    return report


def _parse_effective_from(text: str) -> datetime:
    text = text.strip()
    try:
        day = date.fromisoformat(text)
        return datetime(day.year, day.month, day.day, tzinfo=UTC)
    except ValueError:
        pass
    parsed = parse_datetime(text)
    if parsed is None:
        raise ValueError(f"'{text}' is not a date (expected YYYY-MM-DD or an ISO-8601 date-time)")
    if parsed.tzinfo is None:
        raise ValueError(f"'{text}' has no time zone; give a date or a date-time with an offset (e.g. Z)")
    return parsed.astimezone(UTC)


def _parse_price(text: str) -> Decimal:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"'{text}' is not a number") from None
    if not value.is_finite():
        raise ValueError(f"'{text}' is not a finite number")
    if value <= 0:
        raise ValueError(f"price must be positive, got {text}")
    if value >= Decimal("100000000"):
        raise ValueError(f"price {text} is implausibly large (limit 100,000,000 USD)")
    return value


def _find_accelerator(row: dict, by_model: dict, by_vendor_model: dict) -> Accelerator:
    model = row["model"].strip()
    vendor = (row.get("vendor") or "").strip()
    if vendor:
        found = by_vendor_model.get((vendor.lower(), model.lower()))
    else:
        matches = by_model.get(model.lower(), [])
        if len(matches) > 1:
            raise ValueError(f"'{model}' is ambiguous ({len(matches)} vendors); add a 'vendor' column")
        found = matches[0] if matches else None
    if found is None:
        raise ValueError(f"unknown accelerator '{model}'; load it into the catalog first (load_catalog)")
    return found


def _validate_price_row(row: dict, line: int, lookups: tuple, default_source: str) -> tuple[Price | None, list]:
    errors = []

    def check(column, parse):
        try:
            return parse(row.get(column) or "")
        except ValueError as exc:
            errors.append(RowError(line, column, str(exc)))
            return None

    for column in _PRICE_REQUIRED_COLUMNS:
        if not (row.get(column) or "").strip():
            errors.append(RowError(line, column, "is required"))
    if errors:
        return None, errors
    accelerator = check("model", lambda _: _find_accelerator(row, *lookups))
    kind = check("price_kind", lambda text: _choice(text, PriceKind))
    unit = check("unit", lambda text: _choice(text, PriceUnit))
    price_usd = check("price_usd", _parse_price)
    effective_from = check("effective_from", _parse_effective_from)
    per_instance = check("accelerators_per_instance", _parse_accelerators_per_instance)
    if kind and unit and (kind == PriceKind.PURCHASE) != (unit == PriceUnit.PER_UNIT):
        errors.append(RowError(line, "unit", f"'{unit}' does not fit price kind '{kind}' (purchase is per_unit)"))
    if errors:
        return None, errors
    price = Price(
        accelerator=accelerator,
        kind=kind,
        provider=row["provider"].strip(),
        region=(row.get("region") or "").strip(),
        instance_type=(row.get("instance_type") or "").strip(),
        accelerators_per_instance=per_instance,
        price_usd=price_usd,
        unit=unit,
        effective_from=effective_from,
        as_of=(row.get("as_of") or "").strip(),
        source=(row.get("source") or "").strip() or default_source,
    )
    return price, []


def _choice(text: str, choices) -> str:
    value = text.strip()
    if value not in choices.values:
        raise ValueError(f"'{value}' is not one of {', '.join(choices.values)}")
    return value


def _parse_accelerators_per_instance(text: str) -> int:
    text = text.strip() or "1"
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"'{text}' is not a whole number >= 1")
    return int(text)


def _offering_key(price: Price) -> tuple:
    return (price.accelerator_id, price.kind, price.provider, price.region, price.instance_type, price.effective_from)


def import_prices(path: Path, *, default_source: str | None = None) -> ImportReport:
    """Import a price list; all rows or none. Raises CatalogImportError listing every bad row."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in _PRICE_REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CatalogImportError([RowError(1, column, "column is missing from the header") for column in missing])
        rows = list(enumerate(reader, start=2))
    return import_price_rows(rows, default_source=default_source or f"imported from {Path(path).name}")


def import_price_rows(rows: list[tuple[int, dict]], *, default_source: str) -> ImportReport:
    """Import (line number, row) pairs in prices.csv's columns; all rows or none."""
    accelerators = list(Accelerator.objects.all())
    by_model: dict[str, list] = {}
    for accelerator in accelerators:
        by_model.setdefault(accelerator.model.lower(), []).append(accelerator)
    by_vendor_model = {(a.vendor.lower(), a.model.lower()): a for a in accelerators}

    errors: list[RowError] = []
    candidates: list[tuple[int, Price]] = []
    first_line_of: dict[tuple, int] = {}
    for line_number, row in rows:
        price, row_errors = _validate_price_row(row, line_number, (by_model, by_vendor_model), default_source)
        errors.extend(row_errors)
        if price is None:
            continue
        key = _offering_key(price)
        if key in first_line_of:
            errors.append(RowError(line_number, "effective_from", f"duplicates line {first_line_of[key]}"))
            continue
        first_line_of[key] = line_number
        candidates.append((line_number, price))

    report = ImportReport()
    to_create = []
    for line_number, price in candidates:
        stored = Price.objects.filter(
            corrects__isnull=True,  # the row as first recorded, which is what the file states
            accelerator=price.accelerator,
            kind=price.kind,
            provider=price.provider,
            region=price.region,
            instance_type=price.instance_type,
            effective_from=price.effective_from,
        ).first()
        if stored is None:
            error = price.history_error()
            if error is not None:
                errors.append(RowError(line_number, *error))
            else:
                to_create.append(price)
        elif (
            stored.price_usd == price.price_usd and stored.accelerators_per_instance == price.accelerators_per_instance
        ):
            report.unchanged += 1
        else:
            errors.append(
                RowError(
                    line_number,
                    "price_usd",
                    f"conflicts with stored price {stored.price_usd} for the same offering and effective_from; "
                    "prices are never overwritten: give the new price a later effective_from",
                )
            )
    if errors:
        raise CatalogImportError(sorted(errors, key=lambda error: error.line))
    with transaction.atomic():
        for price in to_create:
            price.recorded_by = default_source[: Price._meta.get_field("recorded_by").max_length]
            price.save()
            report.added.append(str(price))
    return report


_CPU_VENDORS = {"amd": "AMD", "authenticamd": "AMD", "intel": "Intel", "genuineintel": "Intel", "arm": "Arm"}


def _cpu_vendor_and_model(cpu_model: str) -> tuple[str, str]:
    """('AMD', 'EPYC 7B13') from 'AMD EPYC 7B13'; trademarks like (R) and (TM) are dropped."""
    cleaned = re.sub(r"\((R|TM)\)", "", cpu_model, flags=re.IGNORECASE).split(" CPU @")[0]
    words = cleaned.split()
    if not words:
        return "Unknown", "CPU"
    vendor = _CPU_VENDORS.get(words[0].lower())
    if vendor is None:
        return words[0], " ".join(words)
    return vendor, " ".join(words[1:]) or "CPU"


def register_local_cpu(*, cpu_model: str, vcpu_count: int) -> Accelerator:
    """The local CPU as an accelerator, priced like the cloud CPU slice with the nearest vCPU count."""
    vendor, model = _cpu_vendor_and_model(cpu_model)
    name = f"{model} ({vcpu_count} vCPU)"
    slices = list(Accelerator.objects.filter(vendor="Generic", kind=AcceleratorKind.CPU, vcpu_count__isnull=False))
    priced_as = min(slices, key=lambda a: (abs(a.vcpu_count - vcpu_count), a.vcpu_count), default=None)
    accelerator, created = Accelerator.objects.get_or_create(
        vendor=vendor,
        model=name,
        defaults={
            "kind": AcceleratorKind.CPU,
            "architecture": "x86-64" if vendor in {"AMD", "Intel"} else "",
            "vcpu_count": vcpu_count,
            "priced_as": priced_as,
            "source": "registered from the local machine; priced as the cloud CPU slice of its size",
        },
    )
    if not created and accelerator.priced_as_id is None and priced_as is not None:
        Accelerator.objects.filter(pk=accelerator.pk).update(priced_as=priced_as)
        accelerator.priced_as = priced_as
    return accelerator
