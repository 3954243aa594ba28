"""A real vLLM server (CPU build, tiny random-weight Llama made here) for the whole test session.

It starts once (about a minute on 2 cores) on the first test that asks for it. Without the engine's
environment (``make vllm-venv``) the tests skip with that command, except in CI (CI=true), where a missing
or failing engine is a failure.
"""

import os
from pathlib import Path

import pytest

from agents.harness.endpoints.engines import engine_environment
from agents.harness.endpoints.engines.vllm_cpu import (
    SERVED_MODEL,
    EngineUnavailable,
    VllmServer,
    make_tiny_llama,
    start_vllm,
)

VLLM_PORT = int(os.environ.get("INFERLEDGER_TEST_VLLM_PORT", "18050"))
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory):
    # For development only: reuse a tiny-llama server already running (started by `python -m
    # agents.harness.endpoints.engines.vllm_cpu DIR PORT`) instead of waiting for a fresh one.
    running = os.environ.get("INFERLEDGER_TEST_VLLM_URL")
    if running and not IN_CI:
        yield VllmServer(None, running, Path(os.devnull), SERVED_MODEL)
        return
    directory = tmp_path_factory.mktemp("vllm")
    try:
        model = make_tiny_llama(directory / "tiny-llama")
        server = start_vllm(model, VLLM_PORT, Path(directory) / "vllm.log")
    except (EngineUnavailable, OSError) as exc:
        if IN_CI:
            pytest.fail(f"CI=true and the vLLM engine is unavailable: {exc}", pytrace=False)
        pytest.skip(f"vLLM engine unavailable ({exc}); run `make vllm-venv`")
    yield server
    server.stop()


KSERVE_PORT = int(os.environ.get("INFERLEDGER_TEST_KSERVE_PORT", "18055"))
KSERVE_VENV = Path(os.environ.get("INFERLEDGER_KSERVE_VENV", Path(__file__).resolve().parents[2] / ".venv-kserve"))


@pytest.fixture(scope="session")
def kserve_server(tmp_path_factory):
    """KServe's Python model server (Open Inference Protocol v2) serving a tiny linear model, for the session."""
    import subprocess
    import time

    import httpx

    python = KSERVE_VENV / "bin" / "python"
    if not python.exists():
        if IN_CI:
            pytest.fail(f"CI=true and KServe's environment is missing at {KSERVE_VENV}", pytrace=False)
        pytest.skip("KServe environment unavailable; run `make kserve-venv`")
    log = (tmp_path_factory.mktemp("kserve") / "kserve.log").open("wb")
    script = Path(__file__).resolve().parents[2] / "agents/harness/endpoints/engines/kserve_tiny.py"
    command = [str(python), str(script), str(KSERVE_PORT), str(KSERVE_PORT + 1)]
    process = subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=engine_environment()
    )
    url = f"http://127.0.0.1:{KSERVE_PORT}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/v2/models/tiny-linear/ready", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    else:
        process.kill()
        pytest.fail(f"KServe did not become ready (exit {process.poll()}); see {log.name}", pytrace=False)
    yield url
    process.terminate()
    process.wait(timeout=30)
