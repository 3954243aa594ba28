"""Results stored before their benchmark was declared or their part was in the catalog, taken up without a re-import.

A result of a benchmark the registry did not declare is a run of ``mlperf:<name>``; one whose accelerator the catalog
did not know is held (HeldPublishedResult) with its record. Once the registry declares the benchmark or the catalog
learns the part, ``adopt_stored`` stores them again from what the database holds (the run's payload is the record it
was stored from), through the same import, so a result adopted is exactly the result a fresh import would store.
"""

from __future__ import annotations

from dataclasses import fields

from django.db import transaction

import workloads
from results.models import BenchmarkRun, HeldPublishedResult, HeldReason, RunOrigin

from .store import ImportReport, import_records
from .tree import Record

_RECORD_FIELDS = {f.name for f in fields(Record)}


def _record(stored: dict) -> Record:
    return Record(**{key: value for key, value in stored.items() if key in _RECORD_FIELDS})


def _declared_now(run: BenchmarkRun) -> bool:
    try:
        workloads.published_benchmark(run.payload.get("mapped_benchmark") or run.payload.get("benchmark") or "")
    except workloads.UnknownWorkload:
        return False
    return True


def adopt_stored() -> ImportReport:
    """Store again the undeclared results the registry declares now and the held results whose part the catalog
    may know now; the rest stay as they are. Idempotent."""
    undeclared = BenchmarkRun.objects.filter(origin=RunOrigin.EXTERNAL, model_class=workloads.UNDECLARED)
    declared = [run for run in undeclared.only("id", "payload") if _declared_now(run)]
    held = list(HeldPublishedResult.objects.filter(reason_kind=HeldReason.NO_CATALOG_ENTRY).only("record"))
    if not declared and not held:
        return ImportReport()
    records = [_record(run.payload) for run in declared] + [_record(row.record) for row in held]
    with transaction.atomic():
        BenchmarkRun.objects.filter(pk__in=[run.pk for run in declared]).delete()  # with its point and snapshots
        return import_records(records)


def adopt_after_commit(**kwargs) -> None:
    """After the transaction that adds a catalog part commits: adopt what it may match (a no-op when nothing is
    held or undeclared; a rolled-back transaction adopts nothing)."""
    transaction.on_commit(adopt_stored)
