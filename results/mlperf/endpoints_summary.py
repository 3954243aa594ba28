"""Read a run measured with MLCommons' endpoints harness (``result_summary.json``) as LoadGen's log keys (Django-free).

Since v6.1 some results folders hold, instead of LoadGen's ``mlperf_log_{detail,summary}.txt``, the harness's
``result_summary.json`` (and a human-readable ``report.txt``). The file is the harness's ``Report`` struct serialized
as JSON (mlcommons/endpoints ``src/inference_endpoint/metrics/report.py``, ``Report.to_json``, written by
``commands/benchmark/execute.py`` ``finalize_benchmark``):

- ``qps`` (completed samples/s) and ``tps`` (output tokens/s, null without output token counts), both over the run's
  window; null when the run has no duration;
- ``ttft``, ``tpot``, ``latency``: series rollups in ns (``min``, ``max``, ``avg``, ``median``, ``percentiles`` keyed by
  the percentile as text, "99" or "99.0" ...), ``{}`` when the series is empty;
- ``n_samples_issued`` / ``_completed`` / ``_failed``, ``duration_ns``, ``state`` ('complete', 'interrupted' ...) and
  ``complete`` (state is 'complete' and nothing was left pending);
- ``run_config`` (newer versions): the run's settings, ``load_pattern.type`` among them ('max_throughput' for an
  Offline run, 'poisson' or 'concurrency' for online ones; config/schema.py LoadPatternType).

It states no MLPerf VALID/INVALID verdict. So the reader translates the figures into the LoadGen keys the importer
already reads (the same quantity under the name the rest of the importer knows), keeps ``state`` and ``complete``,
and says that validity is not stated; a run the file itself calls incomplete is refused with that reason.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import metrics

RESULT_SUMMARY = "result_summary.json"
VALIDITY_NOT_STATED = "not stated (result_summary.json carries no VALID/INVALID verdict)"

# The endpoints figure -> LoadGen's key for the same quantity, per scenario family (LoadGen names the Server
# throughput 'completed'; endpoints' qps/tps always count completed samples).
_THROUGHPUT = {
    metrics.OFFLINE: {"tps": "result_tokens_per_second", "qps": "result_samples_per_second"},
    metrics.SERVER: {"tps": "result_completed_tokens_per_second", "qps": "result_completed_samples_per_sec"},
}
_PERCENTILE_KEYS = {
    "latency": "result_{}_percentile_latency_ns",
    "ttft": "result_first_token_{}_percentile_latency_ns",
    "tpot": "result_time_per_output_token_{}_percentile_ns",
}
# The harness's load patterns that name a scenario (others, e.g. agentic ones, say nothing about the folder's).
_OFFLINE_PATTERNS, _ONLINE_PATTERNS = {"max_throughput"}, {"poisson", "concurrency"}
_LATENCY_ROLLUPS = {"min": "result_min_latency_ns", "max": "result_max_latency_ns", "avg": "result_mean_latency_ns"}


class EndpointsSummaryError(ValueError):
    """The file cannot give a published figure; the message says why."""


def read_endpoints_summary(path: Path, *, scenario: str) -> dict:
    """``path``'s figures as LoadGen log keys (values as text), for a run in ``scenario`` (metrics' names).

    Raises EndpointsSummaryError for a file that is not a JSON object, an incomplete run, or one with no throughput.
    """
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EndpointsSummaryError(f"unreadable {RESULT_SUMMARY}: {exc}") from exc
    if not isinstance(report, dict) or not report:
        raise EndpointsSummaryError(f"{RESULT_SUMMARY} holds no report (an empty or non-object JSON)")
    state, complete = report.get("state"), report.get("complete")
    if state != "complete" or complete is not True:
        raise EndpointsSummaryError(
            f"the endpoints run did not complete (state {state!r}, complete {complete!r} in {RESULT_SUMMARY})"
        )
    if scenario not in (metrics.OFFLINE, metrics.SERVER, metrics.INTERACTIVE):
        raise EndpointsSummaryError(f"a {scenario} figure is not read from {RESULT_SUMMARY} (it states throughputs)")
    family = metrics.OFFLINE if scenario == metrics.OFFLINE else metrics.SERVER
    pattern = _load_pattern(report)
    offline_pattern, online_pattern = pattern in _OFFLINE_PATTERNS, pattern in _ONLINE_PATTERNS
    if (offline_pattern and family != metrics.OFFLINE) or (online_pattern and family == metrics.OFFLINE):
        raise EndpointsSummaryError(f"the {scenario} folder holds a run of load pattern '{pattern}' ({RESULT_SUMMARY})")
    values: dict[str, str] = {}
    for name, key in _THROUGHPUT[family].items():
        if _is_number(report.get(name)):
            values[key] = str(report[name])
    if not values:
        raise EndpointsSummaryError(f"{RESULT_SUMMARY} states neither qps nor tps")
    for series, template in _PERCENTILE_KEYS.items():
        block = report.get(series)
        percentiles = block.get("percentiles") if isinstance(block, dict) else None
        for label, value in (percentiles or {}).items():
            if _is_number(value) and _is_number_text(label):
                values[template.format(f"{float(label):.2f}")] = str(value)
    latency = report.get("latency")
    for name, key in _LATENCY_ROLLUPS.items():
        if isinstance(latency, dict) and _is_number(latency.get(name)):
            values[key] = str(latency[name])
    values["endpoints_state"], values["endpoints_complete"] = str(state), str(complete)
    if pattern:
        values["endpoints_load_pattern"] = pattern
    values["result_validity"] = VALIDITY_NOT_STATED
    return values


def _load_pattern(report: dict) -> str:
    run_config = report.get("run_config")
    load_pattern = run_config.get("load_pattern") if isinstance(run_config, dict) else None
    return str(load_pattern.get("type") or "") if isinstance(load_pattern, dict) else ""


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_number_text(text) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True
