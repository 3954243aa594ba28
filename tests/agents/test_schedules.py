"""Schedules in django-celery-beat: API creation, per-agent seeding, one job per slot."""

from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django_celery_beat.models import PeriodicTask

from agents.models import Job, JobSchedule
from agents.registry import agent_register
from agents.schedules import schedule_create, schedule_fire

pytestmark = pytest.mark.django_db
CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def agent(catalog):
    return agent_register(report={"name": "gpu01", "devices": CPU})


def test_it_creates_one_job_when_two_beats_fire_the_same_slot(agent, django_capture_on_commit_callbacks):
    schedule = schedule_create(name="hourly", spec={"workloads": ["tabular"]}, agent=agent, every_s=3600)
    slot = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
    with django_capture_on_commit_callbacks(execute=False):
        first = schedule_fire(schedule_id=schedule.pk, at=slot + timedelta(seconds=2))
        second = schedule_fire(schedule_id=schedule.pk, at=slot + timedelta(seconds=9))  # the other beat
        next_slot = schedule_fire(schedule_id=schedule.pk, at=slot + timedelta(hours=1, seconds=1))
    assert first.pk == second.pk and first.slot_start == slot and next_slot.pk != first.pk
    assert Job.objects.filter(schedule=schedule).count() == 2
    assert first.workloads == ["tabular"] and first.agent == agent


def test_it_creates_a_schedule_through_the_api_for_beat(staff_api, agent):
    response = staff_api.post(
        "/api/v1/schedules/", {"name": "nightly", "agent": "gpu01", "crontab": "30 2 * * *", "suite": "quick"},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.data
    task = JobSchedule.objects.get(name="nightly").periodic_task
    assert task.task == "agents.fire_schedule" and task.crontab.hour == "2" and task.queue == "control"
    assert str(response.data["id"]) in task.kwargs


def test_it_refuses_a_schedule_without_timing_or_with_a_bad_spec(staff_api, agent):
    response = staff_api.post("/api/v1/schedules/", {"name": "x", "agent": "gpu01"}, format="json")
    assert response.status_code == 400 and "every_s" in response.data
    response = staff_api.post(
        "/api/v1/schedules/", {"name": "x", "agent": "gpu01", "every_s": 3600, "precisions": ["fp4"]}, format="json"
    )
    assert response.status_code == 400 and "precisions" in response.data


def test_it_seeds_a_daily_quick_suite_for_a_new_agent_when_a_broker_is_configured(catalog, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    agent = agent_register(report={"name": "gpu02", "devices": CPU})
    agent_register(report={"name": "gpu02", "devices": CPU})  # re-registration seeds nothing more
    schedule = JobSchedule.objects.get(agent=agent)
    assert schedule.suite == "quick" and schedule.periodic_task.crontab.hour == "3"
    assert PeriodicTask.objects.filter(task="agents.fire_schedule").count() == 1


def test_it_seeds_no_schedule_in_the_embedded_default(agent):
    assert not JobSchedule.objects.exists()


def test_an_agent_enrolled_before_its_first_registration_gets_its_daily_quick_suite(catalog, settings):
    from django.core.management import call_command

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    call_command("enroll_agent", "gpu03", stdout=StringIO(), stderr=StringIO())  # creates the agent's row
    assert not JobSchedule.objects.exists()
    agent = agent_register(report={"name": "gpu03", "devices": CPU})
    schedule = JobSchedule.objects.get(agent=agent)
    assert schedule.name == "daily quick suite on gpu03" and schedule.periodic_task.crontab.hour == "3"
    agent_register(report={"name": "gpu03", "devices": CPU})  # a later registration seeds nothing more
    assert JobSchedule.objects.count() == 1


def test_a_deleted_schedule_takes_its_beat_task_with_it(agent):
    schedule = schedule_create(name="hourly", spec={"workloads": ["tabular"]}, agent=agent, every_s=3600)
    JobSchedule.objects.filter(pk=schedule.pk).delete()  # a queryset delete, as the admin's bulk action does
    assert not PeriodicTask.objects.filter(name__endswith="hourly").exists()  # beat no longer fires it


def test_an_agent_deleted_and_enrolled_again_under_its_name_registers_and_gets_its_daily_schedule(catalog, settings):
    """Deleting an agent (its schedule first: the schedule protects the agent it names) and enrolling a host of
    the same name: its first registration seeds the daily schedule again. It failed on the beat task the deleted
    schedule had left behind, which held the name, so the new agent never registered (issue 26's fault suite)."""
    from agents.models import Agent
    from agents.registry import agent_enroll

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    agent_enroll(name="gpu04")
    agent_register(report={"name": "gpu04", "devices": CPU})
    JobSchedule.objects.all().delete()
    Agent.objects.filter(name="gpu04").delete()

    agent_enroll(name="gpu04")
    agent = agent_register(report={"name": "gpu04", "devices": CPU})

    assert agent.devices == CPU
    assert JobSchedule.objects.get(agent=agent).name == "daily quick suite on gpu04"
    assert PeriodicTask.objects.filter(name__endswith="daily quick suite on gpu04").count() == 1


def test_a_beat_task_left_by_an_older_release_does_not_block_the_daily_schedule(catalog, settings):
    from django_celery_beat.models import CrontabSchedule

    from agents.schedules import PERIODIC_TASK_PREFIX

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    crontab = CrontabSchedule.objects.create(minute="0", hour="3")
    PeriodicTask.objects.create(  # what a schedule deleted before this release left behind
        name=f"{PERIODIC_TASK_PREFIX}daily quick suite on gpu05", task="agents.fire_schedule", crontab=crontab
    )
    agent = agent_register(report={"name": "gpu05", "devices": CPU})
    assert JobSchedule.objects.get(agent=agent).periodic_task.name.endswith("daily quick suite on gpu05")
