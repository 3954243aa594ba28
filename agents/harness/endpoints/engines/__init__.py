"""Real inference servers for the endpoint tests and benchmarks, each in its own virtualenv (make vllm-venv,
make kserve-venv)."""

from __future__ import annotations

import os


def engine_environment(**overrides: str) -> dict[str, str]:
    """The environment an engine's process runs in: ours, writing bytecode, with ``overrides``.

    The engines' virtualenvs are installed without byte-compiling (``pip install --no-compile`` in the
    Makefile: compiling every module of torch, vLLM and transformers was most of the install). So that a
    start does not recompile what it imports every time, the engine may write the bytecode of each module it
    imports into its virtualenv, once, even where PYTHONDONTWRITEBYTECODE is set for everything else.
    """
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return environment | overrides
