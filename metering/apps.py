from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class MeteringConfig(AppConfig):
    name = "metering"
    verbose_name = "Production metering"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounting.rankings.cache import forget_data_version, register_data_version_part
        from metering.models import MeteredAlarm
        from metering.selectors import open_alarms_version

        # The overview shows the open alarms of metered deployments per data version (dashboard.views.overview):
        # a new, acknowledged or deleted alarm changes it, at once through the cache's generation counter, and in
        # every process within accounting.rankings.cache.DATA_VERSION_SECONDS through the database part.
        register_data_version_part("metered-alarms", open_alarms_version)
        for signal in (post_save, post_delete):
            signal.connect(forget_data_version, sender=MeteredAlarm, dispatch_uid="metering.version.MeteredAlarm")
