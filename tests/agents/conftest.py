"""Real Celery workers for the integration tests: subprocesses on the test database and a flushed Redis DB.

Each worker gets its own process group so a crash test can `kill -9` it whole, and teardown always
does, before pytest-django flushes the tables the workers were writing to.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.service_preflight import redis_url

ROOT = Path(__file__).resolve().parents[2]
# Short enough that a job held by a killed worker is redelivered within seconds (production: hours).
TEST_VISIBILITY_TIMEOUT_S = 6


def wait_for(predicate, *, timeout_s: float, interval_s: float = 0.05, what: str = "condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _reset_producer_pools(app):
    """Forget pooled broker connections, so the next publish connects to the broker now configured."""
    from kombu import pools

    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def celery_broker(settings):
    """This process publishes to a real Redis (DB from TEST_REDIS_URL, flushed before and after)."""
    import redis

    from inferledger.celery import app

    url = redis_url()
    client = redis.Redis.from_url(url)
    client.flushdb()
    saved = {key: app.conf[key] for key in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=url, result_backend=None, task_always_eager=False)
    settings.CELERY_BROKER_URL = url
    _reset_producer_pools(app)
    yield client
    app.conf.update(saved)
    _reset_producer_pools(app)
    client.flushdb()


class Workers:
    """Starts worker subprocesses on the test database; kills them all (process groups) on teardown."""

    def __init__(self, env: dict, log_dir: Path):
        self.env, self.log_dir, self.procs = env, log_dir, []

    def start(self, argv: list[str], name: str, **extra_env) -> subprocess.Popen:
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env | extra_env,
            stdout=open(self.log_dir / f"{name}-{len(self.procs)}.log", "w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        proc.log_path = self.log_dir / f"{name}-{len(self.procs)}.log"
        self.procs.append(proc)
        return proc

    @staticmethod
    def wait_for_log(proc: subprocess.Popen, text: str, timeout_s: float = 60) -> None:
        wait_for(lambda: text in proc.log_path.read_text(), timeout_s=timeout_s, what=f"{text!r} in the log")

    def control(self, *extra: str, **extra_env) -> subprocess.Popen:
        argv = [sys.executable, "-m", "celery", "-A", "inferledger", "worker", "--queues", "control",
                "--hostname", "control@%h", "--concurrency", "2", "--without-gossip", "--without-mingle",
                "--loglevel", "INFO", *extra]  # fmt: skip
        return self.start(argv, "control", **extra_env)

    def agent(self, name: str, **extra_env) -> subprocess.Popen:
        """An enrolled agent (its signing secret issued now, or reused), as `run_agent --name NAME` runs it."""
        from agents.models import Agent
        from agents.registry import agent_enroll

        enrolled = Agent.objects.filter(name=name).exclude(signing_key="").first()
        secret = enrolled.signing_key if enrolled else agent_enroll(name=name)[1]
        argv = [sys.executable, "manage.py", "run_agent", "--name", name]
        return self.start(argv, f"agent-{name}", INFERLEDGER_AGENT_SECRET=secret, **extra_env)

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def logs(self) -> str:
        return "\n".join(f"--- {path.name}\n{path.read_text()[-4000:]}" for path in sorted(self.log_dir.glob("*.log")))

    def stop_all(self) -> None:
        for proc in self.procs:
            self.kill(proc)


@pytest.fixture
def workers(transactional_db, celery_broker, tmp_path):
    from django.db import connection

    db = connection.settings_dict
    env = {key: value for key, value in os.environ.items() if key != "TEST_DATABASE_NAME"}
    env |= {
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_BROKER_URL": redis_url(),
        "CELERY_VISIBILITY_TIMEOUT_S": str(TEST_VISIBILITY_TIMEOUT_S),
        "INFERLEDGER_AGENT_HEARTBEAT_S": "2",
        "PYTHONUNBUFFERED": "1",
    }
    started = Workers(env, tmp_path)
    yield started
    started.stop_all()
    print(started.logs())  # shown by pytest only when the test failed
