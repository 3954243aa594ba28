"""HTTP requests to an endpoint, timed per chunk: OpenAI-compatible streaming and Open Inference Protocol v2.

Each request yields a ``RequestRecord``: when it was sent, when its first token chunk arrived (TTFT),
when each later token chunk arrived (inter-token latencies), when it ended, the server's ``usage``
token counts, and the error if it failed. A failed request is recorded with its error, never dropped.

The client is aiohttp's, as vLLM's own benchmark client. Against a no-op server in another process, a
32-chunk streamed request cost this client 0.7-1.2 ms of CPU (1.4-2.0 ms mean latency), where httpx cost
4.7-6.9 ms (5.9-8.5 ms): on a host whose cores the server under test also needs, the client's own CPU delays
the server's tokens. ``benchmarks/endpoint_client.py`` measures it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp

from .target import Endpoint

# What a failed request raises: the connection or protocol (aiohttp), a timeout, a body that is not JSON.
REQUEST_ERRORS = (aiohttp.ClientError, TimeoutError, json.JSONDecodeError, UnicodeDecodeError)

clock = time.perf_counter_ns


@dataclass
class RequestRecord:
    sent_ns: int
    first_token_ns: int | None = None
    chunk_ns: list[int] = field(default_factory=list)  # arrival of each token chunk, the first included
    done_ns: int | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def latency_ns(self) -> int:
        return (self.done_ns or self.sent_ns) - self.sent_ns

    @property
    def ttft_ns(self) -> int | None:
        return None if self.first_token_ns is None else self.first_token_ns - self.sent_ns

    @property
    def tpot_ns(self) -> float | None:
        """Time per output token after the first: (last content chunk - first) / (tokens - 1)."""
        if self.first_token_ns is None or not self.completion_tokens or self.completion_tokens < 2:
            return None
        return (self.chunk_ns[-1] - self.first_token_ns) / (self.completion_tokens - 1)

    def inter_token_ns(self) -> list[int]:
        return [b - a for a, b in zip(self.chunk_ns, self.chunk_ns[1:], strict=False)]


def prompt_token_ids(length: int, index: int, vocab_size: int = 1000) -> list[int]:
    """A deterministic prompt of exactly ``length`` token ids, different per sample ``index`` (so a prefix
    cache cannot serve one request from another's work). Ids stay in [10, vocab_size)."""
    return [10 + (index * 7919 + i * 104729) % (vocab_size - 10) for i in range(length)]


def prompt_text(length: int, index: int) -> str:
    """A chat prompt of about ``length`` words; the server's ``usage`` says how many tokens it made."""
    words = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")
    return " ".join(words[(index + i) % len(words)] for i in range(length))


def openai_request(endpoint: Endpoint, index: int, prompt: str | None = None) -> tuple[str, dict]:
    """The path and body of request ``index``: a synthetic prompt of the endpoint's length, or ``prompt`` (a trace's
    text, sent as it is)."""
    common = {
        "model": endpoint.model,
        "max_tokens": endpoint.output_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.0,
    }
    if endpoint.ignore_eos:
        common["ignore_eos"] = True
    if endpoint.protocol == "openai-chat":
        messages = [{"role": "user", "content": prompt or prompt_text(endpoint.prompt_tokens, index)}]
        return "/v1/chat/completions", common | {"messages": messages}
    return "/v1/completions", common | {"prompt": prompt or prompt_token_ids(endpoint.prompt_tokens, index)}


def _is_token_chunk(chunk: dict) -> bool:
    """A chunk that carries generated output: any chunk with choices. Its text may be empty: a streaming
    detokenizer holds a token's text back until it completes a character (byte-level vocabularies), and a
    chat stream opens with the role. Counting only chunks with text would date the first token at the first
    printable character, late by every held-back token (vLLM's own benchmark client counts choices chunks
    too). The closing usage chunk has no choices."""
    return bool(chunk.get("choices"))


async def stream_openai(
    client: aiohttp.ClientSession,
    base_url: str,
    endpoint: Endpoint,
    index: int,
    on_first_token: Callable[[], None] | None = None,
    prompt: str | None = None,
) -> RequestRecord:
    """One streamed completion (of ``prompt`` when given); ``on_first_token`` runs when the first token chunk
    arrives."""
    path, body = openai_request(endpoint, index, prompt)
    record = RequestRecord(sent_ns=clock())
    try:
        async with client.post(base_url + path, json=body, headers=endpoint.headers()) as response:
            if response.status != 200:
                text = (await response.read()).decode(errors="replace")[:200]
                record.error = f"HTTP {response.status}: {text}"
                return record
            async for raw_line in response.content:  # one server-sent-events line at a time, as it arrives
                if not raw_line.startswith(b"data:"):
                    continue
                data = raw_line[5:].strip().decode()
                if data == "[DONE]":
                    break
                chunk = json.loads(data)
                if "error" in chunk:
                    record.error = f"stream error: {chunk['error']}"
                    return record
                now = clock()
                if _is_token_chunk(chunk):
                    if record.first_token_ns is None:
                        record.first_token_ns = now
                        if on_first_token:
                            on_first_token()
                    record.chunk_ns.append(now)
                usage = chunk.get("usage")
                if usage:
                    record.prompt_tokens = usage.get("prompt_tokens")
                    record.completion_tokens = usage.get("completion_tokens")
    except REQUEST_ERRORS as exc:
        record.error = f"{type(exc).__name__}: {exc}"
        return record
    finally:
        record.done_ns = clock()
    if record.completion_tokens is None:
        record.error = "the stream ended without a usage block (does the server support stream_options?)"
    elif record.first_token_ns is None:
        record.error = "the stream carried no generated tokens"
    return record


def v2_request(endpoint: Endpoint, index: int) -> dict:
    count = 1
    for size in endpoint.v2_input_shape:
        count *= size
    data = [float((index * 31 + i) % 17) / 17.0 for i in range(count)]
    if endpoint.v2_datatype.startswith(("INT", "UINT")):
        data = [int(v * 17) for v in data]
    tensor = {"name": endpoint.v2_input_name, "shape": list(endpoint.v2_input_shape),
              "datatype": endpoint.v2_datatype, "data": data}  # fmt: skip
    return {"id": str(index), "inputs": [tensor]}


async def infer_v2(
    client: aiohttp.ClientSession, base_url: str, endpoint: Endpoint, index: int, on_first_token=None
) -> RequestRecord:
    """One Open Inference Protocol v2 inference (``POST /v2/models/{name}/infer``)."""
    record = RequestRecord(sent_ns=clock())
    url = f"{base_url}/v2/models/{endpoint.model}/infer"
    try:
        async with client.post(url, json=v2_request(endpoint, index), headers=endpoint.headers()) as response:
            body = await response.read()
        if response.status != 200:
            record.error = f"HTTP {response.status}: {body.decode(errors='replace')[:200]}"
        elif not json.loads(body).get("outputs"):
            record.error = "the response carried no outputs"
    except REQUEST_ERRORS as exc:
        record.error = f"{type(exc).__name__}: {exc}"
    finally:
        record.done_ns = clock()
    return record


def request_function(endpoint: Endpoint):
    return infer_v2 if endpoint.protocol == "oip-v2" else stream_openai
