"""Where a point's p99 latency goes: its split into four layers (model compute, memory, batching and queue,
transport), the parts adding up to the p99 itself, each naming its source and whether it was measured for one
request or apportioned.

How each kind of point is split (``split_p99``):

- A harness point whose SUT timed requests one by one (Server, single-stream) carries ``p99_request_ms``: the
  split of the one request at the p99 of the SUT's end-to-end times. Its queue wait, batch formation, copies and
  compute are measured; its completion (handing the response to LoadGen) is the rest of its end-to-end; LoadGen's
  p99 (its log) minus that request's end-to-end is the LoadGen issue and completion path, a difference of two
  p99s rather than one request's time, and said so. Should the request's end-to-end exceed LoadGen's p99, its
  parts are scaled down to the p99 instead (apportioned).
- A harness point without one (Offline, which times batches; runs stored before the field) is split by the mean
  request's shares: each mean part over the mean latency, times the p99 (apportioned), the part of the mean no
  SUT timer covers named as such.
- An endpoint's point is split by the server's Prometheus figures (means over the point's requests): each
  server stage's share of the client's mean end-to-end, and the rest of the client's time (transport and
  serialisation), times the client's p99 (apportioned: histogram sums give no single request's split).

Inside compute, two refinements, both apportioned: the memory layer is the time the device needs to read the
weights once per forward pass at the catalog's memory bandwidth (a roofline floor: activations and the KV cache
are left out), capped at the compute measured; the compute above it is shared among the operators
``torch.profiler`` timed over one batch (the payload's ``profile``), by their share of its self time.

Django-free: the API and the run page hand it the stored point and the catalog's figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.roofline import Roofline

COMPUTE, MEMORY, QUEUE, TRANSPORT, UNSPLIT = "compute", "memory", "batching/queue", "transport", "unsplit"
LAYERS = (COMPUTE, MEMORY, QUEUE, TRANSPORT)
TOP_OPERATORS_SHOWN = 3
# kineto's names for CUPTI's host-to-device and device-to-host copies: a profiled CUDA batch includes them, but the
# engine times them as layers of their own (h2d, d2h), so they take no share of the compute.
TIMED_COPIES = ("Memcpy HtoD", "Memcpy DtoH")


@dataclass(frozen=True)
class Part:
    name: str
    layer: str
    ms: float
    source: str
    measured: bool  # measured for this request (True) or apportioned/modelled (False)


@dataclass(frozen=True)
class MemoryModel:
    """What the memory layer needs: the bytes a forward pass reads and the device's bandwidth (the catalog's)."""

    accelerator: str
    weight_bytes: int | None
    memory_bandwidth_gbps: float | None
    passes_per_batch: int = 1  # forward passes per batch: 1, or an LLM generation's output tokens
    flops_per_inference: int | None = None
    peak_tflops: float | None = None

    def floor_ms(self) -> float | None:
        """Time to read the weights once per pass at the catalog bandwidth (ms); None without both figures."""
        if not self.weight_bytes or not self.memory_bandwidth_gbps:
            return None
        return self.weight_bytes * self.passes_per_batch / (self.memory_bandwidth_gbps * 1e9) * 1e3

    def roofline(self, batch_size: int) -> dict | None:
        """Arithmetic intensity of one batch (FLOPs per weight byte read) against the device's ridge point
        (harness.roofline, the rule purchase advice reads too)."""
        return Roofline(
            flops_per_inference=self.flops_per_inference, weight_bytes=self.weight_bytes,
            peak_tflops=self.peak_tflops, memory_bandwidth_gbps=self.memory_bandwidth_gbps,
            passes_per_inference=self.passes_per_batch,
        ).intensity(batch_size)  # fmt: skip


@dataclass(frozen=True)
class LatencyLayers:
    p99_ms: float
    method: str
    parts: list[Part]  # largest first
    notes: list[str] = field(default_factory=list)
    roofline: dict | None = None
    operators: list[dict] = field(default_factory=list)

    @property
    def sum_ms(self) -> float:
        return sum(part.ms for part in self.parts)

    def by_layer_ms(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        for part in self.parts:
            totals[part.layer] = totals.get(part.layer, 0.0) + part.ms
        return totals

    def pareto(self) -> list[dict]:
        """Each part, largest first, with its share of the p99 and the cumulative share (the Pareto line)."""
        rows, running = [], 0.0
        for part in self.parts:
            running += part.ms
            rows.append({"name": part.name, "layer": part.layer, "ms": part.ms, "share": part.ms / self.p99_ms,
                         "cumulative_share": running / self.p99_ms, "source": part.source,
                         "measured": part.measured})  # fmt: skip
        return rows


def _mean(block, key: str = "mean") -> float:
    return float((block or {}).get(key) or 0.0)


def split_p99(
    point: dict, *, scenario: str, memory: MemoryModel | None = None, profile: dict | None = None
) -> LatencyLayers:
    """``point``: a payload's point (or a stored point's details with its ``latency_ms``)."""
    p99 = float(point["latency_ms"]["p99"])
    if p99 <= 0:
        raise ValueError("a p99 of zero has no split")
    if point.get("endpoint"):
        return _endpoint(point, p99)
    request = point.get("p99_request_ms")
    if request:
        method, parts, compute_measured_ms, batch = _p99_request(request, p99)
    else:
        method, parts, compute_measured_ms, batch = _by_mean_shares(point, p99, scenario)
    notes: list[str] = []
    parts = _refine_compute(parts, compute_measured_ms, memory, profile, notes)
    operators = list((profile or {}).get("operators") or [])
    roofline = memory.roofline(batch) if memory else None
    return LatencyLayers(p99, method, _sorted(parts), notes, roofline, operators)


def _sorted(parts: list[Part]) -> list[Part]:
    return sorted((p for p in parts if p.ms > 0), key=lambda p: p.ms, reverse=True)


def _p99_request(request: dict, p99: float) -> tuple[str, list[Part], float, int]:
    timed = [
        ("queue wait", QUEUE, request.get("queue_wait"), "the batcher: arrival to the batch closing"),
        ("batch formation", QUEUE, request.get("batch_formation"), "the batcher: stacking the batch's inputs"),
        ("host-to-device copy", TRANSPORT, request.get("h2d"), "the engine: inputs copied to the device"),
        ("compute", COMPUTE, request.get("compute"), "the engine: the forward pass, synchronised"),
        ("device-to-host copy", TRANSPORT, request.get("d2h"), "the engine: outputs copied back"),
    ]
    timed_parts = [(name, layer, float(ms), source) for name, layer, ms, source in timed if ms is not None]
    timed_ms = sum(ms for *_, ms, _ in timed_parts)
    whole = max(float(request["end_to_end"]), timed_ms)
    what = "the SUT's p99 request"
    parts = [Part(name, layer, ms, f"measured: {what}, {source}", True) for name, layer, ms, source in timed_parts]
    parts.append(Part("completion to LoadGen", TRANSPORT, whole - timed_ms,
                      f"measured: {what}, its end-to-end less its timed parts", True))  # fmt: skip
    batch = int(request.get("batch_size") or 1)
    if p99 >= whole:
        parts.append(Part("LoadGen issue and completion path", TRANSPORT, p99 - whole,
                          "remainder: LoadGen's p99 (its log) less the SUT's p99 request's end-to-end "
                          "(a difference of two p99s, not one request's time)", False))  # fmt: skip
        method = (f"measured: the split of the SUT's request at its p99 ({whole:.4g} ms end to end), plus the "
                  f"remainder to LoadGen's p99 ({p99:.4g} ms)")  # fmt: skip
        return method, parts, float(request.get("compute") or 0.0), batch
    scale = p99 / whole
    scaled = [Part(p.name, p.layer, p.ms * scale, f"apportioned (x{scale:.4f}): {p.source}", False) for p in parts]
    method = (f"apportioned: the SUT's p99 request ({whole:.4g} ms) exceeds LoadGen's p99 ({p99:.4g} ms); its "
              f"parts are scaled by {scale:.4f}")  # fmt: skip
    return method, scaled, float(request.get("compute") or 0.0), batch


def _by_mean_shares(point: dict, p99: float, scenario: str) -> tuple[str, list[Part], float, int]:
    blocks = [
        ("queue wait", QUEUE, "queue_wait_ms"),
        ("batch formation", QUEUE, "batch_formation_ms"),
        ("host-to-device copy", TRANSPORT, "h2d_ms"),
        ("compute", COMPUTE, "compute_ms"),
        ("device-to-host copy", TRANSPORT, "d2h_ms"),
    ]
    means = [(name, layer, key, _mean(point.get(key))) for name, layer, key in blocks if point.get(key)]
    timed_ms = sum(ms for *_, ms in means)
    latency_mean = _mean(point["latency_ms"])
    whole = max(latency_mean, timed_ms)
    if whole <= 0:
        return ("unsplit: the point states no mean latency or SUT timing",
                [Part("end to end (not split)", UNSPLIT, p99, "LoadGen's p99", True)], 0.0, 1)  # fmt: skip
    scale = p99 / whole
    parts = [Part(name, layer, ms * scale, f"apportioned: the SUT's mean {key} x p99 / mean latency", False)
             for name, layer, key, ms in means]  # fmt: skip
    rest_layer, rest_name = (QUEUE, "waiting behind the query's other batches") if scenario == "offline" else (
        TRANSPORT, "LoadGen issue and completion path")  # fmt: skip
    parts.append(Part(rest_name, rest_layer, (whole - timed_ms) * scale,
                      "apportioned: LoadGen's mean latency less the SUT's timed means, x p99 / mean latency",
                      False))  # fmt: skip
    method = (f"apportioned: no request was timed at p99 ({scenario} times batches or the point predates it); the "
              f"p99 ({p99:.4g} ms) is split by the mean request's shares (mean {whole:.4g} ms)")  # fmt: skip
    compute = _mean(point.get("compute_ms"))
    histogram = point.get("batch_size_histogram") or {}
    batch = max((int(size) for size in histogram), default=int(point.get("batch_size") or 1))
    return method, parts, compute, batch


def _refine_compute(
    parts: list[Part], compute_measured_ms: float, memory: MemoryModel | None, profile: dict | None, notes: list[str]
) -> list[Part]:
    """The compute part split into the memory floor and the operators' shares of the rest (both apportioned)."""
    compute = next((p for p in parts if p.layer == COMPUTE), None)
    if compute is None or compute.ms <= 0:
        return parts
    others = [p for p in parts if p is not compute]
    refined: list[Part] = []
    floor = memory.floor_ms() if memory else None
    rest = compute.ms
    if floor is None:
        notes.append(_no_memory_reason(memory))
    else:
        share = min(1.0, floor / compute_measured_ms) if compute_measured_ms > 0 else 0.0
        memory_ms = compute.ms * share
        rest -= memory_ms
        refined.append(Part("memory: weights read at catalog bandwidth", MEMORY, memory_ms,
                            f"modelled: {memory.weight_bytes:,} weight bytes x {memory.passes_per_batch} pass(es) / "
                            f"{memory.memory_bandwidth_gbps:g} GB/s ({memory.accelerator}) = {floor:.4g} ms, capped "
                            f"at the compute measured; taken out of: {compute.source}", False))  # fmt: skip
    operators, copies_share = _compute_operators(profile)
    if copies_share:
        notes.append(f"the batch's host-device copies ({copies_share:.1%} of the profiled device time) are their "
                     "own layers: the compute is shared among the other entries")  # fmt: skip
    if not operators:
        reason = (profile or {}).get("not_profiled") or "the run carries no torch.profiler profile"
        notes.append(f"compute not split by operator: {reason}")
        refined.append(Part(compute.name, COMPUTE, rest, compute.source, compute.measured and floor is None))
        return others + refined
    batch = profile.get("batch_size")
    shown = operators[:TOP_OPERATORS_SHOWN]
    for op in shown:
        refined.append(Part(f"compute: {op['name']}", COMPUTE, rest * op["share"],
                            f"apportioned: compute above the memory floor x {op['name']}'s share "
                            f"({op['share']:.1%}) of torch.profiler's self time over one batch of {batch}",
                            False))  # fmt: skip
    other_share = max(0.0, 1.0 - sum(op["share"] for op in shown))
    refined.append(Part("compute: other operators", COMPUTE, rest * other_share,
                        f"apportioned: compute above the memory floor x the other operators' share "
                        f"({other_share:.1%}) of torch.profiler's self time over one batch of {batch}",
                        False))  # fmt: skip
    return others + refined


def _compute_operators(profile: dict | None) -> tuple[list[dict], float]:
    """The profile's entries that are compute, their shares made shares of the compute alone, and the share of the
    timed copies left out (CUDA: `Memcpy HtoD (Pinned -> Device)` is the h2d layer, already measured)."""
    operators = (profile or {}).get("operators") or []
    copies_share = sum(op["share"] for op in operators if op["name"].startswith(TIMED_COPIES))
    if not copies_share:
        return operators, 0.0
    rest = 1.0 - copies_share
    kept = [op | {"share": op["share"] / rest} for op in operators if not op["name"].startswith(TIMED_COPIES)]
    return (kept if rest > 0 else []), copies_share


def _no_memory_reason(memory: MemoryModel | None) -> str:
    if memory is None:
        return "no memory layer: the run names no catalog accelerator"
    if not memory.weight_bytes:
        return "no memory layer: the run states no weight bytes (no parameter count)"
    return f"no memory layer: the catalog states no memory bandwidth for {memory.accelerator}"


def _endpoint(point: dict, p99: float) -> LatencyLayers:
    block = point["endpoint"]
    server = block.get("server") or {}
    client_mean = _mean(block.get("e2e_ms"))
    own = server.get("timed_ms_mean", server.get("e2e_ms_mean"))
    if not server or own is None or client_mean <= 0:
        part = Part("end to end (not split)", UNSPLIT, p99, "the client's p99", True)
        return LatencyLayers(p99, "unsplit: the server's metrics were not read for this point", [part],
                             ["no server timing: the endpoint has no metrics URL, or its scrape failed"])  # fmt: skip
    source = server.get("source", "server")
    stages: list[tuple[str, str, float]] = []
    if server.get("queue_ms_mean") is not None:
        stages.append(("server queue", QUEUE, server["queue_ms_mean"]))
    if server.get("prefill_ms_mean") is not None and server.get("decode_ms_mean") is not None:
        stages += [("server prefill", COMPUTE, server["prefill_ms_mean"]),
                   ("server decode", COMPUTE, server["decode_ms_mean"])]  # fmt: skip
    elif server.get("compute_ms_mean") is not None:
        stages.append(("server compute", COMPUTE, server["compute_ms_mean"]))
    for stage in ("preprocess", "postprocess"):
        if server.get(f"{stage}_ms_mean") is not None:
            stages.append((f"server {stage}", COMPUTE, server[f"{stage}_ms_mean"]))
    staged = sum(ms for *_, ms in stages)
    whole = max(client_mean, float(own), staged)
    per_request = "(Prometheus sum / count over the point's requests) / the client's mean end-to-end x its p99"
    means = [(name, layer, ms, f"apportioned: {source}'s mean {name.removeprefix('server ')} {per_request}")
             for name, layer, ms in stages]  # fmt: skip
    # vLLM's end-to-end less its queue and inference is tokenising the prompt and processing the output;
    # Triton's, reading inputs and writing outputs: the server's side of serialisation.
    means.append(("server: input and output processing", TRANSPORT, max(0.0, float(own) - staged),
                  f"apportioned: {source}'s own mean time less its queue and compute {per_request}"))  # fmt: skip
    means.append(("transport and serialisation", TRANSPORT, whole - max(float(own), staged),
                  f"apportioned: the client's mean end-to-end less {source}'s own mean time, / the client's mean "
                  "x its p99"))  # fmt: skip
    parts = [Part(name, layer, p99 * ms / whole, source_text, False) for name, layer, ms, source_text in means]
    method = (f"apportioned: the client's p99 ({p99:.4g} ms) split by each layer's share of the mean request "
              f"(client mean {client_mean:.4g} ms; {source}'s own mean {float(own):.4g} ms)")  # fmt: skip
    notes = ["no memory layer: an endpoint states no weight bytes",
             "compute not split by operator: the server is another process (no torch.profiler)"]  # fmt: skip
    return LatencyLayers(p99, method, _sorted(parts), notes)
