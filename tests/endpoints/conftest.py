"""Real engines for the whole test session: a vLLM server (CPU build, tiny random-weight Llama made here) and
KServe's Python model server (a tiny linear model).

Each starts once (vLLM in about a minute on 2 cores) on the first test that asks for it. Without the engine's
environment (``make vllm-venv``, ``make kserve-venv``) the tests skip with that command, except in CI (CI=true),
where a missing or failing engine is a failure.
"""

import os
from pathlib import Path

import pytest

from harness.endpoints.engines import EngineServer, EngineUnavailable
from harness.endpoints.engines.kserve_server import kserve_python, start_kserve_tiny
from harness.endpoints.engines.vllm_cpu import SERVED_MODEL, make_tiny_llama, start_vllm

VLLM_PORT = int(os.environ.get("INFERLEDGER_TEST_VLLM_PORT", "18050"))
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory):
    # For development only: reuse a tiny-llama server already running (started by `python -m
    # harness.endpoints.engines.vllm_cpu DIR PORT`) instead of waiting for a fresh one.
    running = os.environ.get("INFERLEDGER_TEST_VLLM_URL")
    if running and not IN_CI:
        yield EngineServer(None, running, Path(os.devnull), SERVED_MODEL)
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


@pytest.fixture(scope="session")
def kserve_server(tmp_path_factory):
    """KServe's Python model server (Open Inference Protocol v2) serving a tiny linear model, for the session."""
    try:
        kserve_python()
    except EngineUnavailable as exc:
        if IN_CI:
            pytest.fail(f"CI=true and {exc}", pytrace=False)
        pytest.skip(str(exc))
    try:
        server = start_kserve_tiny(KSERVE_PORT, tmp_path_factory.mktemp("kserve") / "kserve.log")
    except EngineUnavailable as exc:
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.stop()
