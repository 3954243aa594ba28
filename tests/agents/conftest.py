"""Real Celery workers for the integration tests: subprocesses on the test database and a flushed Redis DB.

Each worker gets its own process group so a crash test can `kill -9` it whole, and teardown always
does, before pytest-django flushes the tables the workers were writing to.
"""

import os
import subprocess
import sys

import pytest

from benchmarks.faultkit import ProcessGroups, wait_until
from tests.service_preflight import redis_url

# Short enough that a job held by a killed worker is redelivered within seconds (production: hours).
TEST_VISIBILITY_TIMEOUT_S = 6


def wait_for(predicate, *, timeout_s: float, interval_s: float = 0.05, what: str = "condition"):
    """The first truthy value of `predicate()`; a failed test (AssertionError) when none comes in time."""
    try:
        return wait_until(predicate, timeout_s=timeout_s, interval_s=interval_s, what=what)
    except TimeoutError as exc:
        raise AssertionError(str(exc)) from None


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


class Workers(ProcessGroups):
    """Starts worker subprocesses on the test database; kills them all (process groups) on teardown."""

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
    print(started.tail(4000))  # shown by pytest only when the test failed


# User workloads (tests of `bench --workload-file` and of user workload jobs): short points, files made here.


@pytest.fixture
def short_quick(monkeypatch):
    """The quick suite with points short enough for tests (a job's and bench's preset)."""
    from harness.scenarios import settings as harness_settings

    short = harness_settings.preset("quick").with_(
        min_duration_ms=150, min_query_count=16, warmup_queries=2, offline_batch_sizes=(1, 4), rounds=1,
        extra_rounds=0, server_load_fractions=(0.5,),
    )  # fmt: skip
    monkeypatch.setitem(harness_settings.PRESETS, "quick", short)


@pytest.fixture(autouse=True)
def model_root(monkeypatch, tmp_path):
    """The model root (INFERLEDGER_MODEL_ROOT) is each test's tmp_path, where model_files and tiny_causal_lm are
    made: declarations for agent hosts name files under it."""
    monkeypatch.setenv("INFERLEDGER_MODEL_ROOT", str(tmp_path))
    return tmp_path


@pytest.fixture
def model_files(tmp_path):
    """A tiny MLP saved as ONNX, TorchScript and torch.export, as a user would save theirs."""
    import torch
    from torch import nn

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3)).eval()
    example = (torch.randn(2, 8),)
    torch.onnx.export(
        model, example, tmp_path / "mlp.onnx", input_names=["features"], output_names=["scores"],
        dynamic_axes={"features": {0: "batch"}, "scores": {0: "batch"}}, dynamo=False,
    )  # fmt: skip
    torch.jit.save(torch.jit.trace(model, example), tmp_path / "mlp.pt")
    batch = torch.export.Dim("batch", min=1, max=1024)
    torch.export.save(torch.export.export(model, example, dynamic_shapes=({0: batch},)), tmp_path / "mlp.pt2")
    return tmp_path


@pytest.fixture
def tiny_causal_lm(tmp_path):
    """A random-weight Llama causal LM saved here as a Hugging Face directory (config.json + safetensors)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)  # fmt: skip
    LlamaForCausalLM(config).save_pretrained(tmp_path / "tiny-llama")
    return tmp_path / "tiny-llama"
