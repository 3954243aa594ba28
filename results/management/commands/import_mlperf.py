from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import CommandError

from inferledger.commands import InputCheckedCommand
from results.mlperf.sources import SourceError, read_source, unique
from results.mlperf.store import import_records


def print_report(command, report, *, strict: bool) -> None:
    """One line per reason with its count (and one example path); --strict turns any skip into an error."""
    command.stdout.write(
        f"{report.imported} imported, {report.already_imported} already imported, {report.skipped_count} skipped"
    )
    for reason, count in report.skipped.most_common():
        command.stdout.write(f"  skipped {count:>4} x {reason}  (e.g. {report.example[reason]})")
    if strict and report.skipped:
        raise CommandError(f"--strict: {report.skipped_count} result(s) not importable ({len(report.skipped)} reasons)")


class Command(InputCheckedCommand):
    atomic = True  # every file of the run, or nothing
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = (
        "Import every published MLPerf Inference result of result trees (directories or .tar.xz archives) "
        "as external runs, with the published figure exactly as the submission checker reads it. Idempotent."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path, help="Tree roots (holding closed/, open/), or archives.")
        parser.add_argument(
            "--round", help="MLPerf Inference round (e.g. v4.1) of paths whose name does not say ('..._v5.1_...')."
        )
        parser.add_argument("--published", help="Publication date (YYYY-MM-DD, UTC); default: the round's known date.")
        parser.add_argument("--strict", action="store_true", help="Fail when any result cannot be imported.")

    def handle(self, *args, paths, round, published, strict, **options):
        at = None
        if published:
            try:
                at = datetime.fromisoformat(published).replace(tzinfo=UTC)
            except ValueError:
                raise CommandError(f"--published: '{published}' is not a date (YYYY-MM-DD)") from None
        records = []
        for path in paths:
            try:
                records += read_source(path, round)
            except SourceError as exc:
                raise CommandError(str(exc)) from None
        try:
            report = import_records(unique(records), published=at)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        print_report(self, report, strict=strict)
