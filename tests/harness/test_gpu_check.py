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


def test_items_come_one_by_one_and_those_past_the_budget_are_listed_as_not_run():
    from harness.gpu_check import check_items

    items = [SuiteItem("tabular", "reference", "offline", "eager", precision, "cuda") for precision in ("fp32", "bf16")]
    items.append(SuiteItem("encoder", "reference", "offline", "eager", "fp32", "cuda"))
    now = [0.0]

    def run_one(item):  # each item takes 40 s of the clock
        now[0] += 40.0
        return {"points": []}

    # Budget 60 s: the first item starts at 0 s and the second at 40 s (< 60); the third would start at 80 s.
    checked = list(check_items(items, "/unused", 60.0, run_one=run_one, clock=lambda: now[0]))
    assert [(item.precision, seconds) for item, _, seconds in checked] == [
        ("fp32", 40.0),
        ("bf16", 40.0),
        ("fp32", 0.0),
    ]
    last = checked[-1][1]
    assert isinstance(last, Skip) and last.reason == "not run: the check's time budget (60 s) ran out before it started"
    assert table_rows([items[-1]], [last])[0][3:] == ("-", "skipped", "", last.reason)


def test_an_llm_row_names_its_unit_output_tokens():
    item = SuiteItem("llm-decoder", "reference", "offline", "eager", "bf16", "cuda")
    point = {"batch_size": 32, "throughput_per_s": 550.8, "throughput_unit": "output_tokens",
             "throughput_interval_per_s": {"low": 527.8, "high": 563.9}, "latency_ms": {"p99": 14873.6}}  # fmt: skip
    (row,) = table_rows([item], [{"points": [point]}])
    assert row[4] == "550.8 [527.8, 563.9] output tokens" and row[6] == "valid"


def test_the_profile_line_names_the_top_three_operators_by_device_self_time_or_why_there_is_none():
    from harness.gpu_check import profile_line

    kernels = (("nvjet_gemm", 6.0), ("gelu_kernel", 2.5), ("add_kernel", 1.0), ("Memcpy HtoD", 0.5))
    operators = [{"name": name, "self_ms": ms, "share": ms / 10.0, "calls": 1} for name, ms in kernels]
    block = {"batch_size": 32, "time_kind": "self_device", "total_self_ms": 10.0, "operators": operators}
    # Shares of 10 ms: 6.0 -> 60 %, 2.5 -> 25 %, 1.0 -> 10 %; the fourth operator is left out.
    assert profile_line({"profile": block}) == (
        "  profile (b=32, device self time 10.00 ms): nvjet_gemm 60%, gelu_kernel 25%, add_kernel 10%"
    )
    opaque = {"batch_size": 8, "not_profiled": "TensorRT runs its engine outside PyTorch"}
    assert profile_line({"profile": opaque}) == "  profile: not profiled: TensorRT runs its engine outside PyTorch"
    assert profile_line(Skip("tabular", "offline", "tensorrt", "fp16", "tensorrt not installed")) is None
