"""Real inference servers for the endpoint tests and benchmarks, each in its own virtualenv (make vllm-venv,
make kserve-venv)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx


class EngineUnavailable(RuntimeError):
    """The engine's environment is missing or the server did not come up."""


def engine_environment(**overrides: str) -> dict[str, str]:
    """The environment an engine's process runs in: ours, writing bytecode, with ``overrides``.

    The engines' virtualenvs are installed without byte-compiling (``pip install --no-compile`` in the
    Makefile: compiling every module of torch, vLLM and transformers was most of the install). So that a
    start does not recompile what it imports every time, the engine may write the bytecode of each module it
    imports into its virtualenv, once, even where PYTHONDONTWRITEBYTECODE is set for everything else.
    """
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return environment | overrides


def venv_python(venv: Path, make_target: str) -> Path:
    """The engine's interpreter, or EngineUnavailable saying which make target installs it."""
    python = venv / "bin" / "python"
    if not python.exists():
        raise EngineUnavailable(f"no environment at {venv} (run `make {make_target}`)")
    return python


@dataclass
class EngineServer:
    """A running engine: its process (None for one started elsewhere), base URL, log and served model."""

    process: subprocess.Popen | None
    url: str
    log_path: Path
    model: str
    stop_signal: int = signal.SIGTERM

    @property
    def metrics_url(self) -> str:
        return f"{self.url}/metrics"

    def wait(self) -> None:
        """Until the server's process ends (at once for one started elsewhere)."""
        if self.process is not None:
            self.process.wait()

    def stop(self) -> None:
        """Ask the server to end (``stop_signal``); kill it if it has not within 30 s."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(self.stop_signal)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_engine(
    name: str,
    command: list[str],
    *,
    url: str,
    ready_path: str,
    model: str,
    log_path: Path,
    env: dict[str, str],
    timeout_s: float,
    stop_signal: int = signal.SIGTERM,
) -> EngineServer:
    """Start ``command`` (its output to ``log_path``) and wait until ``GET url + ready_path`` answers 200; raise
    EngineUnavailable, with the log's tail, if it exits or is not ready within ``timeout_s``."""
    log = log_path.open("wb")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = EngineServer(process, url, log_path, model, stop_signal)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EngineUnavailable(f"{name} exited with {process.returncode}:\n{log_tail(log_path)}")
        try:
            if httpx.get(url + ready_path, timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.stop()
    raise EngineUnavailable(f"{name} was not ready after {timeout_s:.0f} s:\n{log_tail(log_path)}")


def log_tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
