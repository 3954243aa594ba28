"""Run settings and the quick / standard / publishable presets."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace


@dataclass(frozen=True)
class RunSettings:
    """Everything that shapes a measurement; recorded verbatim in each result's ``settings``."""

    min_duration_ms: int = 1000
    min_query_count: int = 64
    warmup_queries: int = 10
    performance_sample_count: int = 16
    offline_batch_sizes: tuple[int, ...] = (1, 8, 32)
    server_load_fractions: tuple[float, ...] = (0.5,)
    # Explicit offered rates (queries/s) instead of fractions of the calibrated capacity: lets a second
    # run offer exactly the load of a first one, so their latencies can be compared.
    server_rates_qps: tuple[float, ...] = ()
    server_max_batch_size: int = 8
    server_max_queue_wait_ms: float = 2.0
    server_target_latency_ms: float = 100.0
    llm_ttft_latency_ms: float = 2000.0
    llm_tpot_latency_ms: float = 200.0
    # Endpoints' concurrency sweep: 1, 2, 4, ... up to this, stopping once throughput grows by less than
    # concurrency_growth_min from one level to the next or the TTFT/TPOT SLOs (llm_*_latency_ms) break.
    concurrency_max: int = 64
    concurrency_growth_min: float = 0.10
    accuracy_batch_size: int = 4
    seed: int = 0
    # Intra-op threads for the model; 0 = one fewer than the CPUs, so the load generator, the batcher
    # and Python keep a core. On a 2-core host two intra-op threads contend with LoadGen's thread and
    # latency flips between a fast and a slow phase from one run to the next.
    intra_op_threads: int = 0
    # Every point is measured this many times, in rounds over the whole suite (so a point's measurements
    # are a suite's length apart, not back to back), and its best round is reported with every round's
    # figure beside it. A shared or virtual machine has slow phases of a few seconds (a plain matmul loop
    # here: 20-30% slower for 1-8 s at a time); one short measurement lands in one now and then, while
    # all rounds of a point, a minute apart, rarely do.
    rounds: int = 1
    # Up to this many more rounds, each over the points whose rounds so far disagree by more than
    # rounds_agreement (best against worst): a disagreement means a round was disturbed.
    extra_rounds: int = 0
    rounds_agreement: float = 0.10
    # Extra rounds stop starting once they have taken this long in all (a suite on a very noisy machine
    # would otherwise double its time).
    extra_rounds_budget_s: float = 30.0
    # The machine's fitness checks (harness.telemetry.host): "enforce" makes a point measured on an unfit host
    # not valid; "record" (a shared host) only records the state and the reasons; "" reads INFERLEDGER_HOST_CHECKS
    # (default enforce) where the point is measured.
    host_checks: str = ""
    preset: str = "custom"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["offline_batch_sizes"] = list(self.offline_batch_sizes)
        data["server_load_fractions"] = list(self.server_load_fractions)
        data["server_rates_qps"] = list(self.server_rates_qps)
        return data

    def with_(self, **changes) -> RunSettings:
        return replace(self, **changes)

    def __post_init__(self):
        if self.rounds < 1:
            raise ValueError("rounds must be at least 1")
        if self.extra_rounds < 0 or self.rounds_agreement < 0:
            raise ValueError("extra_rounds and rounds_agreement must not be negative")
        if self.host_checks not in ("", "enforce", "record"):
            raise ValueError("host_checks must be enforce, record or '' (from INFERLEDGER_HOST_CHECKS)")

    def resolved_threads(self) -> int:
        return self.intra_op_threads or max(1, (os.cpu_count() or 1) - 1)


PRESETS: dict[str, RunSettings] = {
    # Three rounds of one second per point, and up to three more for a point whose rounds disagree by
    # over 10%: enough for a VALID LoadGen verdict on tiny models and for two back-to-back suites to
    # agree on a noisy 2-core virtual machine; not for publishing.
    "quick": RunSettings(
        min_duration_ms=1000, min_query_count=64, warmup_queries=10, rounds=3, extra_rounds=3, preset="quick"
    ),
    "standard": RunSettings(
        min_duration_ms=10_000,
        min_query_count=256,
        warmup_queries=50,
        offline_batch_sizes=(1, 4, 16, 64),
        server_load_fractions=(0.25, 0.5, 0.75),
        preset="standard",
    ),
    # MLPerf Inference rules: 600 s per run, at least 1024 queries (SingleStream's minimum).
    "publishable": RunSettings(
        min_duration_ms=600_000,
        min_query_count=1024,
        warmup_queries=200,
        performance_sample_count=64,
        offline_batch_sizes=(1, 8, 32, 128),
        server_load_fractions=(0.25, 0.5, 0.75, 0.9),
        preset="publishable",
    ),
}


def preset(name: str) -> RunSettings:
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None
