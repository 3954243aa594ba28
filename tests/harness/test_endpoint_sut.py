"""The endpoint SUT against a no-op server: LoadGen drives HTTP requests; every token and error is counted."""

import asyncio
import json

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from harness.endpoints.client import stream_openai
from harness.endpoints.engines.noop_server import NoopServer
from harness.endpoints.run import EndpointItem, run_endpoint_item, run_endpoint_items
from harness.endpoints.target import Endpoint, endpoint_errors, redact_url
from harness.result import validate_result
from harness.runner import Failure

from .conftest_helpers import FAST

SHORT = FAST.with_(min_duration_ms=300, min_query_count=8, warmup_queries=2, concurrency_max=2)


def endpoint(port, **changes) -> Endpoint:
    fields = {"name": "noop", "protocol": "openai-completions", "url": f"http://127.0.0.1:{port}", "model": "noop",
              "prompt_tokens": 5, "output_tokens": 4} | changes  # fmt: skip
    return Endpoint(**fields)


@pytest.mark.parametrize("protocol", ["openai-completions", "openai-chat"])
def test_it_counts_the_servers_usage_tokens_and_times_every_request(tmp_path, protocol):
    with NoopServer(18061):
        result = run_endpoint_item(
            EndpointItem(endpoint(18061, protocol=protocol), "concurrency-sweep", SHORT), tmp_path
        )
    validate_result(result)
    assert result["workload"]["name"] == "endpoint:noop" and result["backend"] == protocol
    assert [p["concurrency"] for p in result["points"]] in ([1], [1, 2])
    for point in result["points"]:
        block = point["endpoint"]
        assert block["errors"] == 0 and block["requests"] == point["sample_count"] > 0
        assert block["output_tokens_total"] == 4 * block["requests"]  # the server's usage, summed
        assert point["llm"]["output_tokens"] == 4 and block["ttft_ms"]["p50"] > 0 and block["itl_ms"] is not None
        assert block["good_requests"] <= block["requests"] and block["server"] is None  # no metrics URL given


def test_failed_requests_are_counted_never_dropped(tmp_path):
    flaky = endpoint(18062, url="http://127.0.0.1:18062/flaky")  # every other request answers 500
    with NoopServer(18062):
        result = run_endpoint_item(EndpointItem(flaky, "concurrency-sweep", SHORT.with_(concurrency_max=1)), tmp_path)
    (point,) = result["points"]
    block = point["endpoint"]
    assert block["requests"] == point["sample_count"] and abs(block["errors"] - block["requests"] / 2) <= 1
    assert block["output_tokens_total"] == 4 * (block["requests"] - block["errors"])
    assert block["good_requests"] <= block["requests"] - block["errors"]
    assert block["error_examples"] == ['HTTP 500: {"error": "failing on purpose"}']


def test_a_point_whose_every_request_fails_fails_its_item_with_the_errors(tmp_path):
    failing = endpoint(18065, url="http://127.0.0.1:18065/fail")
    with NoopServer(18065):
        (failure,) = run_endpoint_items([EndpointItem(failing, "concurrency-sweep", SHORT)], tmp_path)
    assert isinstance(failure, Failure) and failure.workload == "endpoint:noop"
    assert failure.error.startswith("EndpointFailed: all ") and "HTTP 500" in failure.error


def test_the_server_scenario_offers_poisson_arrivals_at_the_given_rate(tmp_path):
    with NoopServer(18063):
        result = run_endpoint_item(
            EndpointItem(endpoint(18063), "server", SHORT.with_(server_rates_qps=(40.0,))), tmp_path
        )
    (point,) = result["points"]
    assert point["offered_rate_qps"] == 40.0 and point["endpoint"]["errors"] == 0
    assert point["llm"]["ttft_ms"] is not None and point["llm"]["tpot_ms"] is not None


def test_the_api_key_is_sent_but_appears_in_no_payload_or_file(tmp_path):
    secret = "sk-test-5f3c9a"
    with NoopServer(18064, api_key=secret):
        item = EndpointItem(endpoint(18064, api_key=secret), "concurrency-sweep", SHORT.with_(concurrency_max=1))
        result = run_endpoint_item(item, tmp_path)
    assert result["points"][0]["endpoint"]["errors"] == 0  # the server accepted the key
    assert result["endpoint"]["authenticated"] is True
    assert secret not in json.dumps(result) and secret not in repr(item)
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and secret in p.read_text(errors="replace")]


def test_a_url_is_shown_without_its_credentials():
    assert redact_url("http://bob:hunter2@h:8000/v1?api_key=abc&x=1") == "http://h:8000/v1?api_key=***&x=1"


def test_a_bad_declaration_is_rejected_naming_each_field():
    errors = endpoint_errors(
        {"name": "Bad Name", "protocol": "grpc", "url": "ftp://x", "model": "", "output_tokens": 0}
    )
    assert set(errors) == {"name", "protocol", "url", "model", "output_tokens"}
    with pytest.raises(ValueError, match=r"endpoint\.protocol: unknown 'grpc'"):
        endpoint(1, protocol="grpc")


@pytest.mark.parametrize("protocol", ["openai-completions", "openai-chat"])
def test_a_token_chunk_with_empty_text_counts_as_a_token(protocol):
    """A streaming detokenizer holds back the text of a token that ends mid-character: its chunk has empty
    text. The first token is dated at the first chunk with choices, not at the first printable text."""
    chat = protocol == "openai-chat"
    texts = ["", "", "", "ab", "c"]
    choice = (lambda text: {"delta": {"content": text}, "index": 0}) if chat else (lambda text: {"text": text})
    events = [{"choices": [choice(text)]} for text in texts]
    events.append({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": len(texts)}})
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"

    async def answer(request):
        return web.Response(text=body, content_type="text/event-stream")

    async def one():
        app = web.Application()
        app.router.add_post("/v1/{path:.*}", answer)
        async with TestServer(app, host="127.0.0.1") as server, aiohttp.ClientSession() as client:
            base_url = str(server.make_url("")).rstrip("/")
            return await stream_openai(client, base_url, endpoint(1, protocol=protocol, output_tokens=len(texts)), 0)

    record = asyncio.run(one())
    assert record.ok and record.completion_tokens == len(texts)
    assert len(record.chunk_ns) == len(texts)  # the three empty-text chunks are tokens too
    assert record.first_token_ns == record.chunk_ns[0]
