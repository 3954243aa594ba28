from pathlib import Path

from inferledger.commands import InputCheckedCommand
from results.management.commands.import_mlperf import print_report
from results.mlperf import shipped
from results.mlperf.adopt import adopt_stored
from results.mlperf.store import import_records


class Command(InputCheckedCommand):
    atomic = True  # every file of the run, or nothing
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = "Load the published MLPerf results shipped with InferLedger (results/data/). Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=shipped.SHIPPED_RESULTS, help="A shipped results file.")
        parser.add_argument("--strict", action="store_true", help="Fail when any result cannot be stored.")

    def handle(self, *args, file, strict, **options):
        records, sources = shipped.read(file)
        self.stdout.write(f"published results from {file.name} ({', '.join(s['name'] for s in sources)}):")
        print_report(self, import_records(records), strict=strict)
        adopted = adopt_stored()  # results of an earlier release's file that this release declares or catalogues
        if adopted.imported:
            self.stdout.write(f"{adopted.imported} stored earlier now declared or in the catalog, taken up")
