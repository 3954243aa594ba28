"""Fault injection against services of the tests' own (never the shared PostgreSQL and Redis): issue 17.

They start their own Redis (and, through benchmarks/faults.py, their own PostgreSQL) on free ports of their own,
so they need redis-server and PostgreSQL's server binaries installed, as CI has them.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.faultkit import Redis, wait_until

pytestmark = [pytest.mark.faults, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


def _worker(tmp_path: Path, broker_url: str) -> subprocess.Popen:
    env = os.environ | {"CELERY_BROKER_URL": broker_url, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
                        "PYTHONUNBUFFERED": "1", "SECRET_KEY": "faults-" + "k" * 50}  # fmt: skip
    env.pop("TEST_DATABASE_NAME", None)
    argv = [sys.executable, "-m", "celery", "-A", "inferledger", "worker", "--queues", "control",
            "--hostname", "control@faults", "--concurrency", "1", "--without-gossip", "--without-mingle",
            "--loglevel", "INFO"]  # fmt: skip
    log = open(tmp_path / "worker.log", "w")
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def test_it_keeps_a_worker_holding_a_countdown_message_alive_across_a_redis_restart(tmp_path):
    # Before the fix: "CRITICAL Unrecoverable error: AttributeError('NoneType' object has no attribute
    # 'hostname')" from kombu's restore of the held message, and the worker exited, 4 times out of 4.
    from inferledger.celery import app

    redis = Redis(tmp_path, persistent=True)
    redis.start()
    worker = _worker(tmp_path, redis.url())
    log = tmp_path / "worker.log"
    try:
        wait_until(lambda: "ready." in log.read_text(), timeout_s=120, what="the worker to start")
        with app.connection_for_write(redis.url()) as connection:
            app.send_task("agents.reap_jobs", countdown=120, connection=connection)  # held unacked, with an ETA
        wait_until(lambda: "received" in log.read_text(), timeout_s=30, what="the worker to take the message")
        redis.stop()
        time.sleep(2)
        redis.start()
        wait_until(lambda: log.read_text().count("Connected to") >= 2, timeout_s=60, what="the worker to reconnect")
        time.sleep(2)
        text = log.read_text()
        assert worker.poll() is None, text[-3000:]
        assert "Unrecoverable error" not in text and "Restoring 1 unacknowledged message(s)" in text
    finally:
        os.killpg(worker.pid, 9)
        worker.wait(timeout=30)
        redis.stop()


def test_it_loses_nothing_when_postgresql_or_redis_fail_or_the_agent_is_killed(tmp_path):
    """benchmarks/faults.py with its targets: 10 jobs per scenario, PostgreSQL down 30 s, Redis restarted with
    and without persistence, the agent kill -9'd three times. Its figures are printed (-s shows them)."""
    figures_path = tmp_path / "faults.json"
    env = {key: value for key, value in os.environ.items() if key != "TEST_DATABASE_NAME"}
    done = subprocess.run([sys.executable, "benchmarks/faults.py", "--json", str(figures_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1500)  # fmt: skip
    print(done.stdout)
    assert figures_path.exists(), done.stderr[-4000:]
    figures = {entry["scenario"]: entry for entry in json.loads(figures_path.read_text())}
    assert set(figures) == {"pg-outage", "redis-aof", "redis-none", "agent-kill"}
    for entry in figures.values():
        assert entry["lost_silently"] == 0 and entry["ended_within_s"] is not None, entry
        assert entry["control_alive"] and entry["extra_runs"] == 0, entry
    assert figures["pg-outage"]["stored_once"] == figures["pg-outage"]["succeeded"] == 10
    assert figures["agent-kill"]["stored_once"] == 10
    assert figures["redis-none"]["broker_warning"] and not figures["redis-aof"]["broker_warning"]
    assert done.returncode == 0, done.stderr[-4000:]


def test_it_sends_a_running_job_again_soon_after_a_redis_restart_not_at_its_deadline(tmp_path):
    """benchmarks/faults.py --scenario redis-running: Redis (AOF, its own, on a free port) restarted while one job
    measures for 40 s. The agent's task is cancelled and its message is not redelivered within the visibility
    timeout; before, the job waited for its deadline (time limit 300 s + grace 10 s: it recovered after 349 s)."""
    figures_path = tmp_path / "running.json"
    env = {key: value for key, value in os.environ.items() if key != "TEST_DATABASE_NAME"}
    argv = [sys.executable, "benchmarks/faults.py", "--scenario", "redis-running", "--json", str(figures_path)]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    print(done.stdout)
    assert figures_path.exists(), done.stderr[-4000:]
    (figures,) = json.loads(figures_path.read_text())
    # The bound: heartbeat 2 s + grace 10 s + reaper 2 s (faults.py's timings) + 30 s to reconnect = 44 s.
    print(f"redis-running: recovered {figures['recovered_within_s']} s after Redis came back; bound "
          f"{figures['bound_s']} s; its deadline {figures['deadline_s']} s")  # fmt: skip
    assert figures["bound_s"] == 44 and figures["recovered_within_s"] <= figures["bound_s"], figures
    assert figures["succeeded"] == 1 and figures["lost_silently"] == 0, figures  # nothing lost
    assert figures["stored_once"] == 1 and figures["extra_runs"] == 0, figures  # nothing duplicated
    assert done.returncode == 0, done.stderr[-4000:]
