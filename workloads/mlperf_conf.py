"""The round's own latency bounds, read from the installed MLPerf LoadGen's ``mlperf.conf`` (one source of truth).

LoadGen (``mlcommons-loadgen``, requirements.txt) compiles the round's ``mlperf.conf`` into its extension module
and applies it to every run; the registry declares each benchmark's bounds by reading the same text, so a new
LoadGen release brings its round's bounds with it and a declared bound cannot drift from the one LoadGen enforced.
The module is located, never imported (the web process does not load LoadGen): its file holds the text verbatim.

Format (the file's own header): ``model.scenario.key = value``, ``*`` a wildcard, times in milliseconds.
Django-free, torch-free.
"""

from __future__ import annotations

import importlib.util
import re
from decimal import Decimal
from functools import cache
from pathlib import Path

LOADGEN_MODULE = "mlperf_loadgen"
# The first line of the config's own header: where the embedded text starts.
_HEADER = b"# The format of this config file is 'key = value'."
_LINE = re.compile(r"^\s*([^#\s][^=]*?)\s*=\s*(\S+)\s*$")


class ConfigMissing(LookupError):
    """The installed LoadGen carries no mlperf.conf (not installed, or a build without it)."""


def loadgen_path() -> Path:
    spec = importlib.util.find_spec(LOADGEN_MODULE)
    if spec is None or not spec.origin:
        raise ConfigMissing(f"{LOADGEN_MODULE} is not installed (pip install -r requirements.txt)")
    return Path(spec.origin)


def conf_text(path: Path | None = None) -> str:
    """The embedded mlperf.conf: from its header to the end of the C string it is stored as."""
    data = (path or loadgen_path()).read_bytes()
    start = data.find(_HEADER)
    if start < 0:
        raise ConfigMissing(f"{path or loadgen_path()}: no embedded mlperf.conf")
    end = data.find(b"\x00", start)
    return data[start : end if end > 0 else len(data)].decode("utf-8")


def parse(text: str) -> dict[tuple[str, str, str], str]:
    """(model, scenario, key) -> value, for every setting line."""
    settings = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        parts = match.group(1).split(".")
        if len(parts) < 3:
            continue
        # A model name may hold dots ('wan-2.2-t2v-a14b'): the last two parts are scenario and key.
        settings[(".".join(parts[:-2]), parts[-2], parts[-1])] = match.group(2)
    return settings


@cache
def settings() -> dict[tuple[str, str, str], str]:
    return parse(conf_text())


def value(model: str, scenario: str, key: str) -> str | None:
    """A setting as LoadGen resolves it: the model's own line, else the wildcard's."""
    table = settings()
    for candidate in ((model, scenario, key), (model, "*", key), ("*", scenario, key), ("*", "*", key)):
        if candidate in table:
            return table[candidate]
    return None


def scores_tokens(model: str) -> bool:
    """Whether LoadGen logs (or infers) the benchmark's token latencies: the submission checker then scores its
    throughput in tokens (``use_token_latencies`` / ``infer_token_latencies`` = 1)."""
    return "1" in (value(model, "Server", "use_token_latencies"), value(model, "Server", "infer_token_latencies"))


def models() -> set[str]:
    """Every benchmark name the config states a setting for."""
    return {model for model, _, _ in settings() if model != "*"}


def server_bound_ms(model: str) -> Decimal | None:
    """The Server scenario's p99 latency bound (ms); None where the benchmark bounds tokens instead (0) or none."""
    if (model, "Server", "target_latency") not in settings():
        return None  # only the wildcard's placeholder, which user.conf overrides
    bound = Decimal(value(model, "Server", "target_latency") or "0")
    return bound or None


def token_bounds_ms(model: str) -> tuple[Decimal, Decimal] | None:
    """(TTFT p99, TPOT p99) bounds in ms of a benchmark served under token latencies, else None."""
    ttft, tpot = value(model, "Server", "ttft_latency"), value(model, "Server", "tpot_latency")
    if ttft is None or tpot is None:
        return None
    return Decimal(ttft), Decimal(tpot)
