import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from inferledger.commands import InputCheckedCommand
from results.mlperf import shipped
from results.mlperf.sources import SourceError, read_source, unique

# The shared data next to the checkout (../shared/data), or INFERLEDGER_SHARED_DATA.
SHARED_DATA = Path(os.environ.get("INFERLEDGER_SHARED_DATA") or Path(settings.BASE_DIR).parent / "shared" / "data")
# The trees the shipped file is built from (docs/published-results.md): (path, round).
DEFAULT_SOURCES = (
    (SHARED_DATA / "mlperf" / "mlperf_inference_results_v4.1_subset.tar.xz", "v4.1"),
    (SHARED_DATA / "mlperf" / "mlperf_inference_results_v5.1_subset.tar.xz", "v5.1"),
    (SHARED_DATA / "mlperf_sample", "v4.1"),
)


class Command(InputCheckedCommand):
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = (
        "Rebuild results/data/mlperf_published.json.gz from MLPerf result trees "
        "(repeatable: the same trees give the same bytes)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "sources", nargs="*", help="PATH=ROUND pairs (default: the shared data's v4.1 and v5.1 subsets and sample)."
        )
        parser.add_argument("--output", type=Path, default=shipped.SHIPPED_RESULTS)

    def handle(self, *args, sources, output, **options):
        pairs = [tuple(s.split("=", 1)) for s in sources] if sources else DEFAULT_SOURCES
        records, described = [], []
        for path, round_name in pairs:
            path = Path(path)
            try:
                found = read_source(path, round_name)
            except SourceError as exc:
                raise CommandError(str(exc)) from None
            records += found
            described.append({"name": path.name, "round": round_name, "results": len(found)})
        records = unique(records)
        shipped.write(records, described, output)
        self.stdout.write(f"{output}: {len(records)} published results from {len(described)} trees")
