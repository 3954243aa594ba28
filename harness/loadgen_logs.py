"""Parser for MLPerf LoadGen logs: ``mlperf_log_summary.txt`` (text) and ``mlperf_log_detail.txt``
(``:::MLLOG`` JSON lines). Works on our runs and on published MLPerf submissions alike.

Every parser returns the same normalised dict; latencies stay in nanoseconds as LoadGen logs them:
``scenario``, ``mode``, ``sut_name``, ``verdict`` ("VALID"/"INVALID"), ``result_valid``, ``constraints``
({name: bool}), ``reasons`` (why INVALID), ``samples_per_second``, ``tokens_per_second``,
``latency_ns`` / ``first_token_latency_ns`` / ``time_per_output_token_ns`` ({min, mean, max, p50, ...}),
``early_stopping`` ({"met", "estimates_ns", "text"}), ``query_count``, ``test_parameters``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

SUMMARY_FILE = "mlperf_log_summary.txt"
DETAIL_FILE = "mlperf_log_detail.txt"
MLLOG_PREFIX = ":::MLLOG "

_CONSTRAINTS = {
    "Performance constraints satisfied": "performance_constraints",
    "Min duration satisfied": "min_duration",
    "Min queries satisfied": "min_queries",
    "Early stopping satisfied": "early_stopping",
}
_REASONS = {
    "performance_constraints": "performance constraints not satisfied (latency bound exceeded)",
    "min_duration": "min duration not satisfied",
    "min_queries": "min queries not satisfied",
    "early_stopping": "early stopping not satisfied",
}
_SAMPLES_PER_S = ("Completed samples per second", "Samples per second", "QPS w/o loadgen overhead")
_TOKENS_PER_S = ("Completed tokens per second", "Tokens per second", "TPS w/o loadgen overhead")
_STAT_LINE = re.compile(r"^(Min|Max|Mean) (latency|First Token latency|Time (?:per|to) Output Token) \(ns\)$")
_PCT_LINE = re.compile(r"^(\d+(?:\.\d+)?) percentile (latency|first token latency|time to output token) \(ns\)$")
_FAMILY = {
    "latency": "latency_ns",
    "first token latency": "first_token_latency_ns",
    "First Token latency": "first_token_latency_ns",
}
_ESTIMATE = re.compile(r"Early stopping (\d+(?:\.\d+)?)th percentile estimate: (\d+)")


def percentile_key(percentile: str | float) -> str:
    """'99.90' -> 'p99_9', '50.00' -> 'p50'."""
    text = f"{float(percentile):.2f}".rstrip("0").rstrip(".")
    return "p" + text.replace(".", "_")


def _number(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _family(name: str) -> str:
    return _FAMILY.get(name, "time_per_output_token_ns")


def _empty() -> dict:
    return {
        "scenario": None,
        "mode": None,
        "sut_name": None,
        "verdict": None,
        "result_valid": None,
        "constraints": {},
        "reasons": [],
        "samples_per_second": None,
        "tokens_per_second": None,
        "latency_ns": {},
        "first_token_latency_ns": {},
        "time_per_output_token_ns": {},
        "early_stopping": None,
        "query_count": None,
        "test_parameters": {},
        "warnings": None,
    }


def parse_summary(text: str) -> dict:
    """Parse the text of ``mlperf_log_summary.txt``."""
    out, section = _empty(), ""
    blocks: dict[str, list[str]] = {}
    block = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("====="):
            block = None if not line else block
            continue
        if line in ("MLPerf Results Summary", "Additional Stats", "Test Parameters Used"):
            section, block = line, None
            continue
        if line == "Recommendations:" or line.endswith("Early Stopping Result:"):
            block = "recommendations" if line == "Recommendations:" else _early_kind(line)
            blocks.setdefault(block, [])
            continue
        if block and line.startswith("*"):
            blocks[block].append(line.lstrip("* ").strip())
            continue
        if block and blocks[block] and ":" not in line:
            blocks[block][-1] += " " + line
            continue
        block = None
        if ":" not in line:
            _apply_counts(out, line)
            continue
        key, _, value = (part.strip() for part in line.partition(":"))
        _apply_summary_field(out, section, key, value)
    recommendations = blocks.pop("recommendations", [])
    out["reasons"] = [_REASONS[k] for k, ok in out["constraints"].items() if ok is False] + recommendations
    if blocks:
        out["early_stopping"] = _early_stopping(out["constraints"].get("early_stopping"), blocks)
    return out


def _early_kind(header: str) -> str:
    first = header.split()[0]
    return first.lower() if first in ("TTFT", "TPOT") else "latency"


def _early_stopping(met, blocks: dict[str, list[str]]) -> dict:
    """{"met", "estimates_ns": {"p90": ns, "ttft_p90": ns, ...}, "text"} from per-kind message lists."""
    estimates, lines = {}, []
    for kind, messages in blocks.items():
        prefix = "" if kind == "latency" else f"{kind}_"
        for percentile, value in _ESTIMATE.findall(" ".join(messages)):
            estimates[prefix + percentile_key(percentile)] = int(value)
        lines += [f"{kind}: {m}" for m in messages]
    return {"met": met, "estimates_ns": estimates, "text": "\n".join(lines)}


def _apply_counts(out: dict, line: str) -> None:
    words = line.split()
    if "warning" in line and words[0].isdigit():
        out["warnings"] = int(words[0])
    elif line.startswith("No warnings"):
        out["warnings"] = 0


def _apply_summary_field(out: dict, section: str, key: str, value: str) -> None:
    if section == "Test Parameters Used":
        out["test_parameters"][key] = _number(value)
        return
    if key == "SUT name":
        out["sut_name"] = value
    elif key == "Scenario":
        out["scenario"] = value
    elif key == "Mode":
        out["mode"] = value
    elif key == "Result is":
        out["verdict"] = value
        out["result_valid"] = value == "VALID"
    elif key in _CONSTRAINTS:
        out["constraints"][_CONSTRAINTS[key]] = value.lower() == "yes"
    elif key in _SAMPLES_PER_S and out["samples_per_second"] is None:
        out["samples_per_second"] = float(value)
    elif key in _TOKENS_PER_S and out["tokens_per_second"] is None:
        out["tokens_per_second"] = float(value)
    elif key == "Scheduled samples per second":
        out["scheduled_samples_per_second"] = float(value)
    elif key == "QPS w/ loadgen overhead":
        out["qps_with_loadgen_overhead"] = float(value)
    elif match := _STAT_LINE.match(key):
        out[_family(match.group(2))][match.group(1).lower()] = int(value)
    elif match := _PCT_LINE.match(key):
        out[_family(match.group(2))][percentile_key(match.group(1))] = int(value)
    elif key.endswith("percentile latency (ns)") or key.endswith("percentile first token latency (ns)"):
        out.setdefault("target_percentile_latency_ns", {})[key.split()[0]] = int(value)


def mllog_entries(text: str) -> list[dict]:
    """The JSON records of a detail log (lines starting ``:::MLLOG``); malformed lines are skipped."""
    entries = []
    for line in text.splitlines():
        if line.startswith(MLLOG_PREFIX):
            try:
                entries.append(json.loads(line[len(MLLOG_PREFIX) :]))
            except json.JSONDecodeError:
                continue
    return entries


_DETAIL_PCT = re.compile(r"^result_(first_token_)?(\d+\.\d+)_percentile_latency_ns$")
_DETAIL_TPOT_PCT = re.compile(r"^result_time_per_output_token_(\d+\.\d+)_percentile_ns$")
_DETAIL_STATS = {
    "result_min_latency_ns": ("latency_ns", "min"),
    "result_max_latency_ns": ("latency_ns", "max"),
    "result_mean_latency_ns": ("latency_ns", "mean"),
    "result_first_token_min_latency_ns": ("first_token_latency_ns", "min"),
    "result_first_token_max_latency_ns": ("first_token_latency_ns", "max"),
    "result_first_token_mean_latency_ns": ("first_token_latency_ns", "mean"),
    "result_time_to_output_token_min": ("time_per_output_token_ns", "min"),
    "result_time_to_output_token_max": ("time_per_output_token_ns", "max"),
    "result_time_to_output_token_mean": ("time_per_output_token_ns", "mean"),
}
_DETAIL_CONSTRAINTS = {
    "result_perf_constraints_met": "performance_constraints",
    "result_min_duration_met": "min_duration",
    "result_min_queries_met": "min_queries",
    "early_stopping_met": "early_stopping",
}


def parse_detail(text: str) -> dict:
    """Parse the text of ``mlperf_log_detail.txt`` into the same shape as ``parse_summary``."""
    out, values, errors, warnings = _empty(), {}, [], 0
    for entry in mllog_entries(text):
        key, value, meta = entry.get("key"), entry.get("value"), entry.get("metadata") or {}
        values[key] = value
        if meta.get("is_error"):
            errors.append(f"{key}: {value}")
        warnings += bool(meta.get("is_warning"))
    out["scenario"] = values.get("effective_scenario")
    out["mode"] = values.get("effective_test_mode")
    out["sut_name"] = values.get("sut_name")
    out["verdict"] = values.get("result_validity")
    out["result_valid"] = None if out["verdict"] is None else out["verdict"] == "VALID"
    out["constraints"] = {name: values[k] for k, name in _DETAIL_CONSTRAINTS.items() if k in values}
    out["query_count"] = values.get("result_query_count")
    out["warnings"], out["errors"] = warnings, errors
    for key in (
        "result_completed_samples_per_sec",
        "result_samples_per_second",
        "result_qps_without_loadgen_overhead",
    ):
        if key in values:
            out["samples_per_second"] = float(values[key])
            break
    for key in ("result_completed_tokens_per_second", "result_tokens_per_second"):
        if key in values:
            out["tokens_per_second"] = float(values[key])
            break
    for key, value in values.items():
        if key in _DETAIL_STATS:
            family, stat = _DETAIL_STATS[key]
            out[family][stat] = value
        elif match := _DETAIL_PCT.match(key or ""):
            family = "first_token_latency_ns" if match.group(1) else "latency_ns"
            out[family][percentile_key(match.group(2))] = value
        elif match := _DETAIL_TPOT_PCT.match(key or ""):
            out["time_per_output_token_ns"][percentile_key(match.group(1))] = value
        elif key and key.startswith("requested_"):
            out["test_parameters"][key.removeprefix("requested_")] = value
    reasons = [_REASONS[k] for k, ok in out["constraints"].items() if ok is False]
    if values.get("result_invalid_reason"):
        reasons.append(str(values["result_invalid_reason"]))
    out["reasons"] = reasons + errors
    blocks = {
        kind: [" ".join(str(values[key]).replace("*", "\n").split())]
        for kind, key in (
            ("latency", "early_stopping_result"),
            ("ttft", "early_stopping_ttft_result"),
            ("tpot", "early_stopping_tpot_result"),
        )
        if values.get(key)
    }
    if "early_stopping_met" in values or blocks:
        out["early_stopping"] = _early_stopping(values.get("early_stopping_met"), blocks)
    return out


def merge(primary: dict, fallback: dict) -> dict:
    """Fields of ``primary``, with empty ones filled from ``fallback``."""
    merged = dict(fallback)
    for key, value in primary.items():
        if value not in (None, {}, []):
            merged[key] = value
        elif key not in merged:
            merged[key] = value
    return merged


def read_run_dir(path: str | Path) -> dict:
    """Parse whichever LoadGen logs a run directory holds (summary preferred, detail fills gaps).

    Adds ``summary_text`` and ``detail_text`` (None when the file is absent). Raises
    FileNotFoundError when the directory holds neither log.
    """
    path = Path(path)
    summary_path, detail_path = path / SUMMARY_FILE, path / DETAIL_FILE
    summary_text = summary_path.read_text(errors="replace") if summary_path.is_file() else None
    detail_text = detail_path.read_text(errors="replace") if detail_path.is_file() else None
    if summary_text is None and detail_text is None:
        raise FileNotFoundError(f"no {SUMMARY_FILE} or {DETAIL_FILE} in {path}")
    summary = parse_summary(summary_text) if summary_text is not None else _empty()
    detail = parse_detail(detail_text) if detail_text is not None else _empty()
    parsed = merge(summary, detail)
    parsed["summary_text"], parsed["detail_text"] = summary_text, detail_text
    return parsed
