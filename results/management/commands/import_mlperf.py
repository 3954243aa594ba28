from datetime import UTC, datetime
from pathlib import Path

from django.core.management.base import CommandError

from inferledger.commands import InputCheckedCommand
from results.mlperf.adopt import adopt_stored
from results.mlperf.sources import SourceError, read_source, unique
from results.mlperf.store import MissingPublicationDate, import_records
from results.models import HeldReason


def print_report(command, report, *, strict: bool) -> None:
    """One line per reason with its count (and one example path); --strict turns any skip into an error."""
    command.stdout.write(
        f"{report.imported} imported, {report.already_imported} already imported, {report.skipped_count} skipped"
    )
    if report.held:
        command.stdout.write(f"  {sum(report.held.values())} held (stored as published, not ranked):")
    if report.undeclared:
        command.stdout.write(f"  {report.undeclared} stored under a benchmark the registry does not declare "
                             "(not declared: ranked only against itself)")  # fmt: skip
    for kind, count in report.held.most_common():
        command.stdout.write(f"    held {count:>4} x {HeldReason(kind).label}  (e.g. {report.example[kind]})")
    for reason, count in report.skipped.most_common():
        command.stdout.write(f"  skipped {count:>4} x {reason}  (e.g. {report.example[reason]})")
    if strict and report.skipped:
        raise CommandError(f"--strict: {report.skipped_count} result(s) not importable ({len(report.skipped)} reasons)")


def parse_published(values: list[str], rounds: set[str]) -> dict[str, datetime]:
    """--published YYYY-MM-DD (every round read) or ROUND=YYYY-MM-DD (repeatable) -> round -> UTC date."""
    dates = {}
    for value in values or []:
        round_name, _, day = value.rpartition("=")
        try:
            at = datetime.fromisoformat(day).replace(tzinfo=UTC)
        except ValueError:
            raise CommandError(f"--published: '{value}' is not YYYY-MM-DD or ROUND=YYYY-MM-DD") from None
        for name in [round_name] if round_name else rounds:
            dates[name] = at
    return dates


class Command(InputCheckedCommand):
    atomic = True  # every file of the run, or nothing
    requires_system_checks = []  # a data command: skip URL/API checks (they import the whole web stack)
    help = (
        "Import every published MLPerf Inference result of result trees (directories or .tar.xz archives) and of "
        "MLCommons' results tables (.json) as external runs, with the published figure exactly as published. "
        "Idempotent; a result in a tree and a table is stored once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", type=Path, help="Tree roots (holding closed/, open/), archives, tables."
        )
        parser.add_argument(
            "--round", help="MLPerf Inference round (e.g. v4.1) of paths whose name does not say ('..._v5.1_...')."
        )
        parser.add_argument(
            "--published", action="append", default=[],
            help="Publication date of a round whose date is neither known nor in its data: ROUND=YYYY-MM-DD "
            "(repeatable), or YYYY-MM-DD for every round read.",
        )  # fmt: skip
        parser.add_argument("--strict", action="store_true", help="Fail when any result cannot be imported.")

    def handle(self, *args, paths, round, published, strict, **options):
        records = []
        for path in paths:
            try:
                records += read_source(path, round)
            except SourceError as exc:
                raise CommandError(str(exc)) from None
        dates = parse_published(published, {record.round for record in records})
        try:
            report = import_records(unique(records), published=dates)
        except MissingPublicationDate as exc:
            raise CommandError(str(exc)) from None
        print_report(self, report, strict=strict)
        adopted = adopt_stored()
        if adopted.imported:
            self.stdout.write(f"{adopted.imported} stored earlier now declared or in the catalog, taken up")
