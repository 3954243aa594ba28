"""The SUT's dynamic batcher: requests queue until ``max_batch_size`` are waiting or the oldest has
waited ``max_queue_wait_ms``; then the batch is formed, computed and completed.

Each request records its own split, taken from contiguous timestamps so that
queue wait + batch formation + (h2d) + compute + (d2h) + completion = end-to-end.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .engine import Engine


@dataclass
class Request:
    query_id: int
    sample_index: int
    arrival_ns: int
    batch_size: int = 0
    queue_wait_ns: int = 0
    batch_formation_ns: int = 0
    h2d_ns: int | None = None
    compute_ns: int = 0
    d2h_ns: int | None = None
    end_to_end_ns: int = 0


class DynamicBatcher:
    """A worker thread that batches submitted requests and runs them through an Engine.

    ``on_first_token(requests)`` is called after prefill for generative workloads, and
    ``on_complete(requests)`` once the batch's outputs are on the host. A batch that raises is still
    completed, and so is every later one, unrun: the exception waits in ``error`` for the caller.
    """

    def __init__(
        self,
        engine: Engine,
        max_batch_size: int,
        max_queue_wait_ms: float,
        on_complete: Callable[[list[Request]], None],
        on_first_token: Callable[[list[Request]], None] | None = None,
    ):
        if max_batch_size < 1:
            raise ValueError("max_batch_size must be >= 1")
        self.engine, self.max_batch_size = engine, max_batch_size
        self.max_queue_wait_ns = int(max_queue_wait_ms * 1e6)
        self.on_complete, self.on_first_token = on_complete, on_first_token
        self.completed: list[Request] = []
        self.batch_sizes: Counter = Counter()
        self._queue: queue.Queue = queue.Queue()
        # The first exception the engine raised (with its traceback); later requests are completed unrun.
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._loop, name="dynamic-batcher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def submit(self, request: Request) -> None:
        self._queue.put(request)

    def stop(self) -> None:
        """Finish everything already submitted, then end the worker."""
        self._queue.put(None)
        self._thread.join()

    def _collect(self, first: Request) -> tuple[list[Request], bool]:
        batch, deadline_ns = [first], first.arrival_ns + self.max_queue_wait_ns
        while len(batch) < self.max_batch_size:
            remaining_ns = deadline_ns - time.perf_counter_ns()
            try:
                item = self._queue.get_nowait() if remaining_ns <= 0 else self._queue.get(timeout=remaining_ns / 1e9)
            except queue.Empty:
                break
            if item is None:
                return batch, True
            batch.append(item)
        return batch, False

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch, stopping = self._collect(first)
            if self.error is None:
                try:
                    self._run(batch)
                    continue
                except Exception as exc:  # noqa: BLE001 - the caller raises it once LoadGen's test has ended
                    self.error = exc
            # The engine failed: complete requests unrun, since LoadGen's test ends only when every one has.
            self.on_complete(batch)

    def _run(self, batch: list[Request]) -> None:
        clock = time.perf_counter_ns
        closed_ns = clock()
        inputs = self.engine.form_batch([r.sample_index for r in batch])
        formed_ns = clock()
        first = (lambda _tok: self.on_first_token(batch)) if self.on_first_token else None
        timing = self.engine.execute(inputs, first)
        self.on_complete(batch)
        done_ns = clock()
        for r in batch:
            r.batch_size = len(batch)
            r.queue_wait_ns = closed_ns - r.arrival_ns
            r.batch_formation_ns = formed_ns - closed_ns
            r.h2d_ns, r.compute_ns, r.d2h_ns = timing.h2d_ns, timing.compute_ns, timing.d2h_ns
            r.end_to_end_ns = done_ns - r.arrival_ns
        self.batch_sizes[len(batch)] += 1
        self.completed.extend(batch)
