"""LoadGen's SUT for a running server: each query becomes one HTTP request on an asyncio loop.

LoadGen's issue callback hands queries to a loop in its own thread; each request reports its first token
chunk to LoadGen (``FirstTokenComplete``) and its end (``QuerySamplesComplete`` with the server's own
output token count from ``usage``). A closed loop caps the requests in flight (the concurrency sweep); an
open loop (Server) sends each query when LoadGen issues it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

import aiohttp
import mlperf_loadgen as lg
import numpy as np

from .client import RequestRecord, request_function, stream_openai
from .replay import ReplayedRequest, replay_async, shaped_for
from .target import Endpoint
from .trace import Trace

# httpx (the metrics scrape, engines' readiness) logs every request's URL at INFO: a URL may carry a secret.
logging.getLogger("httpx").setLevel(logging.WARNING)


@dataclass
class _Workload:
    """What the scenarios read of a workload: token counts for LoadGen and the payload."""

    output_tokens_per_request: int
    prompt_tokens_per_request: int

    def output_tokens(self) -> int:
        return self.output_tokens_per_request

    def prompt_tokens(self) -> int:
        return self.prompt_tokens_per_request


def _split_credentials(url: str) -> tuple[str, aiohttp.BasicAuth | None]:
    """The URL requests go to, without credentials, and the credentials as an auth header: no URL we send or
    log carries them. The base keeps its path (a server behind a prefix) without a trailing slash."""
    parts = urlsplit(url)
    auth = aiohttp.BasicAuth(unquote(parts.username), unquote(parts.password or "")) if parts.username else None
    base_url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])).rstrip("/")
    return base_url, auth


class EndpointSUT:
    """An endpoint driven by LoadGen. ``records`` collects every request of the current test."""

    def __init__(
        self, endpoint: Endpoint, sample_count: int = 64, timeout_s: float = 600.0, trace: Trace | None = None
    ):
        """With a ``trace``, sample i is the trace's request i (its lengths, or its prompt text): LoadGen draws the
        trace's length distribution, and warm-up requests wrap around it."""
        self.endpoint = endpoint
        self.trace = trace
        self.is_generative = endpoint.is_generative
        self.samples = list(range(len(trace.requests) if trace else sample_count))
        output_tokens, prompt_tokens = endpoint.output_tokens, endpoint.prompt_tokens
        if trace is not None:  # LoadGen's figures count each request's own tokens (usage); these are the means
            shapes = [shaped_for(endpoint, trace, index) for index in self.samples]
            output_tokens = max(1, round(sum(e.output_tokens for e in shapes) / len(shapes)))
            prompt_tokens = max(1, round(sum(e.prompt_tokens for e in shapes) / len(shapes)))
        self.workload = _Workload(output_tokens if self.is_generative else 0, prompt_tokens)
        self._request = request_function(endpoint) if trace is None else self._trace_request
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="endpoint-client", daemon=True)
        self._thread.start()
        self._base_url, auth = _split_credentials(endpoint.url)
        self._client = self._call(self._make_client(timeout_s, auth))
        self._limit: asyncio.Semaphore | None = None
        self._in_flight, self._count_lock = 0, threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self.records: list[RequestRecord] = []
        self._buffer = np.zeros(1, dtype=np.int64)
        self._address = self._buffer.ctypes.data

    @staticmethod
    async def _make_client(timeout_s: float, auth: aiohttp.BasicAuth | None) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(limit=0)  # no cap: the scenario decides how many are in flight
        return aiohttp.ClientSession(connector=connector, auth=auth, timeout=aiohttp.ClientTimeout(total=timeout_s))

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def set_concurrency(self, limit: int | None) -> None:
        """Closed loop with at most ``limit`` requests in flight, or open loop (None)."""

        async def make():
            return asyncio.Semaphore(limit) if limit else None

        self._limit = self._call(make())

    async def _trace_request(self, client, base_url, endpoint, index, on_first_token=None) -> RequestRecord:
        """Request ``index`` of the trace (modulo its length): its lengths, and its prompt text when it has one."""
        request = self.trace.requests[index % len(self.trace.requests)]
        shaped = shaped_for(endpoint, self.trace, index)
        return await stream_openai(client, base_url, shaped, index, on_first_token, prompt=request.prompt)

    def replay(self, trace: Trace, time_scale: float) -> list[ReplayedRequest]:
        """Replay ``trace`` at its recorded arrival times on this SUT's client (open loop, no LoadGen)."""
        return self._call(replay_async(trace, self.endpoint, time_scale=time_scale, client=self._client,
                                       base_url=self._base_url))  # fmt: skip

    def _response(self, query_id: int, tokens: int) -> lg.QuerySampleResponse:
        return lg.QuerySampleResponse(query_id, self._address, self._buffer.itemsize, tokens)

    async def _one(self, query_id: int | None, index: int, keep: list | None) -> RequestRecord:
        async def run():
            first_reported = False

            def first():
                nonlocal first_reported
                first_reported = True
                if query_id is not None:
                    lg.FirstTokenComplete([self._response(query_id, 1)])

            record = await self._request(
                self._client, self._base_url, self.endpoint, index, first if self.is_generative else None
            )
            if query_id is not None:
                if self.is_generative and not first_reported:
                    lg.FirstTokenComplete([self._response(query_id, 1)])  # a failure still ends its query
                tokens = (record.completion_tokens or 1) if self.is_generative else 1
                lg.QuerySamplesComplete([self._response(query_id, tokens)])
            return record

        try:
            if self._limit is None:
                record = await run()
            else:
                async with self._limit:
                    record = await run()
            if keep is not None:
                keep.append(record)
            return record
        finally:
            with self._count_lock:
                self._in_flight -= 1
                if self._in_flight == 0:
                    self._idle.set()

    def issue(self, ids: list[int], indices: list[int]) -> None:
        """LoadGen's issue callback: start one request per query, return at once."""
        with self._count_lock:
            self._idle.clear()
            self._in_flight += len(ids)
        for query_id, index in zip(ids, indices, strict=True):
            asyncio.run_coroutine_threadsafe(self._one(query_id, index, self.records), self._loop)

    def wait_idle(self, timeout_s: float = 600.0) -> None:
        self._idle.wait(timeout_s)

    def run_direct(self, count: int, concurrency: int, start_index: int = 0) -> tuple[list[RequestRecord], float]:
        """``count`` requests outside LoadGen (warm-up, calibration) at ``concurrency``; (records, seconds)."""

        async def batch():
            limit = asyncio.Semaphore(max(1, concurrency))

            async def one(i):
                async with limit:
                    return await self._request(self._client, self._base_url, self.endpoint, start_index + i, None)

            loop = asyncio.get_running_loop()
            began = loop.time()
            records = await asyncio.gather(*(one(i) for i in range(count)))
            return list(records), loop.time() - began

        return self._call(batch())

    def close(self) -> None:
        async def shut():
            await self._client.close()
            current = asyncio.current_task()
            pending = [task for task in asyncio.all_tasks() if task is not current]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            await self._loop.shutdown_asyncgens()

        try:
            self._call(shut())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
