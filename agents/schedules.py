"""Job schedules: a spec plus django-celery-beat's PeriodicTask, which beat reads from the database.

A firing creates an ordinary job. The job is keyed by (schedule, slot_start), so two beats firing
the same slot create one job, not two.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask
from django_celery_beat.validators import crontab_validator

from .jobs import job_create, job_spec, spec_for_agent
from .jobspec import JobSpecError, validate_spec
from .models import Agent, Job, JobSchedule, JobState
from .signals import agent_first_registered

logger = logging.getLogger(__name__)

FIRE_TASK = "agents.fire_schedule"
DAILY_QUICK_CRONTAB = "0 3 * * *"
PERIODIC_TASK_PREFIX = "inferledger schedule: "
# The beat task is named after the schedule, within PeriodicTask.name's 200 characters.
MAX_SCHEDULE_NAME_LENGTH = PeriodicTask._meta.get_field("name").max_length - len(PERIODIC_TASK_PREFIX)
MIN_EVERY_S, MAX_EVERY_S = 60, 366 * 24 * 3600
CRONTAB_FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")


def _crontab(expression: str) -> CrontabSchedule:
    fields = expression.split()
    if len(fields) != 5:
        raise JobSpecError({"crontab": "expected 5 fields: minute hour day-of-month month day-of-week"})
    try:
        crontab_validator(" ".join(fields))
    except (ValidationError, ValueError, IndexError) as exc:
        reason = "; ".join(getattr(exc, "messages", [str(exc)]))
        raise JobSpecError({"crontab": f"not a valid crontab: {reason}"}) from None
    for name, value in zip(CRONTAB_FIELDS, fields, strict=True):
        if len(value) > CrontabSchedule._meta.get_field(name).max_length:
            raise JobSpecError({"crontab": f"the {name.replace('_', '-')} field is too long"})
    minute, hour, day_of_month, month_of_year, day_of_week = fields
    crontab, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month_of_year,
        day_of_week=day_of_week,
        timezone="UTC",
    )
    return crontab


def schedule_create(
    *,
    name: str,
    spec: dict,
    agent: Agent | None = None,
    accelerator=None,
    every_s: int | None = None,
    crontab: str = "",
) -> JobSchedule:
    """A schedule firing every ``every_s`` seconds or on a crontab (UTC), running ``spec`` on the selector."""
    validate_spec(spec_for_agent(spec), time_limit_max_s=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S)
    if bool(every_s) == bool(crontab):
        raise JobSpecError({"every_s": "give either every_s or crontab"})
    if every_s and not MIN_EVERY_S <= every_s <= MAX_EVERY_S:
        raise JobSpecError({"every_s": f"must be from {MIN_EVERY_S} to {MAX_EVERY_S} seconds"})
    if len(name) > MAX_SCHEDULE_NAME_LENGTH:
        raise JobSpecError({"name": f"at most {MAX_SCHEDULE_NAME_LENGTH} characters"})
    if agent is None and accelerator is None:
        raise JobSpecError({"agent": "give an agent, or an accelerator to pick an online agent with it"})
    with transaction.atomic():
        timing = (
            {"interval": IntervalSchedule.objects.get_or_create(every=every_s, period=IntervalSchedule.SECONDS)[0]}
            if every_s
            else {"crontab": _crontab(crontab)}
        )
        periodic_task = PeriodicTask.objects.create(
            name=f"{PERIODIC_TASK_PREFIX}{name}", task=FIRE_TASK, queue=settings.INFERLEDGER_CONTROL_QUEUE, **timing
        )
        schedule = JobSchedule.objects.create(
            name=name, periodic_task=periodic_task, agent=agent, accelerator=accelerator, **spec
        )
        periodic_task.kwargs = json.dumps({"schedule_id": schedule.pk})
        periodic_task.save(update_fields=["kwargs"])
    return schedule


@receiver(agent_first_registered)
def _seed_on_first_registration(sender, agent: Agent, **kwargs) -> None:
    schedule_seed_daily_quick(agent=agent)


@receiver(post_delete, sender=JobSchedule)
def _delete_beat_task(sender, instance: JobSchedule, **kwargs) -> None:
    """A schedule's beat task goes with it, however it is deleted (admin, API, a queryset): a task left behind
    would keep firing for a schedule that no longer exists and hold its name against a new one."""
    PeriodicTask.objects.filter(pk=instance.periodic_task_id).delete()


def schedule_seed_daily_quick(*, agent: Agent) -> JobSchedule | None:
    """One daily quick-suite schedule for a newly registered agent (none if one by that name exists).

    A beat task of that name with no schedule left behind (a schedule deleted before its beat task went with it,
    see _delete_beat_task) is removed first: it made the re-registration of an agent of the same name fail."""
    name = f"daily quick suite on {agent.name}"
    if JobSchedule.objects.filter(name=name).exists():
        return None
    PeriodicTask.objects.filter(name=f"{PERIODIC_TASK_PREFIX}{name}", inferledger_schedule__isnull=True).delete()
    return schedule_create(
        name=name, spec={"suite": "quick", "time_limit_s": 1800}, agent=agent, crontab=DAILY_QUICK_CRONTAB
    )


def slot_start(periodic_task: PeriodicTask, at: datetime) -> datetime:
    """The slot a firing at ``at`` belongs to: the interval period (from the epoch) or the crontab minute."""
    if periodic_task.interval_id:
        every_s = int(periodic_task.interval.schedule.run_every.total_seconds())
        return datetime.fromtimestamp(int(at.timestamp()) // every_s * every_s, tz=UTC)
    return at.astimezone(UTC).replace(second=0, microsecond=0)


def schedule_fire(*, schedule_id: int, at: datetime | None = None) -> Job | None:
    """Create the job for the current slot of a schedule, or return the one already created for it."""
    schedule = (
        JobSchedule.objects.select_related("periodic_task", "periodic_task__interval").filter(pk=schedule_id).first()
    )
    if schedule is None:
        return None
    slot = slot_start(schedule.periodic_task, at or timezone.now())
    existing = Job.objects.filter(schedule=schedule, slot_start=slot).first()
    if existing:
        return existing
    spec = job_spec(schedule)
    try:
        with transaction.atomic():
            return job_create(
                spec=spec, agent=schedule.agent, accelerator=schedule.accelerator, schedule=schedule, slot_start=slot
            )
    except IntegrityError:
        # Another beat's firing of the same slot committed first.
        return Job.objects.get(schedule=schedule, slot_start=slot)
    except JobSpecError as exc:
        # No agent to run it (e.g. none online with the accelerator): keep a failed job to show why.
        logger.warning("schedule %s: %s", schedule, exc)
        job, _ = Job.objects.get_or_create(
            schedule=schedule,
            slot_start=slot,
            defaults={
                **spec,
                "accelerator": schedule.accelerator,
                "state": JobState.FAILED,
                "error": str(exc),
                "finished_at": timezone.now(),
            },
        )
        return job
