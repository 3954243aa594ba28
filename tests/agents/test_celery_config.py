"""Config lint: the reliability settings every task relies on (RELIABILITY.md, docs/operations.md)."""

from django.conf import settings

from agents.management.commands.run_agent import worker_argv
from agents.tasks import run_job
from inferledger.celery import app


def _our_tasks():
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_it_keeps_every_task_within_the_visibility_timeout():
    visibility_timeout_s = app.conf.broker_transport_options["visibility_timeout"]
    tasks = _our_tasks()
    assert "agents.run_job" in tasks and "agents.ingest_job_result" in tasks
    for name, task in tasks.items():
        time_limit_s = task.time_limit or app.conf.task_time_limit
        backoff_s = task.retry_backoff_max if getattr(task, "autoretry_for", ()) else 0
        assert time_limit_s, f"{name} has no hard time limit"
        assert task.soft_time_limit or app.conf.task_soft_time_limit, f"{name} has no soft time limit"
        assert time_limit_s + backoff_s < visibility_timeout_s, name


def test_it_sets_the_visibility_timeout_in_all_three_places():
    timeout_s = settings.CELERY_VISIBILITY_TIMEOUT_S
    assert app.conf.broker_transport_options["visibility_timeout"] == timeout_s
    assert app.conf.result_backend_transport_options["visibility_timeout"] == timeout_s
    assert app.conf.visibility_timeout == timeout_s


def test_it_acks_benchmark_tasks_late_and_requeues_them_when_the_worker_is_lost():
    assert run_job.acks_late and run_job.reject_on_worker_lost
    assert app.conf.task_acks_on_failure_or_timeout  # a timed-out benchmark is not redelivered
    assert run_job.time_limit == settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S


def test_it_waits_out_a_database_outage_in_process_never_with_countdown_retries():
    # Celery's autoretry re-sends a countdown (ETA) message and acks the task when its retries run out:
    # a PostgreSQL outage longer than the budget lost results, and a worker holding an ETA message died on
    # a Redis restart (issue 17). Control tasks wait in-process instead (agents.control), up to an hour.
    assert settings.INFERLEDGER_DB_OUTAGE_MAX_S >= 3600
    for name, task in _our_tasks().items():
        assert not getattr(task, "autoretry_for", ()), name
        if name != "agents.run_job":
            assert task.soft_time_limit > settings.INFERLEDGER_DB_OUTAGE_MAX_S, name
            assert task.time_limit > task.soft_time_limit, name


def test_it_runs_agents_with_a_prefetch_of_one_on_their_own_queue():
    assert app.conf.worker_prefetch_multiplier == 1
    argv = worker_argv("gpu01")
    assert argv[argv.index("--prefetch-multiplier") + 1] == "1" and argv[argv.index("--concurrency") + 1] == "1"
    assert argv[argv.index("--queues") + 1] == "agent.gpu01"
    assert app.conf.task_default_queue == settings.INFERLEDGER_CONTROL_QUEUE


def test_it_runs_the_reaper_periodically():
    entry = settings.CELERY_BEAT_SCHEDULE["inferledger-reap-jobs"]
    assert entry["task"] == "agents.reap_jobs" and entry["schedule"] <= 60


def test_it_warns_when_the_visibility_timeout_is_shorter_than_the_longest_job(settings):
    from agents.checks import visibility_timeout_covers_the_longest_job

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert visibility_timeout_covers_the_longest_job(None) == []
    settings.CELERY_VISIBILITY_TIMEOUT_S = 3600
    (warning,) = visibility_timeout_covers_the_longest_job(None)
    assert warning.id == "agents.W001" and "CELERY_VISIBILITY_TIMEOUT_S=3600" in warning.msg
