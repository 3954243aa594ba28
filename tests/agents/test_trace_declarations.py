"""Request traces declared once (API, `declare_trace`) and named by endpoint jobs: a malformed trace is refused
naming its line and field, a job spec names the trace beside an endpoint in one of two modes, and the agent
replays only the declared text (its digest checked)."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from agents.models import Endpoint, Job, RequestTrace
from harness.endpoints.trace import content_sha256, parse_trace, trace_from_declaration
from harness.host.plan import plan_items

pytestmark = pytest.mark.django_db

# Three requests: arrivals at 0, 250 and 1,000 ms; input 16, 32, 48 tokens; output 4, 8, 12 tokens.
MOONCAKE = "\n".join(json.dumps({"timestamp": ms, "input_length": i, "output_length": o})
                     for ms, i, o in ((0, 16, 4), (250, 32, 8), (1000, 48, 12)))  # fmt: skip
SHAREGPT = json.dumps([{"id": "a", "conversations": [{"from": "human", "value": "hello there"},
                                                     {"from": "gpt", "value": "hi"}]}])  # fmt: skip


@pytest.fixture
def endpoint():
    return Endpoint.objects.create(name="tiny", protocol="openai-completions", url="http://127.0.0.1:1", model="m")


def declare(staff_api, **changes):
    return staff_api.post("/api/v1/traces/", {"name": "chat", "format": "mooncake", "content": MOONCAKE} | changes,
                          format="json")  # fmt: skip


def test_the_api_declares_a_trace_once_with_its_digest_and_distributions(staff_api, api):
    created = declare(staff_api, title="Chat, Tuesday peak")

    assert created.status_code == 201, created.data
    assert created.data["workload_id"] == "trace:chat" and "content" not in created.data
    assert created.data["sha256"] == content_sha256(MOONCAKE)
    stated = created.data["distributions"]
    # Inputs 16, 32, 48: mean 32; outputs 4, 8, 12: mean 8; gaps 0.25 s and 0.75 s over 1 s: 2 requests/s.
    assert stated["requests"] == 3 and stated["input_tokens"]["mean"] == 32 and stated["output_tokens"]["max"] == 12
    assert stated["arrivals"]["duration_s"] == 1.0 and stated["arrivals"]["mean_rate_per_s"] == 2.0
    # The gaps' mean is 0.5 s, their standard deviation 0.25 s: a coefficient of variation of 0.5.
    assert stated["arrivals"]["interarrival_cv"] == pytest.approx(0.5)
    assert RequestTrace.objects.get().content == MOONCAKE
    again = declare(staff_api)
    assert again.status_code == 400 and "already declared" in str(again.data["name"])
    assert declare(api, name="other").status_code == 403


def test_a_malformed_trace_is_refused_naming_its_line_and_field_and_nothing_is_stored(staff_api):
    broken = MOONCAKE.replace('"output_length": 8', '"output_length": "eight"')

    response = declare(staff_api, content=broken)

    assert response.status_code == 400
    assert "line 2, field 'output_length': must be an integer" in str(response.data["content"])
    assert "unknown field" in str(declare(staff_api, fromat="mooncake").data["fromat"])
    assert '"csv" is not a valid choice' in str(declare(staff_api, format="csv").data["format"])
    assert not RequestTrace.objects.exists()


def test_declare_trace_reads_the_file(tmp_path):
    (tmp_path / "chat.jsonl").write_text(MOONCAKE)
    out = StringIO()

    call_command("declare_trace", "chat", str(tmp_path / "chat.jsonl"), "--format", "mooncake", stdout=out)

    assert "Declared trace:chat (mooncake, 3 requests, 2 requests/s over 1.0 s" in out.getvalue()
    (tmp_path / "bad.jsonl").write_text('{"timestamp": 0, "input_length": 1}\n')
    with pytest.raises(CommandError, match="line 1, field 'output_length': missing"):
        call_command("declare_trace", "bad", str(tmp_path / "bad.jsonl"), "--format", "mooncake")


def test_a_job_replays_a_trace_at_its_arrivals_by_default(staff_api, endpoint):
    declare(staff_api)

    response = staff_api.post("/api/v1/jobs/", {"endpoint": "tiny", "trace": "chat", "time_scale": 0.5},
                              format="json")  # fmt: skip

    assert response.status_code == 201, response.data
    job = Job.objects.get(pk=response.data["id"])
    assert job.trace.name == "chat" and job.time_scale == 0.5
    from agents.jobs import job_spec, spec_for_agent

    [item] = plan_items(spec_for_agent(job_spec(job)))
    assert item.scenario == "trace-replay" and item.trace_mode == "arrivals" and item.time_scale == 0.5
    assert item.workload_id == "trace:chat" and item.trace.sha256 == content_sha256(MOONCAKE)


def test_a_trace_job_is_refused_naming_each_field_that_does_not_fit(staff_api, endpoint):
    declare(staff_api)
    staff_api.post("/api/v1/traces/", {"name": "talk", "format": "sharegpt", "content": SHAREGPT}, format="json")

    def refused(**spec):
        response = staff_api.post("/api/v1/jobs/", spec, format="json")
        assert response.status_code == 400, response.data
        return {key: str(value) for key, value in response.data.items()}

    assert "against an endpoint" in refused(trace="chat")["endpoint"]
    assert "records no arrival times" in refused(endpoint="tiny", trace="talk")["trace_mode"]
    assert '"bursty" is not a valid choice' in refused(endpoint="tiny", trace="chat", trace_mode="bursty")["trace_mode"]
    assert "leave it empty" in refused(endpoint="tiny", trace="chat", scenarios=["server"])["scenarios"]
    assert (
        "only to trace_mode arrivals"
        in refused(endpoint="tiny", trace="chat", trace_mode="concurrency", time_scale=2)["time_scale"]
    )
    assert "above 0" in refused(endpoint="tiny", trace="chat", time_scale=0)["time_scale"]
    assert "only to a trace job" in refused(endpoint="tiny", time_scale=2)["time_scale"]
    # A text-prompt trace is replayed in concurrency mode: its prompts drawn by the sweep.
    drawn = staff_api.post("/api/v1/jobs/", {"endpoint": "tiny", "trace": "talk", "trace_mode": "concurrency"},
                           format="json")  # fmt: skip
    assert drawn.status_code == 201, drawn.data


def test_the_agent_replays_only_the_declared_text():
    declaration = {"name": "chat", "format": "mooncake", "content": MOONCAKE, "sha256": content_sha256(MOONCAKE)}
    assert trace_from_declaration(declaration) == parse_trace("chat", MOONCAKE, "mooncake").__class__(
        "chat", "mooncake", parse_trace("chat", MOONCAKE, "mooncake").requests, content_sha256(MOONCAKE)
    )
    tampered = declaration | {"content": MOONCAKE.replace("48", "4800")}
    with pytest.raises(ValueError, match="trace.sha256: is not the SHA-256 of content"):
        trace_from_declaration(tampered)
    with pytest.raises(ValueError, match="trace.path: unknown field"):
        trace_from_declaration(declaration | {"path": "/tmp/x"})
