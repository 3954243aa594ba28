"""make gpu-check's table: a row per point, and skips and failures with their reasons."""

from harness.gpu_check import table_rows
from harness.runner import Failure, Skip, SuiteItem


def test_the_table_names_each_points_interval_and_verdict_and_each_skip_and_failure():
    items = [
        SuiteItem("tabular", "reference", "offline", backend, "fp16", "cuda")
        for backend in ("eager", "tensorrt", "cudagraphs")
    ]
    steal = "not valid: CPU steal 8.0% (threshold 5%)"
    point = {"batch_size": 8, "throughput_per_s": 1000.0, "throughput_interval_per_s": {"low": 950.0, "high": 1040.0},
             "latency_ms": {"p99": 2.5}, "validity": {"valid": False, "reasons": [steal]}}  # fmt: skip
    results = [
        {"points": [point]},
        Skip("dlrm-v2", "offline", "tensorrt", "fp16", "tensorrt not installed"),
        Failure("dlrm-v2", "offline", "cudagraphs", "fp16", "OutsideProfile: batch sizes [256] are outside\nmore", ""),
    ]
    rows = table_rows(items, results)
    assert [row[3:] for row in rows] == [
        ("b=8", "1000.0 [950.0, 1040.0]", "2.500", steal),
        ("-", "skipped", "", "tensorrt not installed"),
        ("-", "FAILED", "", "OutsideProfile: batch sizes [256] are outside"),
    ]
