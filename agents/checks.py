"""System checks: a Celery setting that would make a long job run twice, a broker that would lose queued jobs."""

from django.conf import settings
from django.core.checks import Warning, register


@register()
def visibility_timeout_covers_the_longest_job(app_configs, **kwargs):
    # The longest a message stays unacked: a whole job, or a control task waiting out a database outage.
    longest_s = max(
        settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S + settings.INFERLEDGER_RETRY_BACKOFF_MAX_S,
        settings.INFERLEDGER_DB_OUTAGE_MAX_S + settings.CELERY_TASK_TIME_LIMIT,
    )
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


@register()
def broker_persists_queued_jobs(app_configs, **kwargs):
    """A Redis without persistence loses every queued job on a restart, silently: say so at start."""
    from .broker_health import broker_persistence, persistence_warning

    if not settings.CELERY_BROKER_URL:
        return []
    warning = persistence_warning(broker_persistence())
    if not warning:
        return []
    return [Warning(warning, hint="See docs/operations.md, section Redis.", id="agents.W002")]
