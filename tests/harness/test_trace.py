"""Request traces read from the formats users keep them in; a malformed one refused naming line and field."""

import json

import pytest

from harness.endpoints.trace import TraceError, parse_trace

MOONCAKE = "\n".join(
    json.dumps(entry)
    for entry in (
        {"timestamp": 1000, "input_length": 100, "output_length": 10, "hash_ids": [1, 2]},
        {"timestamp": 1500, "input_length": 300, "output_length": 30},
        {"timestamp": 3000, "input_length": 200, "output_length": 20},
    )
)


def test_it_reads_a_mooncake_trace_with_its_arrivals_and_distributions():
    trace = parse_trace("chat", MOONCAKE, "mooncake")

    assert [r.offset_s for r in trace.requests] == [0.0, 0.5, 2.0]  # (1000, 1500, 3000 ms) - 1000 ms
    assert trace.requests[0].hash_ids == (1, 2)
    stated = trace.distributions()
    # inputs 100, 300, 200: mean 200, p50 = sorted[floor(3 * 0.5)] = sorted[1] = 200, max 300
    assert stated["input_tokens"] == {"mean": 200, "p50": 200, "p90": 300, "p99": 300, "min": 100, "max": 300}
    # gaps 0.5 s and 1.5 s: 2 gaps over 2 s = 1 request/s; mean gap 1.0, standard deviation 0.5 -> CV 0.5
    assert stated["arrivals"]["mean_rate_per_s"] == 1.0
    assert stated["arrivals"]["interarrival_cv"] == 0.5


def test_it_reads_vllm_bench_custom_jsonl_and_sharegpt_without_arrivals():
    custom = parse_trace("c", '{"prompt": "hello there", "output_tokens": 7}\n{"prompt": "hi"}\n', "vllm-custom")
    sharegpt = parse_trace(
        "s", json.dumps([{"id": "a", "conversations": [{"from": "human", "value": "why?"},
                                                        {"from": "gpt", "value": "because"}]}]), "sharegpt",
    )  # fmt: skip

    assert [(r.prompt, r.output_tokens) for r in custom.requests] == [("hello there", 7), ("hi", None)]
    assert (sharegpt.requests[0].prompt, sharegpt.requests[0].reference_output) == ("why?", "because")
    assert custom.distributions()["arrivals"] is None and not sharegpt.has_arrivals


@pytest.mark.parametrize(
    ("text", "trace_format", "line", "field"),
    [
        ('{"timestamp": 0, "input_length": 5, "output_length": 5}\n{"timestamp": 10, "input_length": 0, '
         '"output_length": 5}', "mooncake", 2, "input_length"),
        ('{"timestamp": 0, "input_length": 5}', "mooncake", 1, "output_length"),
        ('{"timestamp": 9, "input_length": 5, "output_length": 5}\n{"timestamp": 3, "input_length": 5, '
         '"output_length": 5}', "mooncake", 2, "timestamp"),
        ('{"timestamp": 0, "input_length": 5, "output_length": 5, "priority": 1}', "mooncake", 1, "priority"),
        ('{"timestamp": 0, "input_length": 5, "output_length": 5}\n\n{not json', "mooncake", 3, "(line)"),
        ('{"prompt": "", "output_tokens": 3}', "vllm-custom", 1, "prompt"),
        ('[{"conversations": [{"from": "human", "value": "q"}]}]', "sharegpt", 1, "conversations"),
    ],
)  # fmt: skip
def test_it_refuses_a_malformed_trace_naming_the_line_and_field(text, trace_format, line, field):
    with pytest.raises(TraceError) as refused:
        parse_trace("bad", text, trace_format)

    assert (refused.value.line, refused.value.field) == (line, field)
    assert str(refused.value).startswith(f"line {line}, field {field!r}: ")
