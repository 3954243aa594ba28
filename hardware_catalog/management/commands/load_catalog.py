from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from hardware_catalog.selectors import onprem_assumptions_in_force
from hardware_catalog.services import (
    SHIPPED_PRICES_CSV,
    CatalogImportError,
    import_prices,
    load_accelerators,
)


class Command(BaseCommand):
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
            accelerators = load_accelerators()
            self._print_report("accelerators", accelerators)
            onprem_assumptions_in_force()
            prices = SHIPPED_PRICES_CSV
        elif not prices.is_file():
            raise CommandError(f"{prices}: no such file")
        try:
            report = import_prices(prices)
        except CatalogImportError as exc:
            for error in exc.errors:
                self.stderr.write(f"{prices}: {error}")
            raise CommandError(f"{prices}: {len(exc.errors)} bad row(s); nothing was imported") from None
        self._print_report(f"prices from {prices.name}", report)

    def _print_report(self, what, report):
        self.stdout.write(
            f"{what}: {len(report.added)} added, {len(report.updated)} updated, {report.unchanged} unchanged"
        )
        for line in report.added:
            self.stdout.write(f"  + {line}")
        for line in report.updated:
            self.stdout.write(f"  ~ {line}")
