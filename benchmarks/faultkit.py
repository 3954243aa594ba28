"""Services and processes of our own for the fault benchmark: a PostgreSQL and a Redis on their own ports and
data directories (never the shared ones), a supervised control worker (restarted when it exits, as
systemd's Restart=always would) and agents we can kill -9. Used by benchmarks/faults.py.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    """A TCP port nothing listens on now: a fixed one collides with whatever else the host runs (a leftover
    server of an earlier run, another checkout's tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_from_env(name: str) -> int:
    return int(os.environ[name]) if os.environ.get(name) else free_port()


def _run(argv: list[str], *, log: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run `argv`; on failure raise with its output and the tail of the server's `log`, which says why."""
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        log_tail = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}\n{done.stdout}{done.stderr}"
                           + (f"\n--- {log} ---\n{log_tail}" if log_tail else ""))  # fmt: skip
    return done


def wait_until(predicate, *, timeout_s: float, interval_s: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval_s)
    raise TimeoutError(f"timed out after {timeout_s} s waiting for {what}")


class PostgreSQL:
    """initdb + pg_ctl in a directory of our own; as root, run through `runuser -u postgres` (initdb refuses root)."""

    def __init__(self, base: Path, port: int | None = None):
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        bindir = Path(found[-1]).parent if found else Path(shutil.which("pg_ctl") or "pg_ctl").parent
        self.pg_ctl, self.initdb = str(bindir / "pg_ctl"), str(bindir / "initdb")
        self.data, self.log = base / "pgdata", base / "postgres.log"
        self.port = port or port_from_env("FAULTS_PG_PORT")
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def url(self, name: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def init(self) -> None:
        self.data.parent.mkdir(parents=True, exist_ok=True)
        if self.as_postgres:
            shutil.chown(self.data.parent, "postgres")
        _run([*self.as_postgres, self.initdb, "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync"])

    def start(self) -> None:
        options = f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off"
        _run([*self.as_postgres, self.pg_ctl, "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start"],
             log=self.log)  # fmt: skip

    def stop(self) -> None:
        _run([*self.as_postgres, self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"], log=self.log)

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'CREATE DATABASE "{name}"')


class Redis:
    """redis-server on its own port and directory; persistent = AOF with fsync always, else nothing saved."""

    def __init__(self, base: Path, *, persistent: bool, port: int | None = None):
        self.dir, self.persistent = base / f"redis-{'aof' if persistent else 'none'}", persistent
        self.port = port or port_from_env("FAULTS_REDIS_PORT")
        self.dir.mkdir(parents=True, exist_ok=True)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.persistent else ["--appendonly", "no"]
        _run(["redis-server", "--daemonize", "yes", "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
              str(self.dir), "--save", "", *persistence, "--pidfile", str(self.dir / "redis.pid"),
              "--logfile", str(self.dir / "redis.log")], log=self.dir / "redis.log")  # fmt: skip
        wait_until(self.ping, timeout_s=10, what="redis to answer")

    def ping(self) -> bool:
        return subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).returncode == 0

    def stop(self) -> None:
        """SHUTDOWN: with AOF the queued messages are on disk; without, they are gone."""
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True)
        wait_until(lambda: not self.ping(), timeout_s=10, what="redis to stop")


class ProcessGroups:
    """Subprocesses of the repository, each in a process group of its own (so a kill -9 takes its children too)
    and logging to a file of its own in `log_dir` (the fault benchmark's workers and the integration tests')."""

    def __init__(self, env: dict, log_dir: Path):
        self.env, self.log_dir = env, log_dir
        self.procs: list[subprocess.Popen] = []

    def start(self, argv: list[str], name: str, *, unset: tuple[str, ...] = (), **extra_env) -> subprocess.Popen:
        """Run `argv` in the repository root with this environment, less `unset`, plus `extra_env`."""
        log_path = self.log_dir / f"{name}-{len(self.procs)}.log"
        env = {key: value for key, value in self.env.items() if key not in unset} | extra_env
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                                start_new_session=True)  # fmt: skip
        proc.log_path = log_path  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    @staticmethod
    def kill(proc: subprocess.Popen) -> None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def stop_all(self) -> None:
        for proc in self.procs:
            self.kill(proc)

    def tail(self, chars: int = 3000) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-chars:]}" for p in sorted(self.log_dir.glob("*.log")))


class Processes(ProcessGroups):
    """The fault benchmark's workers; the control worker is supervised."""

    def __init__(self, env: dict, log_dir: Path):
        super().__init__(env, log_dir)
        self.control_starts, self._supervising = 0, False
        self.control_proc: subprocess.Popen | None = None

    def _control(self) -> subprocess.Popen:
        argv = [sys.executable, "-m", "celery", "-A", "inferledger", "worker", "--queues", "control",
                "--hostname", "control@faults", "--concurrency", "2", "--without-gossip", "--without-mingle",
                "--beat", "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler",
                "--schedule", str(self.log_dir / "beat-schedule"), "--loglevel", "INFO"]  # fmt: skip
        self.control_starts += 1
        return self.start(argv, "control")

    def supervise_control(self) -> None:
        """Start the control worker and restart it whenever it exits (systemd Restart=always, RestartSec=1)."""
        self._supervising = True
        self.control_proc = self._control()

        def loop():
            while self._supervising:
                if self.control_proc.poll() is not None and self._supervising:
                    time.sleep(1)
                    self.control_proc = self._control()
                time.sleep(0.5)

        threading.Thread(target=loop, name="supervisor", daemon=True).start()

    def agent(self, name: str, secret: str) -> subprocess.Popen:
        """An agent as docs/operations.md deploys it: the broker URL and its own secret, no SECRET_KEY, no database."""
        argv = [sys.executable, "manage.py", "run_agent", "--name", name]
        return self.start(argv, f"agent-{name}", unset=("SECRET_KEY", "DATABASE_URL"), INFERLEDGER_AGENT_SECRET=secret,
                          DEBUG="false")  # fmt: skip

    def stop_all(self) -> None:
        self._supervising = False
        super().stop_all()
