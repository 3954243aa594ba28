from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Benchmarking agents"

    def ready(self):
        from . import (
            agent_runtime,  # noqa: F401  (connects the agent's registration and heartbeat to worker start)
            checks,  # noqa: F401  (registers the system checks)
            schedules,  # noqa: F401  (seeds a new agent's daily schedule on agents.signals)
        )
