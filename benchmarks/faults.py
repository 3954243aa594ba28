"""Fault injection on the production layout, with services of our own (issue 17): nothing lost, nothing twice.

A PostgreSQL and a Redis of our own (on free ports, or FAULTS_PG_PORT / FAULTS_REDIS_PORT; data in a temporary
folder), a control worker with an embedded beat, supervised (restarted when it exits, as systemd's Restart=always
does), and one agent running 1-item jobs (a tiny single-stream measurement each). Scenarios:

  pg-outage       PostgreSQL stopped OUTAGE_S while the jobs run and report  -> every run stored once
  redis-aof       Redis (AOF on) shut down and restarted during the jobs    -> every job ends, 0 lost
  redis-none      the same with no persistence (queued messages are lost)   -> every job ends, 0 lost
  agent-kill      kill -9 of the whole agent, 3 times, restarted each time  -> every run stored once
  redis-running   Redis (AOF on) restarted while one long job runs          -> the job is sent again (or failed
                  with the reason) within RUNNING_JOB_BOUND_S of Redis's return, not at its deadline; run once

Prints one line of figures per scenario and exits 1 when one misses its target:
jobs succeeded / failed with a reason / lost silently (still active, or failed without a reason), jobs
with exactly one stored run, extra runs, seconds until the last job ended, control-worker restarts
and whether it is alive, and what the status endpoint's data says about the broker.

    .venv/bin/python benchmarks/faults.py                      # all four, 10 jobs each
    .venv/bin/python benchmarks/faults.py --scenario pg-outage --jobs 10 --outage-s 30
    .venv/bin/python benchmarks/faults.py --scenario redis-running   # not in "all": one job, its own figures
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.faultkit import PostgreSQL, Processes, Redis, port_from_env, wait_until  # noqa: E402

SCENARIOS = ("pg-outage", "redis-aof", "redis-none", "agent-kill")
RUNNING_SCENARIO = "redis-running"
DB_NAME, AGENT = "inferledger_faults", "fault-agent"
JOB_SPEC = {"workloads": ["tabular"], "scenarios": ["single-stream"], "backends": ["eager"], "precisions": ["fp32"],
            "min_duration_ms": 300, "min_query_count": 16, "rounds": 1, "time_limit_s": 60}  # fmt: skip
END_WITHIN_S = 600  # every job must end (succeeded, or failed with a reason) within 10 minutes
# Short timings so a run takes minutes (production: hours); the same variables as docs/operations.md.
WORKER_ENV = {"INFERLEDGER_AGENT_HEARTBEAT_S": "2", "INFERLEDGER_REAPER_INTERVAL_S": "2",
              "INFERLEDGER_CONTROL_HEARTBEAT_S": "2", "INFERLEDGER_LOST_JOB_GRACE_S": "10",
              "INFERLEDGER_JOB_REPORT_GRACE_S": "10", "PYTHONUNBUFFERED": "1"}  # fmt: skip
# redis-running: one item measuring for 40 s, so Redis restarts mid-measurement; its deadline (time limit + report
# grace) is 310 s after it starts, the moment the reaper would end it without the agent's heartbeats.
LONG_JOB_SPEC = JOB_SPEC | {"min_duration_ms": 40_000, "time_limit_s": 300}
# A running job lost with the broker is sent again within one heartbeat + the grace + one reaper interval of the
# broker's return (agents.jobs.jobs_recover_lost); 30 s more for the workers to reconnect on a loaded host.
RECONNECT_ALLOWANCE_S = 30
RECOVERY_TIMERS = ("INFERLEDGER_AGENT_HEARTBEAT_S", "INFERLEDGER_LOST_JOB_GRACE_S", "INFERLEDGER_REAPER_INTERVAL_S")
RUNNING_JOB_BOUND_S = sum(int(WORKER_ENV[name]) for name in RECOVERY_TIMERS) + RECONNECT_ALLOWANCE_S


def _db(call):
    """Run an ORM read from this process, reconnecting after the database came back."""
    from django.db import connection

    connection.close_if_unusable_or_obsolete()
    try:
        return call()
    except Exception:
        connection.close()
        return None


def _jobs(ids):
    from agents.models import Job

    return list(Job.objects.filter(pk__in=ids))


def _ended(ids) -> bool:
    jobs = _db(lambda: _jobs(ids))
    return bool(jobs) and all(job.state in ("succeeded", "failed", "cancelled") for job in jobs)


def _any_running_or_done(ids, count: int = 1) -> bool:
    jobs = _db(lambda: _jobs(ids)) or []
    return sum(job.state != "queued" for job in jobs) >= count


def _running(ids) -> bool:
    jobs = _db(lambda: _jobs(ids)) or []
    return bool(jobs) and all(job.state == "running" for job in jobs)


def _recovered(ids) -> bool:
    """Sent again by the reaper, or ended (the agent carried on through the restart)."""
    jobs = _db(lambda: _jobs(ids)) or []
    return bool(jobs) and all(job.redispatches > 0 or job.state in ("succeeded", "failed") for job in jobs)


def _figures(name: str, ids: list, started: float, processes: Processes, ended: bool) -> dict:
    from django.db.models import Count

    from agents.models import ControlWorker, Job
    from results.models import BenchmarkRun

    jobs = list(Job.objects.filter(pk__in=ids))
    runs_per_job = dict(
        BenchmarkRun.objects.filter(job__in=ids).values_list("job").annotate(n=Count("id")).values_list("job", "n")
    )
    succeeded = sum(job.state == "succeeded" for job in jobs)
    failed_with_reason = sum(job.state == "failed" and bool(job.error.strip()) for job in jobs)
    control = ControlWorker.objects.order_by("-last_seen_at").first()
    return {
        "scenario": name,
        "jobs": len(ids),
        "succeeded": succeeded,
        "failed_with_reason": failed_with_reason,
        "failures": sorted({job.error[:120] for job in jobs if job.state == "failed"}),
        "lost_silently": len(ids) - succeeded - failed_with_reason,
        "stored_once": sum(runs_per_job.get(job.pk, 0) == 1 for job in jobs),
        "extra_runs": sum(max(0, n - 1) for n in runs_per_job.values()),
        "max_attempts": max((job.attempts for job in jobs), default=0),
        "ended_within_s": round(time.monotonic() - started, 1) if ended else None,
        "control_restarts": processes.control_starts - 1,
        "control_alive": processes.control_proc is not None and processes.control_proc.poll() is None,
        "control_status": control.status if control else "never reported",
        "broker_warning": (control.broker_warning[:80] if control else ""),
    }


def _passes(figures: dict) -> bool:
    ended = figures["ended_within_s"] is not None and figures["lost_silently"] == 0 and figures["control_alive"]
    if figures["scenario"] == RUNNING_SCENARIO:
        recovered = figures["recovered_within_s"] is not None and figures["recovered_within_s"] <= figures["bound_s"]
        return ended and recovered and figures["stored_once"] == figures["jobs"] and figures["extra_runs"] == 0
    if figures["scenario"] in ("pg-outage", "agent-kill"):
        return ended and figures["stored_once"] == figures["jobs"] and figures["extra_runs"] == 0
    return ended and figures["extra_runs"] == 0


def _scenario(name: str, base: Path, pg: PostgreSQL, redis_port: int, *, jobs: int, outage_s: float) -> dict:
    from agents.jobs import job_create
    from agents.models import Agent, ControlWorker, Job, JobSchedule
    from agents.registry import agent_enroll
    from results.models import BenchmarkRun, QuarantinedPayload

    # Schedules before agents: an enrolled agent gets its daily schedule, which protects the agent it names.
    for model in (Job, JobSchedule, BenchmarkRun, QuarantinedPayload, ControlWorker, Agent):
        model.objects.all().delete()
    log_dir = base / f"logs-{name}"
    log_dir.mkdir()
    redis = Redis(base, persistent=name != "redis-none", port=redis_port)
    redis.start()
    # A job (a few seconds) must fit in the visibility timeout; the outage must too (control tasks wait it out).
    visibility_s = {"pg-outage": int(outage_s) + 60, "agent-kill": 6, RUNNING_SCENARIO: 600}.get(name, 20)
    env = {k: v for k, v in os.environ.items()} | WORKER_ENV | {"CELERY_VISIBILITY_TIMEOUT_S": str(visibility_s)}
    processes = Processes(env, log_dir)
    try:
        processes.supervise_control()
        _agent, secret = agent_enroll(name=AGENT)
        agent_proc = processes.agent(AGENT, secret)
        wait_until(lambda: _db(lambda: Agent.objects.exclude(devices=[]).filter(name=AGENT).exists()),
                   timeout_s=180, what="the agent to register")  # fmt: skip
        agent = Agent.objects.get(name=AGENT)
        spec = LONG_JOB_SPEC if name == RUNNING_SCENARIO else JOB_SPEC
        ids = [job_create(spec=dict(spec), agent=agent).pk for _ in range(jobs)]
        started = time.monotonic()
        recovered_within_s = None
        if name == RUNNING_SCENARIO:
            # Restart Redis while the job measures; then time how long until it is sent again or ends.
            wait_until(lambda: _running(ids), timeout_s=180, what="the job to start")
            time.sleep(8)  # loaded and measuring (40 s)
            redis.stop()
            time.sleep(5)
            redis.start()
            back = time.monotonic()
            wait_until(lambda: _recovered(ids), timeout_s=END_WITHIN_S, interval_s=0.5, what="the job to recover")
            recovered_within_s = round(time.monotonic() - back, 1)
        elif name == "pg-outage":
            wait_until(lambda: _any_running_or_done(ids), timeout_s=120, what="the first job to start")
            pg.stop()
            time.sleep(outage_s)
            pg.start()
        elif name.startswith("redis"):
            wait_until(lambda: _any_running_or_done(ids, 3), timeout_s=180, what="three jobs to start")
            redis.stop()
            time.sleep(5)
            redis.start()
        else:
            for kill in range(3):
                wait_until(lambda k=kill: _any_running_or_done(ids, 2 + 3 * k), timeout_s=180, what="a running job")
                time.sleep(0.5)
                processes.kill(agent_proc)  # its job comes back once the visibility timeout has passed
                agent_proc = processes.agent(AGENT, secret)
        try:
            wait_until(lambda: _ended(ids), timeout_s=END_WITHIN_S, interval_s=1, what="every job to end")
            ended = True
        except TimeoutError:
            ended = False
        time.sleep(3)  # late duplicates, if any, would land now
        figures = _figures(name, ids, started, processes, ended)
        if name == RUNNING_SCENARIO:
            figures |= {"recovered_within_s": recovered_within_s, "bound_s": RUNNING_JOB_BOUND_S,
                        "deadline_s": LONG_JOB_SPEC["time_limit_s"] + int(WORKER_ENV["INFERLEDGER_JOB_REPORT_GRACE_S"]),
                        "redispatches": max(job.redispatches for job in _jobs(ids))}  # fmt: skip
        return figures
    except Exception:
        print(processes.tail(), file=sys.stderr)
        raise
    finally:
        processes.stop_all()
        redis.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=[*SCENARIOS, RUNNING_SCENARIO, "all"], default="all")
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument("--outage-s", type=float, default=30.0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="inferledger-faults-"))
    pg = PostgreSQL(base)
    pg.init()
    pg.start()
    try:
        pg.create_database(DB_NAME)
        redis_port = port_from_env("FAULTS_REDIS_PORT")  # one port for every scenario: the broker URL names it
        redis_url = Redis(base, persistent=False, port=redis_port).url()
        os.environ.update(DATABASE_URL=pg.url(DB_NAME), CELERY_BROKER_URL=redis_url, CONN_MAX_AGE="0",
                          DJANGO_SETTINGS_MODULE="inferledger.settings")  # fmt: skip
        os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # the control plane's; agents get none
        os.environ.pop("TEST_DATABASE_NAME", None)
        import django

        django.setup()
        from django.core.management import call_command

        from hardware_catalog.services import load_accelerators

        call_command("migrate", verbosity=0)
        load_accelerators()
        results = []
        for name in SCENARIOS if args.scenario == "all" else (args.scenario,):
            jobs = 1 if name == RUNNING_SCENARIO else args.jobs
            figures = _scenario(name, base, pg, redis_port, jobs=jobs, outage_s=args.outage_s)
            figures["passed"] = _passes(figures)
            results.append(figures)
            print(json.dumps(figures), flush=True)
    finally:
        try:
            pg.stop()
        except Exception as exc:  # already stopped by a failed scenario
            print(f"postgres stop: {exc}", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all(figures["passed"] for figures in results) else 1


if __name__ == "__main__":
    sys.exit(main())
