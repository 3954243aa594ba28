"""A trace replayed at its recorded arrival times as one operating point (``trace-replay``), without LoadGen.

LoadGen cannot issue queries at given times, so the replay (``replay.py``) sends them and this scenario turns
its requests into a point the way the endpoint scenarios do (``figures.endpoint_block``: the client's TTFT, TPOT
and end-to-end latency, the server's usage totals and its own timing). The point states its own fidelity: the
send lag (scheduled vs actual send time) of every request, and it is not valid when any request left later than
``SEND_LAG_TOLERANCE_MS`` after its schedule (the server no longer saw the trace's load). Its ``loadgen`` block
says that no LoadGen test ran: its summary log is the replay's own summary.
"""

from __future__ import annotations

from pathlib import Path

from ..scenarios.base import Scenario
from ..scenarios.loadgen_run import PointResult, SutRecord
from ..scenarios.settings import RunSettings
from ..stats import LATENCY_KEYS, NS_PER_MS, latency_summary_ms
from ..telemetry import TelemetrySession
from .figures import endpoint_block
from .replay import SEND_LAG_TOLERANCE_MS, ReplayedRequest, replay_errors, send_lag_summary_ms
from .scenarios import EndpointFailed, _scrape
from .sut import EndpointSUT
from .trace import Trace

TRACE_REPLAY = "trace-replay"


class TraceArrivals(Scenario):
    """Open loop at the trace's recorded arrival times (scaled by ``time_scale``): one point per round."""

    name = TRACE_REPLAY

    def __init__(self, settings: RunSettings, trace: Trace, time_scale: float = 1.0,
                 send_lag_tolerance_ms: float = SEND_LAG_TOLERANCE_MS):  # fmt: skip
        super().__init__(settings)
        self.trace, self.time_scale, self.send_lag_tolerance_ms = trace, time_scale, send_lag_tolerance_ms
        # Every replayed request's send lag (ns), all rounds: the run's stated fidelity.
        self.send_lags_ns: list[int] = []

    def labels(self) -> list[str]:
        return [f"arrivals time_scale={self.time_scale:g}"]

    def calibrate(self, sut: EndpointSUT, point: int, log_dir: Path, log_root: Path, telemetry) -> None:
        errors = replay_errors(self.trace, sut.endpoint)
        if errors:
            raise ValueError("; ".join(errors))
        sut.run_direct(self.settings.warmup_queries, concurrency=4, start_index=len(sut.samples))

    def measure(self, sut: EndpointSUT, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        before = _scrape(sut)
        telemetry.begin_point()
        replayed = sut.replay(self.trace, self.time_scale)
        energy = telemetry.end_point()
        after = _scrape(sut)
        records = [request.record for request in replayed]
        if not any(record.ok for record in records):
            examples = "; ".join(dict.fromkeys(r.error for r in records))
            raise EndpointFailed(f"all {len(records)} requests failed: {examples[:500]}")
        self.send_lags_ns += [request.send_lag_ns for request in replayed]
        block = endpoint_block(records, self.settings, sut.is_generative, before, after)
        parsed = self._parsed(replayed, block)
        log_dir.mkdir(parents=True, exist_ok=True)
        (log_dir / "replay_summary.txt").write_text(parsed["summary_text"])
        result = PointResult(
            TRACE_REPLAY, 1, None, self.offered_rate_qps(), parsed, parsed.pop("summary_text"), "", str(log_dir),
            SutRecord(end_to_end_ns=[r.latency_ns for r in records if r.ok], samples=len(records)), energy,
            sut.workload.output_tokens(), sut.workload.prompt_tokens(),
        )  # fmt: skip
        result.endpoint = block
        return result

    def offered_rate_qps(self) -> float | None:
        """The trace's mean arrival rate as replayed (its recorded rate / time_scale)."""
        arrivals = self.trace.distributions()["arrivals"] or {}
        rate = arrivals.get("mean_rate_per_s")
        return rate / self.time_scale if rate else None

    def _parsed(self, replayed: list[ReplayedRequest], block: dict) -> dict:
        """The point's verdict in the shape the payload reads LoadGen's in (``parsed``)."""
        lag = send_lag_summary_ms(replayed)
        late = [r for r in replayed if r.send_lag_ns > self.send_lag_tolerance_ms * NS_PER_MS]
        reasons = [
            f"{len(late)} of {len(replayed)} requests left more than {self.send_lag_tolerance_ms:g} ms after their "
            f"recorded arrival (worst {lag['max']:.1f} ms): the server did not see the trace's load"
        ] if late else []  # fmt: skip
        ok = [r.record.latency_ns for r in replayed if r.record.ok]
        latency_ms = latency_summary_ms(ok)
        summary_text = (
            f"InferLedger trace replay (no LoadGen test): trace {self.trace.name} ({self.trace.format}), "
            f"{len(replayed)} requests at their recorded arrival times x{self.time_scale:g}\n"
            f"Result is : {'INVALID' if late else 'VALID'}\n"
            f"Send lag (scheduled vs actual send) ms: p50 {lag['p50']:.3f}, p99 {lag['p99']:.3f}, "
            f"max {lag['max']:.3f} (tolerance {self.send_lag_tolerance_ms:g})\n"
            f"Requests completed: {len(ok)}, failed: {block['errors']}\n"
            + "".join(f"{reason}\n" for reason in reasons)
        )  # fmt: skip
        return {
            "scenario": TRACE_REPLAY,
            "result_valid": not late,
            "verdict": "INVALID" if late else "VALID",
            "reasons": reasons,
            "early_stopping": None,
            "constraints": {"send_lag_within_tolerance": not late},
            "samples_per_second": block["request_throughput_per_s"],
            "tokens_per_second": block["output_tokens_per_s"],
            "query_count": len(replayed),
            "latency_ns": {key: latency_ms[key] * NS_PER_MS for key in LATENCY_KEYS},
            "summary_text": summary_text,
        }

    def send_lag_ms(self) -> dict | None:
        return latency_summary_ms(self.send_lags_ns) if self.send_lags_ns else None
