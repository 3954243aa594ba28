"""A job spec as the harness items it stands for: the agent's side of ``agents.jobspec``. Django-free.

Planning imports the harness (and so torch and LoadGen); the web process only validates specs
(``agents.jobspec``) and never plans them.
"""

from __future__ import annotations

import dataclasses


def plan_endpoint_items(spec: dict) -> list:
    """An endpoint job's items: one per scenario (default: the concurrency sweep)."""
    from harness.endpoints.run import EndpointItem
    from harness.endpoints.target import Endpoint
    from harness.scenarios import preset

    overrides = {
        "min_duration_ms": spec.get("min_duration_ms"),
        "min_query_count": spec.get("min_query_count"),
        "rounds": spec.get("rounds"),
        "server_rates_qps": tuple(spec.get("server_rates_qps") or ()),
        "concurrency_max": spec.get("concurrency_max"),
        "llm_ttft_latency_ms": spec.get("ttft_slo_ms"),
        "llm_tpot_latency_ms": spec.get("tpot_slo_ms"),
    }
    # One round and no extra rounds unless the spec asks for rounds: a server's load is the finding, not noise.
    settings = preset(spec.get("suite") or "quick").with_(
        **{"rounds": 1, "extra_rounds": 0} | {name: value for name, value in overrides.items() if value}
    )
    endpoint = Endpoint.from_dict(spec["endpoint"])
    if spec.get("trace") is not None:
        return [_trace_item(spec, endpoint, settings)]
    scenarios = spec.get("scenarios") or ["concurrency-sweep"]
    return [EndpointItem(endpoint, scenario, _scenario_settings(scenario, settings, spec)) for scenario in scenarios]


def _scenario_settings(scenario: str, settings, spec: dict):
    """A Server point is VALID only once LoadGen's early stopping proves its p99, which takes 459 queries with
    none over latency: the preset's 64 made every endpoint Server point INVALID on a small server. A
    ``min_query_count`` the spec names is kept (the point then says how many more queries it needed)."""
    if scenario != "server" or spec.get("min_query_count"):
        return settings
    from harness.stats import early_stopping_min_queries

    return settings.with_(min_query_count=max(settings.min_query_count, early_stopping_min_queries(0.99)))


def _trace_item(spec: dict, endpoint, settings):
    """A trace job's one item: the declared trace (its digest checked again here) at its recorded arrivals, or its
    requests under the concurrency sweep."""
    from harness.endpoints.replay_scenario import TRACE_REPLAY
    from harness.endpoints.run import EndpointItem
    from harness.endpoints.trace import trace_from_declaration

    trace = trace_from_declaration(spec["trace"])
    mode = spec.get("trace_mode") or "arrivals"
    scenario = TRACE_REPLAY if mode == "arrivals" else "concurrency-sweep"
    return EndpointItem(endpoint, scenario, settings, trace=trace, trace_mode=mode,
                        time_scale=float(spec.get("time_scale") or 1.0))  # fmt: skip


def plan_user_workload_items(spec: dict, device: str | None = None) -> list:
    """A user workload job's items: its declared file on the spec's backends/precisions (default: the file's
    native backend, fp32) in the spec's scenarios. The file is not opened here: each item checks it on this
    host, so a missing or mismatched file fails the job's items with the reason. A path outside this host's model
    root (INFERLEDGER_MODEL_ROOT) fails the job before anything is read."""
    import workloads as registry
    from harness.suite import plan_user_workload

    declaration = registry.parse_spec(spec["user_workload"], base_dir=None, check_files=False)
    # Again on this host, its own model root, symlinks followed: the control plane's check is not trusted here.
    outside = registry.model_root_errors(declaration.path, resolve=True)
    if outside:
        raise registry.UserWorkloadError(outside)
    return plan_user_workload(
        declaration,
        spec.get("suite") or "quick",
        backends=spec.get("backends") or None,
        precisions=spec.get("precisions") or None,
        scenarios=spec.get("scenarios") or None,
        device=device,
        open_file=False,
    )


def plan_items(spec: dict, device: str | None = None) -> list:
    """The harness items (``SuiteItem``) a spec stands for, with its sweep and duration overrides applied."""
    if spec.get("endpoint") is not None:
        return plan_endpoint_items(spec)
    from harness.suite import plan_suite  # loads torch: the agent's side only

    if spec.get("user_workload") is not None:
        items = plan_user_workload_items(spec, device)
    else:
        items = plan_suite(
            spec.get("suite") or "quick",
            workloads=spec.get("workloads") or None,
            backends=spec.get("backends") or None,
            precisions=spec.get("precisions") or None,
            sizes=spec.get("sizes") or None,
            device=device,
        )
    scenarios = spec.get("scenarios") or None
    overrides = {
        "offline_batch_sizes": tuple(spec.get("offline_batch_sizes") or ()),
        "server_load_fractions": tuple(spec.get("server_load_fractions") or ()),
        "min_duration_ms": spec.get("min_duration_ms"),
        "min_query_count": spec.get("min_query_count"),
        "rounds": spec.get("rounds"),
    }
    overrides = {name: value for name, value in overrides.items() if value}
    return [
        dataclasses.replace(item, settings=item.settings.with_(**overrides))
        for item in items
        if scenarios is None or item.scenario in scenarios
    ]
