"""Signals other apps listen to, so the dependency stays one-way (accounting -> results)."""

from django.dispatch import Signal

# Sent after the transaction that stored a run has committed; kwargs: run (BenchmarkRun).
run_ingested = Signal()

# Sent after published results were stored in bulk (results.mlperf, without run_ingested per run); kwargs:
# run_ids (the BenchmarkRun ids stored).
published_stored = Signal()
