from pathlib import Path

from django.core.management.base import CommandError

from hardware_catalog.catalog_2026 import price_rows_2026, price_rows_2026b, tco_rows_2026
from hardware_catalog.selectors import onprem_assumptions_in_force
from hardware_catalog.services import (
    SHIPPED_ACCELERATOR_FILES,
    SHIPPED_PRICES_CSV,
    CatalogImportError,
    import_price_rows,
    import_prices,
    load_accelerators,
)
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    atomic = True  # every file of the run, or nothing
    help = (
        "Load the shipped hardware catalog (accelerators and public prices). Idempotent. "
        "With --prices FILE.csv, import a price list instead: all rows or none."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--prices", type=Path, help="A price CSV to import (same columns as the shipped prices.csv)."
        )

    def handle(self, *args, prices: Path | None = None, **options):
        if prices is None:
            for path in SHIPPED_ACCELERATOR_FILES:
                self._print_report(f"accelerators from {path.name}", load_accelerators(path))
            onprem_assumptions_in_force()
            self._import(SHIPPED_PRICES_CSV.name, lambda: import_prices(SHIPPED_PRICES_CSV))
            self._import(
                "prices_2026.csv", lambda: import_price_rows(price_rows_2026(), default_source="prices_2026.csv")
            )
            self._import(
                "prices_2026b.csv", lambda: import_price_rows(price_rows_2026b(), default_source="prices_2026b.csv")
            )
            self._import("tco_2026.csv", lambda: import_price_rows(tco_rows_2026(), default_source="tco_2026.csv"))
            return
        if not prices.is_file():
            raise CommandError(f"{prices}: no such file")
        self._import(prices.name, lambda: import_prices(prices))

    def _import(self, name, load):
        try:
            report = load()
        except CatalogImportError as exc:
            for error in exc.errors:
                self.stderr.write(f"{name}: {error}")
            raise CommandError(f"{name}: {len(exc.errors)} bad row(s); nothing was imported") from None
        self._print_report(f"prices from {name}", report)

    def _print_report(self, what, report):
        self.stdout.write(
            f"{what}: {len(report.added)} added, {len(report.updated)} updated, {report.unchanged} unchanged"
        )
        for line in report.added:
            self.stdout.write(f"  + {line}")
        for line in report.updated:
            self.stdout.write(f"  ~ {line}")
