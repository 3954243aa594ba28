"""A point from its rounds: the median round's figures with an interval, and whether the point is valid.

A point is measured in rounds (``settings.rounds``, a suite apart). Its throughput is the median of the
rounds' throughputs with an exact order-statistic interval (``stats.median_interval``); its latency
and the other detail come from the round nearest the median of the scenario's figure of merit (among those
LoadGen judged VALID, when any were). Two things make the point not valid, with the reason stored: rounds
that disagree by more than ``settings.rounds_agreement`` (their spread, (max - min) / median, after any
extra rounds), and a machine unfit to measure on during a round (``telemetry.host``), unless the host
checks only record (a shared host).
"""

from __future__ import annotations

import statistics

from .report import point_payload
from .scenarios import PointResult, RunSettings, Scenario
from .scenarios.loadgen_run import throughput_of
from .stats import median_interval, relative_spread
from .telemetry.host import HostThresholds, host_checks_mode, thresholds_dict, unfit_reasons

NOT_VALID = "not valid: "


def _interval(summary: dict) -> dict:
    return {key: summary[key] for key in ("low", "high", "confidence", "method")}


def point_from_rounds(
    scenario: Scenario,
    runs: list[PointResult],
    settings: RunSettings,
    *,
    other_processes_apply: bool = True,
    thresholds: HostThresholds | None = None,
) -> dict:
    """The payload's ``points[i]`` for one point measured in ``runs`` (one per round, in order)."""
    thresholds = thresholds or HostThresholds()
    values = [scenario.figure_of_merit(run) for run in runs]
    valid = [bool(run.parsed.get("result_valid")) for run in runs]
    candidates = [i for i, ok in enumerate(valid) if ok] or list(range(len(runs)))
    middle = statistics.median(values)
    chosen = min(candidates, key=lambda i: (abs(values[i] - middle), i))
    figure = median_interval(values)
    spread = relative_spread(values) if len(values) > 1 else 0.0
    throughput = median_interval([throughput_of(run)[0] for run in runs])
    block = point_payload(runs[chosen])
    block["throughput_per_s"] = throughput["median"]
    if block["llm"] is not None and block["throughput_unit"] == "output_tokens":
        block["llm"]["output_tokens_per_s"] = throughput["median"]
    block["throughput_interval_per_s"] = _interval(throughput)
    block["rounds"] = {
        "count": len(runs), "chosen_by": scenario.chosen_by, "chosen_round": chosen + 1,
        "values": [round(v, 6) for v in values], "valid": valid,
        "median": figure["median"], "interval": _interval(figure), "spread": spread,
        "agreement": settings.rounds_agreement,
    }  # fmt: skip
    reasons = []
    if spread > settings.rounds_agreement:
        shown = ", ".join(f"{v:.4g}" for v in values)
        reasons.append(f"rounds disagree: {scenario.chosen_by} {shown} spread {spread:.0%} of their median "
                       f"(allowed {settings.rounds_agreement:.0%})")  # fmt: skip
    host_states = [run.energy.host_state for run in runs]
    unfit = [f"round {n}: {reason}" if len(runs) > 1 else reason
             for n, state in enumerate(host_states, start=1)
             for reason in unfit_reasons(state, thresholds, other_processes_apply=other_processes_apply)]  # fmt: skip
    mode = host_checks_mode(settings.host_checks)
    if mode == "enforce":
        reasons += unfit
    block["validity"] = {
        "valid": not reasons,
        "reasons": [NOT_VALID + reason for reason in reasons],
        "host_checks": mode,
        "host_unfit_recorded": unfit if mode == "record" else [],
        "thresholds": thresholds_dict(thresholds) | {"rounds_agreement": settings.rounds_agreement},
        "host": [state for state in host_states if state is not None],
    }
    return block
