"""Server arithmetic: per request, queue wait + batch formation + compute fit within end-to-end.

Only what holds on any machine is asserted: the parts are contiguous, non-negative and contained in
the whole. How little is left over (completion callback, scheduling) is a measurement of the machine.
"""

import random
import threading
import time

from harness.backends.eager import EagerBackend
from harness.scenarios import DynamicBatcher, Engine, Request
from harness.workloads import get_workload


def _seeded_arrivals(batcher: DynamicBatcher, count: int, rate_qps: float, seed: int) -> None:
    rng = random.Random(seed)
    next_ns = time.perf_counter_ns()
    for i in range(count):
        next_ns += int(rng.expovariate(rate_qps) * 1e9)
        while (now := time.perf_counter_ns()) < next_ns:
            time.sleep(max(0.0, (next_ns - now) / 1e9 - 50e-6))
        batcher.submit(Request(i, i % 8, time.perf_counter_ns()))


def test_it_splits_each_request_into_parts_that_add_up():
    workload = get_workload("tabular")
    backend = EagerBackend()
    backend.load(workload.build(), workload.example_inputs(2))
    engine = Engine(workload, backend, sample_count=8)
    completed = []
    batcher = DynamicBatcher(engine, max_batch_size=4, max_queue_wait_ms=1.0, on_complete=completed.extend)
    batcher.start()
    feeder = threading.Thread(target=_seeded_arrivals, args=(batcher, 300, 2000.0, 42))
    feeder.start()
    feeder.join()
    batcher.stop()

    assert len(completed) == len(batcher.completed) == 300
    assert sum(size * n for size, n in batcher.batch_sizes.items()) == 300
    assert max(batcher.batch_sizes) <= 4
    for r in batcher.completed:
        assert min(r.queue_wait_ns, r.batch_formation_ns, r.compute_ns) >= 0
        # Compute runs after the batch is formed and before the request completes.
        assert r.end_to_end_ns - r.queue_wait_ns - r.batch_formation_ns >= r.compute_ns


def test_it_closes_a_batch_at_the_max_queue_wait():
    workload = get_workload("tabular")
    backend = EagerBackend()
    backend.load(workload.build(), workload.example_inputs(2))
    engine = Engine(workload, backend, sample_count=2)
    batcher = DynamicBatcher(engine, max_batch_size=64, max_queue_wait_ms=5.0, on_complete=lambda reqs: None)
    batcher.start()
    batcher.submit(Request(0, 0, time.perf_counter_ns()))
    # No second request comes: the batch must close on its own (stop() would flush it at once).
    deadline = time.monotonic() + 30
    while not batcher.completed and time.monotonic() < deadline:
        time.sleep(0.005)
    (request,) = batcher.completed
    batcher.stop()
    assert request.batch_size == 1 and request.queue_wait_ns >= batcher.max_queue_wait_ns
