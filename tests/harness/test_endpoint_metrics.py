"""Reading a server's own timing from its Prometheus metrics: the difference between two scrapes."""

import pytest

from harness.endpoints.metrics import Scrape, parse_metrics, server_timing


def vllm_text(requests: float, e2e_sum_s: float, queue_sum_s: float, tokens: float) -> str:
    # The shape of vLLM 0.32's exposition (names, labels, a counter per finish reason), numbers chosen here.
    return f"""# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{{engine="0",model_name="tiny-llama"}} {tokens}
# HELP vllm:request_success_total Count of successfully processed requests.
# TYPE vllm:request_success_total counter
vllm:request_success_total{{engine="0",finished_reason="stop",model_name="tiny-llama"}} 1.0
vllm:request_success_total{{engine="0",finished_reason="length",model_name="tiny-llama"}} {requests - 1}
# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{{engine="0",le="+Inf",model_name="tiny-llama"}} {requests}
vllm:e2e_request_latency_seconds_count{{engine="0",model_name="tiny-llama"}} {requests}
vllm:e2e_request_latency_seconds_sum{{engine="0",model_name="tiny-llama"}} {e2e_sum_s}
# HELP vllm:request_queue_time_seconds Histogram of time spent in WAITING phase for request.
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{{engine="0",le="+Inf",model_name="tiny-llama"}} {requests}
vllm:request_queue_time_seconds_count{{engine="0",model_name="tiny-llama"}} {requests}
vllm:request_queue_time_seconds_sum{{engine="0",model_name="tiny-llama"}} {queue_sum_s}
"""


def test_vllm_timing_is_the_mean_over_the_requests_between_two_scrapes():
    before = parse_metrics(vllm_text(requests=10, e2e_sum_s=2.0, queue_sum_s=0.1, tokens=160))
    after = parse_metrics(vllm_text(requests=30, e2e_sum_s=8.0, queue_sum_s=0.5, tokens=480))
    timing = server_timing(before, after)
    assert timing["source"] == "vllm" and timing["requests"] == 20 and timing["generation_tokens"] == 320
    assert timing["e2e_ms_mean"] == pytest.approx(300.0) and timing["queue_ms_mean"] == pytest.approx(20.0)
    assert timing["timed_stages"] == ["e2e"] and timing["timed_ms_mean"] == timing["e2e_ms_mean"]


def test_triton_counters_of_microseconds_give_mean_queue_and_compute_time():
    def text(requests, queue_us, compute_us, request_us):
        labels = '{model="m",version="1"}'
        return (f"# TYPE nv_inference_request_success counter\nnv_inference_request_success{labels} {requests}\n"
                f"# TYPE nv_inference_queue_duration_us counter\nnv_inference_queue_duration_us{labels} {queue_us}\n"
                f"# TYPE nv_inference_compute_infer_duration_us counter\n"
                f"nv_inference_compute_infer_duration_us{labels} {compute_us}\n"
                f"# TYPE nv_inference_request_duration_us counter\n"
                f"nv_inference_request_duration_us{labels} {request_us}\n")  # fmt: skip

    timing = server_timing(parse_metrics(text(5, 500, 5000, 6000)), parse_metrics(text(15, 2500, 25000, 31000)))
    assert timing["source"] == "triton" and timing["requests"] == 10
    assert timing["queue_ms_mean"] == pytest.approx(0.2) and timing["compute_ms_mean"] == pytest.approx(2.0)
    assert timing["e2e_ms_mean"] == pytest.approx(2.5) and timing["timed_ms_mean"] == timing["e2e_ms_mean"]


def test_stages_timed_over_different_requests_give_no_own_time_of_the_server():
    # KServe's stages one after the other: a predict that raised is counted by predict, never by postprocess.
    def kserve(requests: float, postprocessed: float) -> Scrape:
        counts = {"preprocess": requests, "compute": requests, "postprocess": postprocessed}
        sums_s = {"preprocess": 0.001 * requests, "compute": 0.01 * requests, "postprocess": 0.001 * postprocessed}
        return Scrape("kserve", sums_s, counts, {"requests": requests})

    whole = server_timing(kserve(10, 10), kserve(20, 20))
    assert whole["requests"] == 10 and whole["timed_ms_mean"] == pytest.approx(12.0)
    one_failed = server_timing(kserve(10, 10), kserve(20, 19))
    assert one_failed["compute_ms_mean"] == pytest.approx(10.0) and one_failed["timed_ms_mean"] is None


def test_a_server_without_known_metrics_gives_no_timing():
    assert parse_metrics("# no metrics\n") is None
    assert server_timing(None, None) is None
