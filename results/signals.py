"""Signals other apps listen to, so the dependency stays one-way (accounting -> results)."""

from django.dispatch import Signal

# Sent after the transaction that stored a run has committed; kwargs: run (BenchmarkRun).
run_ingested = Signal()
