"""The 2026 price files of the shared data, read as price rows (the files themselves ship unchanged).

``prices_2026.csv`` (newer cloud rows): a row read from a dated source keeps its date (``as_of``,
the lower bound of an interval) as ``effective_from``. Rows read from catalog snapshots whose copy
records no capture date get ``UNDATED_SNAPSHOT_EFFECTIVE_FROM`` (2026-01-01): the files are the 2026
catalog, every row of prices.csv is dated 2024-12-01 or earlier, and no dated
2026 row (2026-02-26) precedes it, so an undated snapshot never back-dates a dated price and, for the
same offering at two prices (Lambda 8x H100: 23.92 in the v7 snapshot, 31.92 in v8), the newer
snapshot is the later row of its history. The rule is named in each such row's source.

``prices_2026b.csv`` (late-2026 additions: AWS after its mid-2025 GPU price cut, Verda 1- and 8-GPU shapes): every
row is undated (the SkyPilot snapshots' copies carry no capture date). Its rows get ``UNDATED_2026B_EFFECTIVE_FROM``
(2026-07-01): the data calls them late-2026 additions, so they were observed in the second half of 2026, and
``effective_from`` is the lower bound of when a price was observed (as for ``as_of`` intervals). The same offering
in ``prices_2026.csv`` (2026-01-01) and here (Verda 1x B300: 6.99 then 4.95) is therefore history in file order: the
later file is taken as the later observation, the rule ``prices_2026.csv`` already applies to its two snapshots.

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
PRICES_2026B_CSV = DATA_DIR / "prices_2026b.csv"
TCO_2026_CSV = DATA_DIR / "tco_2026.csv"
UNDATED_SNAPSHOT_EFFECTIVE_FROM = "2026-01-01"
UNDATED_2026B_EFFECTIVE_FROM = "2026-07-01"
TCO_PROVIDER = "SemiAnalysis AI Cloud TCO model"


def _undated_note(effective_from: str) -> str:
    rule = "InferLedger's rule for undated snapshots (hardware_catalog/catalog_2026.py)"
    return f"; effective_from {effective_from} by {rule}"


_UNDATED_NOTE = _undated_note(UNDATED_SNAPSHOT_EFFECTIVE_FROM)


def _rows(path: Path):
    with open(path, newline="", encoding="utf-8-sig") as handle:
        yield from enumerate(csv.DictReader(handle), start=2)


def price_rows_2026(
    path: Path = PRICES_2026_CSV, *, undated_effective_from: str = UNDATED_SNAPSHOT_EFFECTIVE_FROM
) -> list[tuple[int, dict]]:
    """prices_2026.csv (or prices_2026b.csv, with its own date for undated rows) as (line, row) in prices.csv's
    columns."""
    rows, note = [], _undated_note(undated_effective_from)
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
                    "effective_from": as_of.split("/")[0] if as_of else undated_effective_from,
                    "as_of": as_of,
                    "source": row["source"] + ("" if as_of else note),
                },
            )
        )
    return rows


def price_rows_2026b(path: Path = PRICES_2026B_CSV) -> list[tuple[int, dict]]:
    return price_rows_2026(path, undated_effective_from=UNDATED_2026B_EFFECTIVE_FROM)


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
