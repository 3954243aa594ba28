"""Scenarios on MLPerf LoadGen: single-stream, offline (batch sweep) and server (dynamic batching)."""

from .base import SCENARIO_CLASSES, Scenario, get_scenario
from .batcher import DynamicBatcher, Request
from .engine import Engine
from .loadgen_run import SCENARIOS, PointResult, SutFailed
from .offline import Offline, offline_expected_qps, run_offline
from .server import PeakSearch, Server, capacity_qps, find_peak_qps, run_server
from .settings import PRESETS, RunSettings, preset
from .single_stream import SingleStream, run_single_stream

__all__ = [
    "PRESETS",
    "SCENARIOS",
    "SCENARIO_CLASSES",
    "DynamicBatcher",
    "Engine",
    "Offline",
    "PeakSearch",
    "PointResult",
    "Request",
    "RunSettings",
    "Scenario",
    "Server",
    "SingleStream",
    "SutFailed",
    "capacity_qps",
    "find_peak_qps",
    "get_scenario",
    "offline_expected_qps",
    "preset",
    "run_offline",
    "run_server",
    "run_single_stream",
]
