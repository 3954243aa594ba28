"""A job's spec (what to measure): validated against the harness's vocabulary.

Django-free and, for validation, torch-free: the control plane (the web process) validates a spec when a
job or schedule is created using ``harness.names`` and the workload registry; the agent turns
the same dict into harness items with ``harness.host.plan`` (which imports the harness, and so torch).
Errors are keyed by field name so the API can answer 400 naming it.
"""

from __future__ import annotations

import workloads as registry
from harness.endpoints.target import ENDPOINT_SCENARIOS, endpoint_errors
from harness.endpoints.trace import declaration_errors as trace_declaration_errors
from harness.endpoints.trace import trace_from_declaration
from harness.names import BACKENDS, HARNESS_WORKLOADS, MODEL_CLASSES, PRECISIONS, SCENARIOS, SIZES, SUITES

LIST_FIELDS = {
    # A model class (at each of the spec's sizes) or a registry workload id the harness runs (resnet50).
    "workloads": MODEL_CLASSES + tuple(HARNESS_WORKLOADS),
    "sizes": SIZES,
    "scenarios": SCENARIOS,
    "backends": BACKENDS,
    "precisions": PRECISIONS,
}
SPEC_FIELDS = (
    "suite",
    *LIST_FIELDS,
    "offline_batch_sizes",
    "server_load_fractions",
    "min_duration_ms",
    "min_query_count",
    "rounds",
    "time_limit_s",
    # An endpoint job measures a running server (harness.endpoints) instead of the suite's models.
    "endpoint",
    "server_rates_qps",
    "concurrency_max",
    "ttft_slo_ms",
    "tpot_slo_ms",
    # A user workload job measures a declared model file (workloads.user) on the agent host.
    "user_workload",
    # A trace job replays a declared request trace against the endpoint (its runs: trace:<name>).
    "trace",
    "trace_mode",
    "time_scale",
)
TRACE_ONLY_FIELDS = ("trace_mode", "time_scale")
MAX_TIME_SCALE = 1000
ENDPOINT_ONLY_FIELDS = ("server_rates_qps", "concurrency_max", "ttft_slo_ms", "tpot_slo_ms")
MIN_TIME_LIMIT_S = 60
# Bounds on what one spec may ask for: far above any real sweep, and within the database's integers.
MAX_BATCH_SIZE = 65_536
MAX_SWEEP_POINTS = 32
MAX_MIN_QUERY_COUNT = 100_000_000


class JobSpecError(ValueError):
    """A spec that cannot run; ``errors`` maps each bad field to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def _is_whole(value, least: int, most: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= most


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value


def _endpoint_spec_errors(spec: dict) -> dict[str, str]:
    endpoint = spec.get("endpoint")
    if not isinstance(endpoint, dict):
        return {"endpoint": "must be an endpoint declaration"}
    errors = {f"endpoint.{key}": message for key, message in endpoint_errors(endpoint).items()}
    scenarios = spec.get("scenarios") or []
    if not isinstance(scenarios, list) or not all(s in ENDPOINT_SCENARIOS for s in scenarios):
        errors["scenarios"] = f"an endpoint runs {', '.join(ENDPOINT_SCENARIOS)}"
    rates = spec.get("server_rates_qps") or []
    if not isinstance(rates, list) or not all(_is_number(rate) and 0 < rate <= 100_000 for rate in rates):
        errors["server_rates_qps"] = "offered rates must be numbers of queries/s > 0"
    elif "server" in scenarios and not rates:
        errors["server_rates_qps"] = "the server scenario of an endpoint needs its offered rates (queries/s)"
    limit = spec.get("concurrency_max")
    if limit is not None and not (isinstance(limit, int) and not isinstance(limit, bool) and 1 <= limit <= 4096):
        errors["concurrency_max"] = "must be a whole number from 1 to 4096"
    for field in ("ttft_slo_ms", "tpot_slo_ms"):
        value = spec.get(field)
        if value is not None and not (_is_number(value) and value > 0):
            errors[field] = "must be a number of milliseconds > 0"
    for field in ("workloads", "sizes", "backends", "precisions", "offline_batch_sizes", "server_load_fractions"):
        if spec.get(field):
            errors[field] = "does not apply to an endpoint job"
    return errors


def _user_workload_spec_errors(spec: dict) -> dict[str, str]:
    """A user workload's declaration (as the agent gets it) is checked without its file, which is on the agent host."""
    declaration = spec.get("user_workload")
    if not isinstance(declaration, dict):
        return {"user_workload": "must be a user workload declaration"}
    try:
        registry.parse_spec(declaration, base_dir=None, check_files=False)
    except registry.UserWorkloadError as exc:
        return {f"user_workload.{field}": message for field, message in exc.by_field().items()}
    errors = {}
    for field in ("workloads", "sizes"):
        if spec.get(field):
            errors[field] = "does not apply to a user workload job (it runs the declared file)"
    if spec.get("endpoint") is not None:
        errors["endpoint"] = "a job measures either an endpoint or a user workload, not both"
    return errors


def _trace_spec_errors(spec: dict) -> dict[str, str]:
    """A trace job: a declared trace (checked whole: digest, every line) replayed against an OpenAI-compatible
    endpoint, at its recorded arrivals (``trace_mode`` arrivals, the default; ``time_scale`` scales them) or as the
    requests the concurrency sweep draws (``trace_mode`` concurrency)."""
    errors = {f"trace.{key}": message for key, message in trace_declaration_errors(spec.get("trace")).items()}
    mode = spec.get("trace_mode") or "arrivals"
    if mode not in ("arrivals", "concurrency"):
        errors["trace_mode"] = f"unknown {mode!r}; known: arrivals, concurrency"
    endpoint = spec.get("endpoint")
    if endpoint is None:
        errors["endpoint"] = "a trace is replayed against an endpoint: name one"
    elif isinstance(endpoint, dict) and endpoint.get("protocol") == "oip-v2":
        errors["endpoint"] = "a trace's requests are completions: replay it against an openai-* endpoint"
    scenarios = spec.get("scenarios") or []
    time_scale = spec.get("time_scale")
    if mode == "arrivals":
        if scenarios:
            errors["scenarios"] = "a trace replayed at its arrivals is its own point (trace-replay): leave it empty"
        if time_scale is not None and not (_is_number(time_scale) and 0 < time_scale <= MAX_TIME_SCALE):
            errors["time_scale"] = f"must be a number above 0, at most {MAX_TIME_SCALE}"
        if errors:
            return errors
        trace = trace_from_declaration(spec["trace"])
        if not trace.has_arrivals:
            errors["trace_mode"] = f"trace {trace.name} ({trace.format}) records no arrival times: use concurrency"
        elif not trace.has_token_lengths:
            errors["trace_mode"] = f"trace {trace.name} does not give every request's lengths in tokens"
        elif isinstance(endpoint, dict) and endpoint.get("protocol") != "openai-completions":
            errors["endpoint"] = "a trace is replayed at its arrivals through openai-completions (token-id prompts)"
    else:
        if scenarios not in ([], ["concurrency-sweep"]):
            errors["scenarios"] = "a trace in concurrency mode runs the concurrency-sweep only"
        if time_scale is not None:
            errors["time_scale"] = "applies only to trace_mode arrivals"
    return errors


def unknown_field_errors(data: dict, known) -> dict[str, str]:
    """Each key of ``data`` that is not a known field, named: a misspelt or nested field is refused, never dropped
    (``scenario`` for ``scenarios`` would otherwise run everything the field left open)."""
    known = tuple(known)
    return {str(key): f"unknown field; known: {', '.join(known)}" for key in data if key not in known}


def spec_errors(spec: dict, *, time_limit_max_s: int) -> dict[str, str]:
    """Each problem of a spec, keyed by field; empty when the spec can be planned."""
    if not isinstance(spec, dict):
        return {"spec": f"expected a mapping of spec fields, got {type(spec).__name__}"}
    errors: dict[str, str] = unknown_field_errors(spec, SPEC_FIELDS)
    if spec.get("user_workload") is not None:
        errors |= _user_workload_spec_errors(spec)
    if spec.get("trace") is not None:
        errors |= _trace_spec_errors(spec)
    else:
        for field in TRACE_ONLY_FIELDS:
            if spec.get(field) not in (None, ""):
                errors[field] = "applies only to a trace job"
    if spec.get("endpoint") is not None:
        errors |= {key: message for key, message in _endpoint_spec_errors(spec).items() if key not in errors}
        spec = {key: value for key, value in spec.items() if key != "scenarios"}
    else:
        for field in ENDPOINT_ONLY_FIELDS:
            if spec.get(field):
                errors[field] = "applies only to an endpoint job"
    if spec.get("suite", "quick") not in SUITES:
        errors["suite"] = f"unknown suite {spec.get('suite')!r}; known: {', '.join(SUITES)}"
    for field, known in LIST_FIELDS.items():
        values = spec.get(field) or []
        if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
            errors[field] = "must be a list of names"
            continue
        unknown = [value for value in values if value not in known]
        if unknown:
            errors[field] = f"unknown {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
    batch_sizes = spec.get("offline_batch_sizes") or []
    if not isinstance(batch_sizes, list) or not all(_is_whole(size, 1, MAX_BATCH_SIZE) for size in batch_sizes):
        errors["offline_batch_sizes"] = f"batch sizes must be whole numbers from 1 to {MAX_BATCH_SIZE}"
    elif len(batch_sizes) > MAX_SWEEP_POINTS:
        errors["offline_batch_sizes"] = f"at most {MAX_SWEEP_POINTS} batch sizes"
    fractions = spec.get("server_load_fractions") or []
    if not isinstance(fractions, list) or not all(_is_number(rate) and 0 < rate <= 2 for rate in fractions):
        errors["server_load_fractions"] = "offered rates must be > 0 and <= 2 (fractions of measured capacity)"
    elif len(fractions) > MAX_SWEEP_POINTS:
        errors["server_load_fractions"] = f"at most {MAX_SWEEP_POINTS} offered rates"
    # A point cannot last longer than the longest job.
    for field, most in (("min_duration_ms", time_limit_max_s * 1000), ("min_query_count", MAX_MIN_QUERY_COUNT)):
        value = spec.get(field)
        if value is not None and not _is_whole(value, 1, most):
            errors[field] = f"must be a whole number from 1 to {most}"
    rounds = spec.get("rounds")
    if rounds is not None and not (isinstance(rounds, int) and not isinstance(rounds, bool) and 1 <= rounds <= 10):
        errors["rounds"] = "must be a whole number from 1 to 10"
    limit = spec.get("time_limit_s", MIN_TIME_LIMIT_S)
    if not (isinstance(limit, int) and MIN_TIME_LIMIT_S <= limit <= time_limit_max_s):
        errors["time_limit_s"] = f"must be between {MIN_TIME_LIMIT_S} and {time_limit_max_s} seconds"
    return errors


def validate_spec(spec: dict, *, time_limit_max_s: int) -> None:
    errors = spec_errors(spec, time_limit_max_s=time_limit_max_s)
    if errors:
        raise JobSpecError(errors)
