import csv as csv_module
from collections import Counter

from inferledger.commands import InputCheckedCommand
from inferledger.csv_cells import safe_row
from results.mlperf.export import COLUMNS, EXTRA_COLUMNS, rows
from results.models import PublishedResult


class Command(InputCheckedCommand):
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = "List the stored published results; --csv writes one row per result (the published figure unchanged)."

    def add_arguments(self, parser):
        parser.add_argument("--csv", action="store_true", help="CSV on standard output, one row per result.")

    def handle(self, *args, csv: bool = False, **options):
        if csv:
            return self._csv()
        counts = Counter(PublishedResult.objects.values_list("round", "division"))
        for (round_name, division), count in sorted(counts.items()):
            self.stdout.write(f"MLPerf {round_name} {division}: {count} results")
        self.stdout.write(f"{sum(counts.values())} published results; --csv for one row each")

    def _csv(self):
        writer = _csv_writer(self.stdout)
        writer.writerow(COLUMNS + EXTRA_COLUMNS)
        for row in rows():
            writer.writerow(safe_row(row))


def _csv_writer(stream):
    return csv_module.writer(stream, lineterminator="\n")
