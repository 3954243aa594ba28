"""The deployable unit: the fewest accelerators of one model that hold a workload, from the model, not the submission.

A published result measured on an 8-GPU system says how fast 8 GPUs ran, not that the model needs 8: ResNet-50's
25.6 M parameters fit one accelerator of any size. The unit is therefore sized from what must sit in memory:

  weights  = the registry's parameter_count x bytes per parameter at the run's precision
             (16 bits where the run does not state its precision: MLPerf results do not)
  KV cache = (LLM workloads with a KvCacheShape) context tokens x concurrent sequences x KV bytes per token,
             KV bytes per token = 2 (key and value) x layers x KV heads x head dim x bytes per value; values at
             16 bits (32 for fp32 runs): vLLM's default kv_cache_dtype "auto" keeps the activations' dtype, which a
             weight-quantised model keeps at 16 bits. Context = the workload's max input + max output tokens.
  usable   = the catalog's memory_gib x 2^30 x (1 - MEMORY_HEADROOM_FRACTION) per accelerator

unit = the smallest power of two >= (weights + KV cache) / usable: tensor parallelism splits the attention heads
evenly across the unit, and every model in the registry has a power-of-two number of (KV) heads. A fleet is then
as many units as the target needs at the stated maximum utilization, each unit delivering its size times the
per-accelerator throughput of the measured result (linear scaling from the measured N to the unit's size: an
assumption every answer states).
"""

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from hardware_catalog.models import Accelerator
from workloads import Workload

BYTES_PER_PARAMETER = {
    "fp32": Decimal(4),
    "tf32": Decimal(4),
    "fp16": Decimal(2),
    "bf16": Decimal(2),
    "fp8": Decimal(1),
    "int8": Decimal(1),
    "int4": Decimal("0.5"),
}
ASSUMED_PRECISION = "fp16"  # where the run does not state one (published results say "unspecified")
# vLLM's default gpu_memory_utilization is 0.9: the other 10 % holds activations, CUDA graphs and the runtime.
MEMORY_HEADROOM_FRACTION = Decimal("0.10")
# Sequences a unit serves at once when the question does not say: a common continuous-batching size, stated here so
# the KV cache it implies is traceable (recommend(concurrent_sequences=...) states another).
DEFAULT_CONCURRENT_SEQUENCES = 32
GIB = 2**30


@dataclass(frozen=True)
class MemoryNeed:
    """What one copy of the model needs in accelerator memory, in bytes, with the figures it came from."""

    precision: str
    precision_assumed: bool
    weight_bytes: Decimal
    kv_cache_bytes: Decimal
    context_tokens: int | None
    concurrent_sequences: int | None

    @property
    def total_bytes(self) -> Decimal:
        return self.weight_bytes + self.kv_cache_bytes


@dataclass(frozen=True)
class DeployableUnit:
    accelerators: int
    measured_accelerators: int  # the system the per-accelerator throughput was measured on
    need: MemoryNeed | None  # None: the registry or the catalog lacks the figures; the unit is the measured system's
    usable_bytes_per_accelerator: Decimal | None
    reason: str  # why this size, in words

    def assumption(self, workload: Workload, accelerator: Accelerator) -> str:
        """The sentence an answer shows, e.g. '1 x NVIDIA L40S: ResNet-50 v1.5 fits in one accelerator; scaled
        from the 4-accelerator published result'."""
        if self.need is None:
            return f"{self.accelerators} x {accelerator}: {self.reason}"
        scaled = (
            f"throughput per accelerator from the {self.measured_accelerators}-accelerator measured result"
            if self.measured_accelerators == self.accelerators
            else f"scaled from the {self.measured_accelerators}-accelerator measured result"
        )
        return f"{self.accelerators} x {accelerator}: {self.reason}; {scaled}"


def bytes_per_parameter(precision: str) -> tuple[str, Decimal, bool]:
    """(precision used, bytes per parameter, whether it was assumed)."""
    if precision in BYTES_PER_PARAMETER:
        return precision, BYTES_PER_PARAMETER[precision], False
    return ASSUMED_PRECISION, BYTES_PER_PARAMETER[ASSUMED_PRECISION], True


def memory_need(
    workload: Workload, *, precision: str, concurrent_sequences: int | None = None, context_tokens: int | None = None
) -> MemoryNeed | None:
    """Weights at the precision plus, for an LLM with a known KV shape, the KV cache; None without a parameter count."""
    if workload.parameter_count is None:
        return None
    used, per_parameter, assumed = bytes_per_parameter(precision)
    weights = workload.parameter_count * per_parameter
    kv, context, sequences = Decimal(0), None, None
    if workload.kv_cache is not None:
        context = context_tokens or _context_tokens(workload)
        sequences = concurrent_sequences or DEFAULT_CONCURRENT_SEQUENCES
        if context is not None:
            per_value = 4 if used in ("fp32", "tf32") else 2
            kv = context * sequences * workload.kv_cache.bytes_per_token(per_value)
    return MemoryNeed(used, assumed, weights, kv, context, sequences)


def _context_tokens(workload: Workload) -> int | None:
    if workload.max_input_tokens is None or workload.max_output_tokens is None:
        return None
    return workload.max_input_tokens + workload.max_output_tokens


def smallest_unit(
    workload: Workload,
    accelerator: Accelerator,
    *,
    precision: str,
    measured_accelerators: int,
    concurrent_sequences: int | None = None,
    context_tokens: int | None = None,
) -> DeployableUnit:
    """The fewest accelerators (a power of two) whose usable memory holds the model; see the module docstring."""
    need = memory_need(
        workload, precision=precision, concurrent_sequences=concurrent_sequences, context_tokens=context_tokens
    )
    if need is None:
        reason = f"the registry has no parameter count for {workload.id}: bought as the measured system"
        return DeployableUnit(measured_accelerators, measured_accelerators, None, None, reason)
    if not accelerator.memory_gib:
        reason = f"the catalog has no memory size for {accelerator}: bought as the measured system"
        return DeployableUnit(measured_accelerators, measured_accelerators, None, None, reason)
    usable = Decimal(str(accelerator.memory_gib)) * GIB * (1 - MEMORY_HEADROOM_FRACTION)
    needed = int((need.total_bytes / usable).to_integral_value(rounding=ROUND_CEILING))
    size = 1
    while size < needed:
        size *= 2
    return DeployableUnit(size, measured_accelerators, need, usable, _reason(workload, need, usable, size))


def _reason(workload: Workload, need: MemoryNeed, usable: Decimal, size: int) -> str:
    precision = f"{need.precision}{' (assumed: the run states none)' if need.precision_assumed else ''}"
    held = f"{_size(need.weight_bytes)} of {precision} weights"
    if need.kv_cache_bytes:
        held += (
            f" + {_size(need.kv_cache_bytes)} of KV cache ({need.concurrent_sequences} sequences of "
            f"{need.context_tokens} tokens)"
        )
    per = f"{_size(usable)} usable per accelerator ({MEMORY_HEADROOM_FRACTION:.0%} kept free)"
    if size == 1:
        return f"{workload.reference_model} fits in one accelerator ({held}; {per})"
    return f"{workload.reference_model} needs {size} accelerators ({held} over {per})"


def _size(value: Decimal) -> str:
    """Bytes in GiB, or in MiB below one GiB (a CNN's weights are tens of MiB: "0.0 GiB" would say nothing)."""
    if value < GIB:
        return f"{value / 2**20:,.1f} MiB"
    return f"{value / GIB:,.1f} GiB"
