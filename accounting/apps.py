from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class AccountingConfig(AppConfig):
    name = "accounting"
    verbose_name = "Accounting"

    def ready(self):
        from accounting import handlers
        from accounting.models import CostAlarm
        from accounting.rankings.cache import forget_data_version
        from hardware_catalog.models import Accelerator, OnPremAssumptions, Price
        from results.models import BenchmarkRun
        from results.signals import published_stored, run_ingested

        for model in (BenchmarkRun, Price, OnPremAssumptions, Accelerator, CostAlarm):
            for signal in (post_save, post_delete):
                signal.connect(forget_data_version, sender=model, dispatch_uid=f"accounting.version.{model.__name__}")

        run_ingested.connect(handlers.on_run_ingested, dispatch_uid="accounting.run_ingested")
        published_stored.connect(handlers.on_published_stored, dispatch_uid="accounting.published_stored")
        post_save.connect(handlers.on_price_saved, sender=Price, dispatch_uid="accounting.price_saved")
        post_save.connect(
            handlers.on_assumptions_saved, sender=OnPremAssumptions, dispatch_uid="accounting.assumptions_saved"
        )
