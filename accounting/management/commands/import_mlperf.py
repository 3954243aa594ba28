from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounting.alarms import check_regressions
from accounting.mlperf import import_tree
from accounting.snapshots import snapshots_for_run


class Command(BaseCommand):
    help = "Import VALID MLPerf Inference results from a submission tree as external runs; idempotent."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="Root of the tree (holding closed/ or open/), or a division.")
        parser.add_argument("--round", default="v4.1", help="MLPerf Inference round, for the source label.")
        parser.add_argument(
            "--published", default="2024-08-28", help="Publication date of the round (YYYY-MM-DD, UTC)."
        )

    def handle(self, *args, path: Path, round: str, published: str, **options):
        if not path.is_dir():
            raise CommandError(f"{path} is not a directory")
        try:
            published_at = datetime.fromisoformat(published).replace(tzinfo=UTC)
        except ValueError:
            raise CommandError(f"--published: '{published}' is not a date (YYYY-MM-DD)") from None
        report = import_tree(path, round_name=round, published_at=published_at)
        for run in report.runs:
            check_regressions(snapshots_for_run(run))
        for where in report.imported:
            self.stdout.write(f"imported  {where}")
        for where, reason in report.skipped:
            self.stdout.write(f"skipped   {where}: {reason}")
        self.stdout.write(
            f"{len(report.imported)} imported, {len(report.already_imported)} already imported, "
            f"{len(report.skipped)} skipped"
        )
