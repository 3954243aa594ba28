"""A real Open Inference Protocol v2 server (KServe's Python model server) measured by the endpoint SUT."""

import pytest

from agents.harness.endpoints.run import EndpointItem, run_endpoint_item
from agents.harness.endpoints.target import Endpoint
from agents.harness.result import validate_result
from agents.harness.scenarios import RunSettings

pytestmark = pytest.mark.slow

SETTINGS = RunSettings(min_duration_ms=500, min_query_count=16, warmup_queries=4, performance_sample_count=8,
                       concurrency_max=2, server_rates_qps=(10.0,), server_target_latency_ms=2000)  # fmt: skip


@pytest.mark.parametrize("scenario", ["concurrency-sweep", "server"])
def test_a_v2_server_is_measured_request_by_request(kserve_server, tmp_path, scenario):
    endpoint = Endpoint("kserve-tiny", "oip-v2", kserve_server, "tiny-linear", v2_input_name="input-0",
                        v2_input_shape=(1, 4), v2_datatype="FP32")  # fmt: skip
    result = run_endpoint_item(EndpointItem(endpoint, scenario, SETTINGS), tmp_path)
    validate_result(result)
    assert result["workload"]["id"] == "endpoint:kserve-tiny" and result["backend"] == "oip-v2"
    for point in result["points"]:
        block = point["endpoint"]
        assert point["throughput_unit"] == "inferences" and point["throughput_per_s"] > 0 and point["llm"] is None
        assert block["errors"] == 0 and block["requests"] == point["sample_count"] >= 16
        assert block["e2e_ms"]["p50"] > 0 and block["ttft_ms"] is None and block["output_tokens_total"] is None
        assert block["good_requests"] <= block["requests"]
