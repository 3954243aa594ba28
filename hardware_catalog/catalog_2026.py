"""The 2026 price files of the shared data, read as price rows (the files themselves ship unchanged).

``prices_2026.csv`` (newer cloud rows): a row read from a dated source keeps its date (``as_of``,
the lower bound of an interval) as ``effective_from``. Rows read from catalog snapshots whose copy
records no capture date get ``UNDATED_SNAPSHOT_EFFECTIVE_FROM`` (2026-01-01): the files are the 2026
catalog, every row of prices.csv is dated 2024-12-01 or earlier, and no dated
2026 row (2026-02-26) precedes it, so an undated snapshot never back-dates a dated price and, for the
same offering at two prices (Lambda 8x H100: 23.92 in the v7 snapshot, 31.92 in v8), the newer
snapshot is the later row of its history. The rule is named in each such row's source.

``tco_2026.csv`` (ownership bases): each (part, basis) becomes a price of kind ``owned_hyperscaler_4y``,
``owned_neocloud_4y`` or ``rented_3y_contract``, in USD per accelerator-hour, all-in (the source's
figure already includes power; its kW per accelerator is kept in the row's source), effective from
the same date and for the same reason (the source file's commit carries no date in the copy).
"""

import csv
from pathlib import Path

from .models import PriceUnit
from .services import DATA_DIR

PRICES_2026_CSV = DATA_DIR / "prices_2026.csv"
TCO_2026_CSV = DATA_DIR / "tco_2026.csv"
UNDATED_SNAPSHOT_EFFECTIVE_FROM = "2026-01-01"
TCO_PROVIDER = "SemiAnalysis AI Cloud TCO model"
_UNDATED_NOTE = (
    f"; effective_from {UNDATED_SNAPSHOT_EFFECTIVE_FROM} by InferLedger's rule for undated snapshots "
    "(hardware_catalog/catalog_2026.py)"
)


def _rows(path: Path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        yield from enumerate(csv.DictReader(handle), start=2)


def price_rows_2026(path: Path = PRICES_2026_CSV) -> list[tuple[int, dict]]:
    """prices_2026.csv as (line, row) in prices.csv's columns."""
    rows = []
    for line, row in _rows(path):
        as_of = (row.get("as_of") or "").strip()
        kind = row["kind"].strip()
        rows.append(
            (
                line,
                {
                    "model": row["accelerator_model"],
                    "price_kind": kind,
                    "provider": row["provider"],
                    "region": row.get("region", ""),
                    "instance_type": row.get("instance_type", ""),
                    "accelerators_per_instance": row.get("accelerators_per_instance", ""),
                    "price_usd": row["price_usd_per_hour_or_unit"],
                    "unit": PriceUnit.PER_UNIT if kind == "purchase" else PriceUnit.PER_INSTANCE_HOUR,
                    "effective_from": as_of.split("/")[0] if as_of else UNDATED_SNAPSHOT_EFFECTIVE_FROM,
                    "as_of": as_of,
                    "source": row["source"] + ("" if as_of else _UNDATED_NOTE),
                },
            )
        )
    return rows


def tco_rows_2026(path: Path = TCO_2026_CSV) -> list[tuple[int, dict]]:
    """tco_2026.csv as (line, row) price rows, one per (part, ownership basis)."""
    rows, first_source = [], ""
    for line, row in _rows(path):
        source = row["source"].strip()
        if source.startswith("same file") and first_source:
            source = f"{first_source.split(' (')[0]} {source.removeprefix('same file').strip()}"
        else:
            first_source = source
        note = (row.get("note") or "").strip()
        kw = (row.get("all_in_kw_per_accelerator") or "").strip()
        details = "; ".join(part for part in (note, f"all-in {kw} kW per accelerator" if kw else "") if part)
        rows.append(
            (
                line,
                {
                    "model": row["accelerator_model"],
                    "price_kind": row["basis"].strip(),
                    "provider": TCO_PROVIDER,
                    "accelerators_per_instance": "1",
                    "price_usd": row["usd_per_accelerator_hour"],
                    "unit": PriceUnit.PER_ACCELERATOR_HOUR,
                    "effective_from": UNDATED_SNAPSHOT_EFFECTIVE_FROM,
                    "source": f"{source}; {details}{_UNDATED_NOTE}" if details else source + _UNDATED_NOTE,
                },
            )
        )
    return rows
