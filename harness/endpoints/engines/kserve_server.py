"""KServe's Python model server on the tiny linear model (``kserve_tiny.py``): for the Open Inference Protocol v2
tests, and for trying a v2 endpoint locally.

The server runs in its own virtualenv (``make kserve-venv``, from ``requirements-kserve.txt``): its pins clash
with ours. Its Prometheus metrics (the model's preprocess, predict and postprocess histograms) are served on its
HTTP port at ``/metrics``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import EngineServer, engine_environment, start_engine, venv_python

REPO_ROOT = Path(__file__).resolve().parents[3]
KSERVE_VENV = Path(os.environ.get("INFERLEDGER_KSERVE_VENV", REPO_ROOT / ".venv-kserve"))
MODEL_SCRIPT = Path(__file__).with_name("kserve_tiny.py")
SERVED_MODEL = "tiny-linear"
# The tiny model's input, as an endpoint declares it (Endpoint.v2_input).
V2_INPUT = {"name": "input-0", "shape": [1, 4], "datatype": "FP32"}


def kserve_python() -> Path:
    return venv_python(KSERVE_VENV, "kserve-venv")


def start_kserve_tiny(http_port: int, log_path: Path, timeout_s: float = 300.0) -> EngineServer:
    """Start the server (gRPC off; ``http_port + 1`` is reserved for it) and wait until the model is ready; raise
    EngineUnavailable if the environment is missing, or the server exits or is not ready within ``timeout_s``."""
    command = [str(kserve_python()), str(MODEL_SCRIPT), str(http_port), str(http_port + 1)]
    return start_engine("KServe", command, url=f"http://127.0.0.1:{http_port}",
                        ready_path=f"/v2/models/{SERVED_MODEL}/ready", model=SERVED_MODEL, log_path=log_path,
                        env=engine_environment(), timeout_s=timeout_s)  # fmt: skip


if __name__ == "__main__":  # python -m harness.endpoints.engines.kserve_server PORT LOG
    running = start_kserve_tiny(int(sys.argv[1]), Path(sys.argv[2]))
    print(f"KServe ready at {running.url} serving {running.model}; metrics at {running.metrics_url}")
    try:
        running.wait()
    except KeyboardInterrupt:
        running.stop()
