"""Declare a request trace for jobs from its file (Mooncake JSONL, vLLM bench's custom JSONL, ShareGPT JSON)."""

from pathlib import Path

from django.core.management.base import CommandError

from agents.traces import TraceDeclarationError, trace_declare
from harness.endpoints.trace import FORMATS
from inferledger.commands import InputCheckedCommand


class Command(InputCheckedCommand):
    atomic = True
    help = (
        "Store a request trace under a name so that jobs can replay it against an endpoint (trace=NAME); its runs "
        "are the workload trace:NAME. A malformed trace is refused naming its line and field."
    )

    def add_arguments(self, parser):
        parser.add_argument("name", help="Its workload id is trace:NAME (lowercase letters, digits, '.', '_', '-')")
        parser.add_argument("file", help="The trace file")
        parser.add_argument("--format", required=True, choices=FORMATS, help="How the file records its requests")
        parser.add_argument("--title", default="", help="A title shown beside the name")

    def handle(self, *args, name, file, format, title, **options):  # noqa: A002
        try:
            content = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"{file}: {exc}") from None
        try:
            record = trace_declare(name=name, format=format, content=content, title=title)
        except TraceDeclarationError as exc:
            raise CommandError(f"{file}: {exc}") from None
        stated = record.distributions
        arrivals = stated.get("arrivals") or {}
        rate = arrivals.get("mean_rate_per_s")
        self.stdout.write(
            f"Declared {record.workload_id} ({record.format}, {stated['requests']} requests, "
            + (f"{rate:.3g} requests/s over {arrivals['duration_s']:.1f} s" if rate else "no arrival times")
            + f", sha256 {record.sha256[:12]}); jobs name it as trace={record.name!r} beside an endpoint"
        )
