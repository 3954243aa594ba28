"""Loaded by pytest before Django starts (``-p tests.service_preflight``): find the services the tests need.

- PostgreSQL: the data layer is tested on it. When DATABASE_URL points at PostgreSQL and it is not
  reachable, CI (CI=true) stops with an error; elsewhere the run falls back to SQLite and tests marked
  ``postgres`` are skipped with the command that starts the server.
- Redis: tests marked ``redis`` need it; likewise a failure in CI, a skip with a reason elsewhere.
- CUDA: tests marked ``gpu`` (CUDA graphs, TensorRT, fp16/bf16/fp8 on GPU, NVML) run where a CUDA device
  is present and are skipped with the reason elsewhere, in CI too: CI machines have no GPU.
"""

import os
import socket
from urllib.parse import urlparse

import pytest

PG_START = "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
REDIS_START = 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no'
IN_CI = os.environ.get("CI", "").lower() == "true"
# Live-server tests leave persistent connections open, which blocks dropping the test database.
os.environ.setdefault("CONN_MAX_AGE", "0")
# Settings are read as for development (the dev SECRET_KEY, no HTTPS redirect), as `make test` asks;
# pytest-django still runs each test with DEBUG off. Subprocesses the tests start inherit it.
os.environ.setdefault("DEBUG", "true")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def _database_problem() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        return "DATABASE_URL does not point at PostgreSQL (make test sets it)"
    parsed = urlparse(url)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 5432
    if not _reachable(host, port):
        return f"PostgreSQL is not reachable at {host}:{port}; start it with: {PG_START}"
    return None


def redis_url() -> str:
    return os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def _redis_problem() -> str | None:
    parsed = urlparse(redis_url())
    if not _reachable(parsed.hostname or "127.0.0.1", parsed.port or 6379):
        return f"Redis is not reachable at {redis_url()}; start it with: {REDIS_START}"
    return None


POSTGRES_PROBLEM = _database_problem()
REDIS_PROBLEM = _redis_problem()

if POSTGRES_PROBLEM and IN_CI:
    raise pytest.UsageError(f"CI=true and the tests need PostgreSQL: {POSTGRES_PROBLEM}")
if REDIS_PROBLEM and IN_CI:
    raise pytest.UsageError(f"CI=true and the tests need Redis: {REDIS_PROBLEM}")
if POSTGRES_PROBLEM and os.environ.get("DATABASE_URL", "").startswith(("postgres", "pgsql")):
    os.environ["DATABASE_URL"] = "sqlite:///:memory:"


def pytest_report_header(config):
    return [
        f"database: {'PostgreSQL' if not POSTGRES_PROBLEM else 'SQLite (' + POSTGRES_PROBLEM + ')'}",
        f"redis: {'available' if not REDIS_PROBLEM else REDIS_PROBLEM}",
    ]


def cuda_problem() -> str | None:
    """Why the ``gpu`` tests cannot run here, or None when a CUDA device is present."""
    import torch

    if not torch.cuda.is_available():
        return f"no CUDA device (torch {torch.__version__}, torch.cuda.is_available() is False)"
    return None


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if item.get_closest_marker("gpu")]
    gpu_problem = cuda_problem() if gpu_items else None
    for item in gpu_items:
        if gpu_problem:
            item.add_marker(pytest.mark.skip(reason=gpu_problem))
    for item in items:
        if POSTGRES_PROBLEM and item.get_closest_marker("postgres"):
            item.add_marker(pytest.mark.skip(reason=POSTGRES_PROBLEM))
        if REDIS_PROBLEM and item.get_closest_marker("redis"):
            item.add_marker(pytest.mark.skip(reason=REDIS_PROBLEM))
