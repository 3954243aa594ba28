"""Signals inside the fleet, so the dependency between its modules stays one-way."""

from django.dispatch import Signal

# Sent inside the transaction that first registers an agent while a broker is configured; kwargs: agent (Agent).
# agents.schedules seeds the agent's daily schedule on it, so the registry does not depend on schedules (and jobs).
agent_first_registered = Signal()
