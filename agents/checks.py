"""System checks: name a Celery setting that would make a long job run twice, before it happens."""

from django.conf import settings
from django.core.checks import Warning, register


@register()
def visibility_timeout_covers_the_longest_job(app_configs, **kwargs):
    longest_s = settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S + settings.INFERLEDGER_RETRY_BACKOFF_MAX_S
    if settings.CELERY_BROKER_URL and settings.CELERY_VISIBILITY_TIMEOUT_S <= longest_s:
        return [
            Warning(
                f"CELERY_VISIBILITY_TIMEOUT_S={settings.CELERY_VISIBILITY_TIMEOUT_S} is not above the longest job "
                f"plus retry backoff ({longest_s} s): Redis would hand a long job to a second worker while it runs.",
                hint="Raise CELERY_VISIBILITY_TIMEOUT_S, or lower INFERLEDGER_JOB_TIME_LIMIT_MAX_S; "
                "see docs/operations.md.",
                id="agents.W001",
            )
        ]
    return []
