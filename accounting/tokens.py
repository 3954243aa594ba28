"""LLM units: requests, output tokens and total tokens, and what a fleet serving them costs.

Plain functions over Decimal (no database), the pieces rankings and recommendations build LLM answers
from (and that throughput-vs-interactivity fronts can reuse). An LLM point's throughput is output
tokens/s per accelerator. From it:
  requests/s     = the point's samples/s when it counts requests beside tokens (published MLPerf points
                   do: `throughput_per_s` in samples with `output_tokens_per_s`), else
                   output tokens/s / output tokens per request;
  total tokens/s = output tokens/s + requests/s * input tokens per request;
  cost per 1M output (total) tokens = hourly / (output (total) tokens/s * 3600 * utilization) * 1e6.
Token lengths per request come from the request when it states them, else from the workload registry;
when neither states one, the figures that need it are None and `basis` says so (nothing is guessed).
A target load is stated in requests/s (converted with the output tokens per request) or in output
tokens/s, and the answer says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from accounting.errors import FieldError
from accounting.pricing import costing
from workloads import Workload

OUTPUT_TOKENS = "output_tokens"


@dataclass(frozen=True)
class TokenLengths:
    """Mean tokens per request, and where the figures came from."""

    input_tokens_per_request: Decimal | None
    output_tokens_per_request: Decimal | None
    source: str


def token_lengths(workload: Workload, *, input_tokens_per_request=None, output_tokens_per_request=None) -> TokenLengths:
    """The request's stated lengths where given, else the workload's (registry) figures."""
    stated = input_tokens_per_request is not None or output_tokens_per_request is not None
    inputs = input_tokens_per_request if input_tokens_per_request is not None else workload.input_tokens_per_request
    outputs = output_tokens_per_request if output_tokens_per_request is not None else workload.output_tokens_per_request
    if stated and (input_tokens_per_request is None or output_tokens_per_request is None):
        source = f"stated in the request, the rest from the workload registry ({workload.id})"
    elif stated:
        source = "stated in the request"
    else:
        source = f"workload registry ({workload.id})"
    as_decimal = {
        name: None if value is None else costing.to_decimal(value, name)
        for name, value in (("input_tokens_per_request", inputs), ("output_tokens_per_request", outputs))
    }
    return TokenLengths(**as_decimal, source=source)


def output_tokens_per_s_for_requests(*, requests_per_s, output_tokens_per_request) -> Decimal:
    """requests/s -> output tokens/s: requests/s x output tokens per request (both must be greater than zero)."""
    requests = costing.to_decimal(requests_per_s, "requests_per_s")
    length = costing.to_decimal(output_tokens_per_request, "output_tokens_per_request")
    if requests <= 0 or length <= 0:
        raise ValueError("requests_per_s and output_tokens_per_request must be greater than zero")
    return requests * length


def input_tokens_per_output_token(input_tokens_per_request, output_tokens_per_request) -> Decimal | None:
    """The workload's input/output ratio (input tokens/s = output tokens/s x this), or None when either mean
    is unknown."""
    if input_tokens_per_request is None or output_tokens_per_request is None:
        return None
    output = costing.to_decimal(output_tokens_per_request, "output_tokens_per_request")
    if output <= 0:
        raise ValueError(f"output_tokens_per_request must be greater than zero, got {output_tokens_per_request}")
    return costing.to_decimal(input_tokens_per_request, "input_tokens_per_request") / output


@dataclass(frozen=True)
class TokenRates:
    """Per accelerator, at one operating point."""

    output_tokens_per_s: float
    requests_per_s: float | None
    total_tokens_per_s: float | None
    basis: str


def token_rates(point, lengths: TokenLengths) -> TokenRates:
    output = point.output_tokens_per_s if point.output_tokens_per_s is not None else point.throughput_per_s
    if point.output_tokens_per_s is not None and point.throughput_unit != OUTPUT_TOKENS:
        requests, how = point.throughput_per_s, "requests/s as measured"
    elif lengths.output_tokens_per_request:
        requests = output / float(lengths.output_tokens_per_request)
        how = f"requests/s = output tokens/s / {lengths.output_tokens_per_request} output tokens per request"
    else:
        return TokenRates(
            output, None, None, "no requests/s: the point counts tokens only and no output length is stated"
        )
    if lengths.input_tokens_per_request is None:
        return TokenRates(output, requests, None, f"{how}; no total tokens: no input tokens per request is stated")
    total = output + requests * float(lengths.input_tokens_per_request)
    basis = f"{how}; + {lengths.input_tokens_per_request} input tokens per request ({lengths.source})"
    return TokenRates(output, requests, total, basis)


@dataclass(frozen=True)
class LlmCost:
    rates: TokenRates
    cost_per_million_output_tokens_usd: Decimal
    cost_per_million_total_tokens_usd: Decimal | None


def llm_cost(*, hourly_usd, rates: TokenRates, utilization=Decimal("1")) -> LlmCost:
    per_output = costing.cost_per_million(
        hourly_usd=hourly_usd, throughput_per_s=rates.output_tokens_per_s, utilization=utilization
    )
    per_total = None
    if rates.total_tokens_per_s:
        per_total = costing.cost_per_million(
            hourly_usd=hourly_usd, throughput_per_s=rates.total_tokens_per_s, utilization=utilization
        )
    return LlmCost(rates, per_output, per_total)


@dataclass(frozen=True)
class TargetLoad:
    """A target in the workload's unit (output tokens/s for LLMs), with the sentence that derived it."""

    throughput_per_s: Decimal
    basis: str


class TargetError(FieldError):
    """A target load stated wrongly (neither or both units, or requests/s without output tokens per request)."""


def target_load(
    workload: Workload, *, target_requests_per_s=None, target_output_tokens_per_s=None, lengths: TokenLengths | None
) -> TargetLoad:
    """Exactly one of requests/s or output tokens/s; requests/s convert with the output tokens per request."""
    if (target_requests_per_s is None) == (target_output_tokens_per_s is None):
        raise TargetError("target_qps", "state the target as exactly one of target_qps or target_output_tokens_per_s")
    if target_output_tokens_per_s is not None:
        tokens = costing.to_decimal(target_output_tokens_per_s, "target_output_tokens_per_s")
        return TargetLoad(tokens, f"{tokens} output tokens/s, as stated")
    requests = costing.to_decimal(target_requests_per_s, "target_qps")
    if requests <= 0:
        raise TargetError("target_qps", f"target_qps must be greater than zero, got {target_requests_per_s}")
    if lengths is None or lengths.output_tokens_per_request is None:
        raise TargetError(
            "output_tokens_per_request",
            f"{workload.id} states no mean output tokens per request: give output_tokens_per_request "
            "(or the target as target_output_tokens_per_s)",
        )
    tokens = output_tokens_per_s_for_requests(
        requests_per_s=requests, output_tokens_per_request=lengths.output_tokens_per_request
    )
    basis = (
        f"{requests} requests/s x {lengths.output_tokens_per_request} output tokens per request "
        f"({lengths.source}) = {tokens} output tokens/s"
    )
    return TargetLoad(tokens, basis)
