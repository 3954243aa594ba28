import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from inferledger.commands import InputCheckedCommand
from results.management.commands.import_mlperf import parse_published
from results.mlperf import shipped
from results.mlperf.sources import SourceError, read_source, unique
from results.mlperf.store import MissingPublicationDate, published_at

# The shared data next to the checkout (../shared/data), or INFERLEDGER_SHARED_DATA.
SHARED_DATA = Path(os.environ.get("INFERLEDGER_SHARED_DATA") or Path(settings.BASE_DIR).parent / "shared" / "data")
MLPERF = SHARED_DATA / "mlperf"
# The trees and results tables the shipped file is built from (docs/published-results.md): (path, round).
DEFAULT_SOURCES = (
    (MLPERF / "mlperf_inference_results_v4.1_subset.tar.xz", "v4.1"),
    (MLPERF / "mlperf_inference_results_v5.1_subset.tar.xz", "v5.1"),
    (SHARED_DATA / "mlperf_sample", "v4.1"),
    (MLPERF / "mlperf_inference_results_v6.0_subset.tar.xz", "v6.0"),
    (MLPERF / "mlperf_inference_v6.0_summary_results_subset.json", "v6.0"),
    (MLPERF / "mlperf_inference_v6.1_summary.json", "v6.1"),
)
# v6.1's publication date is neither in its table nor in an announcement available here: the shared data's README
# places the round in autumn 2026, and the build states the first day of that season (docs/published-results.md).
DEFAULT_PUBLISHED = ["v6.1=2026-09-01"]


class Command(InputCheckedCommand):
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = (
        "Rebuild results/data/mlperf_published.json.gz from MLPerf result trees and results tables "
        "(repeatable: the same inputs give the same bytes)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "sources", nargs="*", help="PATH=ROUND pairs (default: the shared data's trees and tables, v4.1 to v6.1)."
        )
        parser.add_argument("--output", type=Path, default=shipped.SHIPPED_RESULTS)
        parser.add_argument(
            "--published", action="append", default=None,
            help="ROUND=YYYY-MM-DD for a round whose date is neither known nor in its data (default: "
            f"{' '.join(DEFAULT_PUBLISHED)} with the default sources).",
        )  # fmt: skip

    def handle(self, *args, sources, output, published, **options):
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
        dates = parse_published(published if published is not None else DEFAULT_PUBLISHED if not sources else [],
                                {record.round for record in records})  # fmt: skip
        missing = set()
        for record in records:
            try:
                record.published_on = published_at(record, dates).date().isoformat()
            except MissingPublicationDate:
                missing.add(record.round)
        if missing:
            raise CommandError(str(MissingPublicationDate(sorted(missing))))
        for source in described:
            given = dates.get(source["round"])
            if given:
                source["published"] = f"{given.date().isoformat()} (given at build time)"
        records = unique(records)
        shipped.write(records, described, output)
        self.stdout.write(f"{output}: {len(records)} published results from {len(described)} sources")
