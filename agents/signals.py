"""Signals other apps listen to, so the dependency stays one-way (accounting -> agents)."""

from django.dispatch import Signal

# Sent after the transaction that stored a run has committed; kwargs: run (BenchmarkRun).
run_ingested = Signal()

# Sent inside the transaction that first registers an agent while a broker is configured; kwargs: agent (Agent).
# agents.schedules seeds the agent's daily schedule on it, so the registry does not depend on schedules (and jobs).
agent_first_registered = Signal()
