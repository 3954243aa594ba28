"""Scenarios on MLPerf LoadGen: single-stream, offline (batch sweep) and server (dynamic batching)."""

from .batcher import DynamicBatcher, Request
from .engine import Engine
from .loadgen_run import SCENARIOS, PointResult, SutFailed
from .offline import offline_expected_qps, run_offline
from .server import PeakSearch, capacity_qps, find_peak_qps, run_server
from .settings import PRESETS, RunSettings, preset
from .single_stream import run_single_stream

__all__ = [
    "PRESETS",
    "SCENARIOS",
    "DynamicBatcher",
    "Engine",
    "PeakSearch",
    "PointResult",
    "Request",
    "RunSettings",
    "SutFailed",
    "capacity_qps",
    "find_peak_qps",
    "offline_expected_qps",
    "preset",
    "run_offline",
    "run_server",
    "run_single_stream",
]
