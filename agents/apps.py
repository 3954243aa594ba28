from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"
    verbose_name = "Benchmarking agents"

    def ready(self):
        from . import checks  # noqa: F401  (registers the system checks)
