"""One LoadGen test: construct SUT/QSL, start the test with logs into a directory, parse the logs."""

from __future__ import annotations

import gc
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import mlperf_loadgen as lg
import numpy as np

from ..loadgen_logs import read_run_dir
from ..telemetry import PointEnergy, TelemetrySession

SCENARIOS = {"single-stream": "SingleStream", "offline": "Offline", "server": "Server"}
DETAIL_LOG_MAX_BYTES = 512 * 1024
# LoadGen allows one test at a time per process.
_LOADGEN_LOCK = threading.Lock()


@dataclass
class SutRecord:
    """What our SUT measured during one LoadGen test: per-request splits (ns) and batch sizes."""

    queue_wait_ns: list[int] = field(default_factory=list)
    batch_formation_ns: list[int] = field(default_factory=list)
    h2d_ns: list[int] = field(default_factory=list)
    compute_ns: list[int] = field(default_factory=list)
    d2h_ns: list[int] = field(default_factory=list)
    end_to_end_ns: list[int] = field(default_factory=list)
    # The size of the batch each request of ``end_to_end_ns`` ran in (the Server's batcher; empty elsewhere).
    request_batch_sizes: list[int] = field(default_factory=list)
    batch_sizes: Counter = field(default_factory=Counter)
    samples: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class PointResult:
    """One measured point: LoadGen's parsed verdict and logs plus the SUT's own split."""

    scenario: str
    batch_size: int
    concurrency: int | None
    offered_rate_qps: float | None
    parsed: dict
    summary_log: str
    detail_log: str
    log_dir: str
    sut: SutRecord
    energy: PointEnergy
    output_tokens: int = 0
    prompt_tokens: int = 0
    # Server: requests the SUT completed per second, first arrival to last completion (under overload,
    # its capacity including the per-request cost that an Offline run does not pay).
    completed_per_s: float | None = None
    # An endpoint's point: the client's per-request figures, goodput and the server's own timing.
    endpoint: dict | None = None


class SutFailed(RuntimeError):
    """The backend raised while LoadGen was timing it: the point failed and was not measured."""


class SutFailure:
    """The first exception raised inside the SUT (in LoadGen's thread or ours), kept with its traceback.

    LoadGen waits for every query it issued and cannot abort a test, so once the SUT has failed it must
    still complete each query (without running it) for the test to end; the scenario then raises
    ``SutFailed`` from the original exception.
    """

    def __init__(self) -> None:
        self.error: Exception | None = None

    def record(self, exc: Exception) -> None:
        if self.error is None:
            self.error = exc

    def raise_if_failed(self, scenario: str) -> None:
        raise_sut_failure(scenario, self.error)


def raise_sut_failure(scenario: str, error: Exception | None) -> None:
    if error is not None:
        what = f"{type(error).__name__}: {error}"
        raise SutFailed(f"{scenario}: the backend raised during the LoadGen test: {what}") from error


def throughput_of(point: PointResult) -> tuple[float, str]:
    """(throughput, unit): LoadGen's output tokens/s for a generative workload, else its samples/s."""
    if point.output_tokens:
        throughput, unit = point.parsed.get("tokens_per_second"), "output_tokens"
    else:
        throughput, unit = point.parsed.get("samples_per_second"), "inferences"
    if not throughput or throughput <= 0:
        raise ValueError(f"LoadGen reported no throughput for {point.log_dir}")
    return float(throughput), unit


def assemble_point(
    scenario: str,
    engine,
    run: tuple[dict, str, str, PointEnergy],
    log_dir: Path,
    record: SutRecord,
    *,
    batch_size: int,
    concurrency: int | None = None,
    offered_rate_qps: float | None = None,
    completed_per_s: float | None = None,
) -> PointResult:
    """A PointResult from one LoadGen test's ``run_test`` outcome and the SUT's record (written once for
    every scenario)."""
    parsed, summary, detail, energy = run
    prompt_tokens = engine.workload.prompt_tokens() if engine.is_generative else 0
    return PointResult(
        scenario,
        batch_size,
        concurrency,
        None if offered_rate_qps is None else float(offered_rate_qps),
        parsed,
        summary,
        detail,
        str(log_dir),
        record,
        energy,
        engine.workload.output_tokens(),
        prompt_tokens,
        completed_per_s,
    )


class Responder:
    """Builds LoadGen responses; keeps response buffers alive until LoadGen has read them."""

    def __init__(self, output_tokens: int):
        self.output_tokens = output_tokens
        self._buffer = np.zeros(max(1, output_tokens), dtype=np.int64)
        # Read once: numpy's .ctypes.data costs about 1 us a call, as much as the rest of a response.
        self._address, self._itemsize = self._buffer.ctypes.data, self._buffer.itemsize

    def response(self, query_id: int, tokens: int | None = None) -> lg.QuerySampleResponse:
        n_tokens = self.output_tokens if tokens is None else tokens
        return lg.QuerySampleResponse(query_id, self._address, self._itemsize * max(1, n_tokens), n_tokens)

    def first_tokens(self, query_ids: list[int]) -> None:
        lg.FirstTokenComplete([self.response(q, 1) for q in query_ids])

    def complete(self, query_ids: list[int]) -> None:
        # Inlined response(q): a method call per sample costs ~0.2 us, 4% of tabular offline at 175k/s.
        address, size, tokens = self._address, self._itemsize * max(1, self.output_tokens), self.output_tokens
        lg.QuerySamplesComplete([lg.QuerySampleResponse(q, address, size, tokens) for q in query_ids])


def base_settings(
    scenario: str, min_duration_ms: int, min_query_count: int, sample_count: int, token_latencies: bool
) -> lg.TestSettings:
    settings = lg.TestSettings()
    settings.scenario = getattr(lg.TestScenario, SCENARIOS[scenario])
    settings.mode = lg.TestMode.PerformanceOnly
    settings.min_duration_ms = int(min_duration_ms)
    settings.min_query_count = int(min_query_count)
    settings.performance_sample_count_override = sample_count
    settings.use_token_latencies = token_latencies
    return settings


def run_test(
    settings: lg.TestSettings, issue, flush, sample_count: int, log_dir: Path, telemetry: TelemetrySession
) -> tuple[dict, str, str, PointEnergy]:
    """Run one LoadGen test; returns (parsed logs, summary text, detail text, energy of the window).

    ``issue(ids, indices)`` receives each query's sample ids and QSL indices as two lists of ints
    (LoadGen's "fast" SUT): no Python object per sample, which matters at 100,000 samples/s.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    log_settings = lg.LogSettings()
    log_settings.log_output.outdir = str(log_dir)
    log_settings.log_output.copy_summary_to_stdout = False
    log_settings.enable_trace = False
    # Write logs after the test: a polling logger thread would compete with the model for CPU cores.
    log_settings.log_mode = lg.LoggingMode.EndOfTestOnly
    with _LOADGEN_LOCK:
        sut = lg.ConstructFastSUT(issue, flush)
        qsl = lg.ConstructQSL(sample_count, sample_count, lambda _: None, lambda _: None)
        # No cyclic garbage collection while LoadGen times queries (as timeit does): a full collection
        # walks every object in the process (torch alone holds hundreds of thousands) and stalled a
        # server run for ~100 ms, which became its p99. Reference counting still frees what the SUT drops.
        gc_was_enabled = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            telemetry.begin_point()
            lg.StartTestWithLogSettings(sut, qsl, settings, log_settings)
            energy = telemetry.end_point()
        finally:
            if gc_was_enabled:
                gc.enable()
            lg.DestroyQSL(qsl)
            lg.DestroyFastSUT(sut)
    parsed = read_run_dir(log_dir)
    summary, detail = parsed.pop("summary_text") or "", parsed.pop("detail_text") or ""
    detail_bytes = detail.encode()
    if len(detail_bytes) > DETAIL_LOG_MAX_BYTES:
        detail = detail_bytes[:DETAIL_LOG_MAX_BYTES].decode(errors="ignore")
    return parsed, summary, detail, energy
