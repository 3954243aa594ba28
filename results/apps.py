from django.apps import AppConfig
from django.db.models.signals import post_save


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Measured and published results"

    def ready(self):
        import workloads
        from hardware_catalog.models import Accelerator

        from .mlperf.undeclared import unit_of_undeclared

        workloads.lookup.set_undeclared_unit_source(unit_of_undeclared)
        post_save.connect(_on_accelerator_saved, sender=Accelerator, dispatch_uid="results.adopt_held")


def _on_accelerator_saved(sender, instance, created, raw=False, **kwargs):
    """A part entering the catalog may be the one held results name: they are matched once the catalog commits."""
    if created and not raw:
        from .mlperf.adopt import adopt_after_commit

        adopt_after_commit()
