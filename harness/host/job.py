"""What an agent does with a job: run its items with the harness and hand each result on. Django-free.

Each run's UUID is derived from the job and the item, so a job re-run after a crash reproduces the
same run ids and ingest stores each item of a job once, however often it is delivered.
"""

from __future__ import annotations

import dataclasses
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.endpoints.run import run_endpoint_items
from harness.result import validate_result
from harness.suite import Failure, Skip, run_suite

from .plan import plan_items

RUN_ID_NAMESPACE = uuid.UUID("6f1c2a52-0d7e-4f4e-9d55-6a1b7b0c2e11")


# A job's error keeps the end of each traceback (where it was raised) within this many characters.
TRACEBACK_MAX_CHARS = 8000


@dataclass
class JobReport:
    run_ids: list[str] = field(default_factory=list)
    skips: list[dict] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def error(self) -> str:
        """Why the job failed: each item that raised, its error, then the tracebacks; "" when none did."""
        if not self.failures:
            return ""
        lines = [f"{len(self.failures)} item(s) failed:"]
        lines += [f"{f.workload} {f.scenario} {f.backend}/{f.precision}: {f.error}" for f in self.failures]
        return "\n".join(lines) + "".join("\n\n" + f.traceback[-TRACEBACK_MAX_CHARS:] for f in self.failures)


def run_id_for(job_id: str, item_slug: str) -> str:
    """A name-based UUID shaped as version 4 (the result schema's run_id format), stable per job item."""
    return str(uuid.UUID(bytes=uuid.uuid5(RUN_ID_NAMESPACE, f"{job_id}/{item_slug}").bytes, version=4))


def execute_job(
    job_id: str,
    spec: dict,
    *,
    progress: Callable[[float, str], None],
    deliver: Callable[[dict], object],  # what it returns is not used
) -> JobReport:
    """Measure every item of the spec; ``deliver`` gets each validated payload, ``progress`` (percent, point)."""
    items = plan_items(spec)
    report = JobReport()

    def on_event(event: dict) -> None:
        where = " ".join(str(event.get(key)) for key in ("workload", "scenario", "point") if event.get(key))
        progress(round(100.0 * float(event.get("fraction") or 0.0), 2), where)

    with tempfile.TemporaryDirectory(prefix=f"inferledger-job-{job_id}-") as out_dir:
        run = run_endpoint_items if spec.get("endpoint") is not None else run_suite
        for item, result in zip(items, run(items, out_dir, progress=on_event), strict=True):
            if isinstance(result, Skip):
                report.skips.append(dataclasses.asdict(result))
                continue
            if isinstance(result, Failure):
                report.failures.append(result)
                continue
            result["run_id"] = run_id_for(job_id, item.slug)
            validate_result(result)
            deliver(result)
            report.run_ids.append(result["run_id"])
    return report
