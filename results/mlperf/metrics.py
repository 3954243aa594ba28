"""Which figure of a LoadGen log is the published result, as MLCommons' submission checker reads it.

The checker (mlcommons/inference ``tools/submission/submission_checker``) takes the result from the
detail log: a default key per *effective* scenario (``RESULT_FIELD_NEW``), overridden per benchmark
for the benchmarks scored in tokens (``RESULT_FIELD_BENCHMARK_OVERWRITE``), and, when the scenario
folder differs from the scenario LoadGen ran, a result inferred from the run (``get_inferred_result``).
Its override table only ever names token keys, and names one for every benchmark whose LoadGen run
reports tokens, so the rule below reads "scored in tokens" from the log itself instead of copying the
table: a benchmark that logs a token throughput is ranked by it, whatever its name.

    Offline       result_tokens_per_second > result_inferred_tokens_per_second > result_samples_per_second
    Server        result_completed_tokens_per_second > result_inferred_completed_tokens_per_second
                  > result_completed_samples_per_sec (v4.1 on; result_scheduled_samples_per_sec before)
    Interactive   a Server run (LoadGen has no Interactive scenario): the Server keys
    SingleStream  early_stopping_latency_ss; a run with token latencies: result_90.00_percentile_latency_ns
    MultiStream   early_stopping_latency_ms (nanoseconds despite the name, as in LoadGen)
    Inferred      MultiStream folder, SingleStream run: 8 x early_stopping_latency_ms;
                  Offline folder, SingleStream run: result_qps_without_loadgen_overhead

Latency figures stay in nanoseconds as logged (the checker divides by 1e6 to print ms). Without a
detail log the same keys are read from the summary log under LoadGen's labels for them.
Django-free.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

import workloads

OFFLINE, SERVER, INTERACTIVE = "Offline", "Server", "Interactive"
SINGLE_STREAM, MULTI_STREAM = "SingleStream", "MultiStream"
# Scenario folder names as submitters write them (any case, with or without separators).
_SCENARIO_WORDS = {
    "offline": OFFLINE,
    "server": SERVER,
    "interactive": INTERACTIVE,
    "singlestream": SINGLE_STREAM,
    "multistream": MULTI_STREAM,
}
# Our run-level scenario names (agents' vocabulary).
RUN_SCENARIOS = {
    OFFLINE: "offline",
    SERVER: "server",
    INTERACTIVE: "interactive",
    SINGLE_STREAM: "single-stream",
    MULTI_STREAM: "multi-stream",
}
MULTI_STREAM_SAMPLES_PER_QUERY = 8  # fixed by the MultiStream rules; the checker uses it to infer

_THROUGHPUT_KEYS = {
    OFFLINE: ("result_tokens_per_second", "result_inferred_tokens_per_second", "result_samples_per_second"),
    SERVER: (
        "result_completed_tokens_per_second",
        "result_inferred_completed_tokens_per_second",
        "result_completed_samples_per_sec",
    ),
}
_LEGACY_SERVER_KEY = "result_scheduled_samples_per_sec"  # rounds before v4.1
_TOKEN_LATENCY_SINGLE_STREAM_KEY = "result_90.00_percentile_latency_ns"

# Detail-log key -> the summary log's label for the same figure (alternatives in order).
SUMMARY_LABELS = {
    "result_samples_per_second": ("Samples per second",),
    "result_completed_samples_per_sec": ("Completed samples per second",),
    "result_scheduled_samples_per_sec": ("Scheduled samples per second",),
    "result_tokens_per_second": ("Tokens per second",),
    "result_completed_tokens_per_second": ("Completed tokens per second",),
    "result_inferred_tokens_per_second": ("Tokens per second (inferred)",),
    "result_inferred_completed_tokens_per_second": ("Completed tokens per second (inferred)",),
    "early_stopping_latency_ss": ("Early stopping 90th percentile estimate", "90th percentile latency (ns)"),
    "early_stopping_latency_ms": ("Early stopping 99th percentile estimate", "99th percentile latency (ns)"),
    "result_90.00_percentile_latency_ns": ("90.00 percentile latency (ns)", "90.0th percentile latency (ns)"),
    "result_qps_without_loadgen_overhead": ("QPS w/o loadgen overhead",),
}


class MetricError(ValueError):
    """The log does not carry the figure the checker would read; the message says which."""


def scenario_from_folder(name: str) -> str | None:
    """'Offline', 'offline', 'Single-Stream', 'single_stream' -> the checker's scenario name, or None."""
    return _SCENARIO_WORDS.get(re.sub(r"[^a-z]", "", name.lower()))


def round_at_least(round_name: str, minimum: str) -> bool:
    def parts(text):
        return tuple(int(p) for p in re.findall(r"\d+", text)[:2]) or (0,)

    return parts(round_name) >= parts(minimum)


@dataclass(frozen=True)
class PublishedFigure:
    metric: str  # the log key the figure comes from
    value: str  # the published system figure, as text, exactly as logged (or as the checker infers it)
    unit: str  # "tokens/s", "samples/s" or "ns"
    inferred_from: str = ""  # the scenario LoadGen ran when the folder's scenario was inferred from it


def _unit(key: str) -> str:
    if "token" in key:
        return "tokens/s"
    if key.endswith("_ns") or key.startswith("early_stopping_latency"):
        return "ns"
    return "samples/s"


def _first(keys: tuple[str, ...], values: dict) -> str | None:
    return next((key for key in keys if values.get(key) not in (None, "")), None)


def published_figure(*, round_name: str, folder_scenario: str, effective_scenario: str, values: dict):
    """The checker's figure for one run: ``values`` maps detail-log keys to their logged text."""
    if folder_scenario == INTERACTIVE and effective_scenario == SERVER:
        effective_scenario = SERVER
        folder_scenario = SERVER
    if folder_scenario != effective_scenario:
        return _inferred(folder_scenario, effective_scenario, values)
    if effective_scenario in _THROUGHPUT_KEYS:
        keys: tuple[str, ...] = _THROUGHPUT_KEYS[effective_scenario]
        if effective_scenario == SERVER:
            # Before v4.1 the checker read scheduled samples/s; a log without completed samples/s is one.
            legacy = not round_at_least(round_name, "v4.1")
            keys = keys[:2] + ((_LEGACY_SERVER_KEY,) if legacy else (keys[2], _LEGACY_SERVER_KEY))
        key = _first(keys, values)
    elif effective_scenario == SINGLE_STREAM:
        tokens = any("token" in k for k in values if k.startswith("result_"))
        key = _first(
            (_TOKEN_LATENCY_SINGLE_STREAM_KEY,) if tokens else ("early_stopping_latency_ss",),
            values,
        )
    elif effective_scenario == MULTI_STREAM:
        key = _first(("early_stopping_latency_ms",), values)
    else:
        raise MetricError(f"scenario '{effective_scenario}' has no published metric")
    if key is None:
        raise MetricError(f"no {effective_scenario} result key in the log")
    return PublishedFigure(key, str(values[key]), _unit(key))


def _inferred(folder: str, ran: str, values: dict) -> PublishedFigure:
    if folder == MULTI_STREAM and ran == SINGLE_STREAM and values.get("early_stopping_latency_ms") is not None:
        figure = Decimal(str(values["early_stopping_latency_ms"])) * MULTI_STREAM_SAMPLES_PER_QUERY
        return PublishedFigure("early_stopping_latency_ms", str(figure), "ns", inferred_from=ran)
    if folder == OFFLINE and ran == SINGLE_STREAM and values.get("result_qps_without_loadgen_overhead") is not None:
        key = "result_qps_without_loadgen_overhead"
        return PublishedFigure(key, str(values[key]), "samples/s", inferred_from=ran)
    raise MetricError(f"a {folder} result inferred from a {ran} run is not supported")


_TIME_UNITS_NS = {"ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000}
_TIME_UNIT = re.compile(r"\(\s*(ns|us|µs|ms|s)\s*\)|^(ns|us|µs|ms|s)$")


def standard_figure(value: str, unit: str) -> tuple[float, str]:
    """A published figure as (number, 'tokens/s' | 'samples/s' | 'ns'), from a log's units ('tokens/s', 'ns') or
    the results table's ('Tokens/s', 'Samples/s', 'Queries/s', 'Tasks/s', 'Latency (ms)', 'Latency (s)'): a
    latency is scaled to ns by the time unit it names; a rate counts tokens when its unit says so, else samples
    (a Server query is one sample; a task is the benchmark's unit of work)."""
    text = unit.strip().lower()
    number = float(value)
    time_unit = _TIME_UNIT.search(text)
    if time_unit:
        return number * _TIME_UNITS_NS[time_unit.group(1) or time_unit.group(2)], "ns"
    if text.endswith("/s") or text.endswith("per second"):
        return number, "tokens/s" if "token" in text else "samples/s"
    raise MetricError(f"unit '{unit}' is neither a latency nor a rate")


def figure_of(*, value: str, unit: str, metric: str, benchmark: str) -> tuple[float, str]:
    """A stored result's figure as (number, 'tokens/s' | 'samples/s' | 'ns'). A log key names its own unit; a
    results table's label is read with standard_figure, except that a benchmark MLPerf scores in tokens counts
    tokens whatever the table calls it (the v6.0/v6.1 tables label whisper's tokens/s 'Samples/s')."""
    number, standard = standard_figure(value, unit)
    from_log = metric.startswith(("result_", "early_stopping"))
    if standard == "samples/s" and not from_log and workloads.published_in_tokens(benchmark):
        return number, "tokens/s"
    return number, standard
