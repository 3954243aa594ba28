"""Unknown fields are refused with a 400 naming them, never dropped: a misspelt field must not turn into other work
(``scenario`` for ``scenarios`` used to queue a whole quick suite; a nested ``{"spec": ...}`` schedule, a quick
suite every 60 s)."""

import pytest
from django.core.management import CommandError, call_command

from agents.jobspec import spec_errors
from agents.models import Endpoint, Job, JobSchedule, UserWorkload
from agents.registry import agent_register
from harness.endpoints.target import Endpoint as EndpointTarget

pytestmark = pytest.mark.django_db
CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def agent(catalog):
    return agent_register(report={"name": "gpu01", "devices": CPU})


def test_a_job_with_singular_field_names_is_a_400_naming_them(staff_api, agent):
    spec = {"agent": "gpu01", "workload": "tabular", "scenario": "offline"}
    response = staff_api.post("/api/v1/jobs/", spec, format="json")
    assert response.status_code == 400
    assert set(response.data) == {"workload", "scenario"}
    assert str(response.data["scenario"]).startswith("unknown field; known: ")
    assert not Job.objects.exists()


def test_a_schedule_with_a_nested_spec_is_a_400_naming_it(staff_api, agent):
    body = {"name": "nested", "agent": "gpu01", "every_s": 60, "spec": {"workloads": ["tabular"]}}
    response = staff_api.post("/api/v1/schedules/", body, format="json")
    assert response.status_code == 400 and set(response.data) == {"spec"}
    assert not JobSchedule.objects.exists()


def test_an_endpoint_with_an_unknown_field_is_a_400_naming_it(staff_api, catalog):
    body = {"name": "noop", "protocol": "openai-completions", "url": "http://127.0.0.1:1", "model": "m",
            "accelerator": "NVIDIA H100 SXM5 80GB", "max_tokens": 9}  # fmt: skip
    response = staff_api.post("/api/v1/endpoints/", body, format="json")
    assert response.status_code == 400 and set(response.data) == {"max_tokens"}
    nested = body | {"max_tokens": None, "protocol": "oip-v2", "v2_input": {"name": "x", "dims": [1]}}
    del nested["max_tokens"]
    response = staff_api.post("/api/v1/endpoints/", nested, format="json")
    assert response.status_code == 400 and set(response.data) == {"v2_input"}
    assert not Endpoint.objects.exists()


def test_a_user_workload_with_an_unknown_field_is_a_400_naming_it(staff_api):
    body = {"name": "m", "format": "onnx", "path": "/models/m.onnx", "unit": "inferences", "batch": 8,
            "inputs": [{"name": "x", "shape": ["batch", 8], "dtype": "float32"}]}  # fmt: skip
    response = staff_api.post("/api/v1/user-workloads/", body, format="json")
    assert response.status_code == 400 and set(response.data) == {"batch"}
    assert not UserWorkload.objects.exists()


def test_a_spec_as_the_agent_gets_it_refuses_unknown_fields_at_each_level():
    # The agent's copy of the spec is checked again: a field unknown to the spec, or to its endpoint declaration.
    endpoint = {"name": "e", "protocol": "openai-completions", "url": "http://127.0.0.1:1", "model": "m", "x": 1}
    errors = spec_errors({"scenario": ["offline"], "endpoint": endpoint}, time_limit_max_s=3600)
    assert set(errors) == {"scenario", "endpoint.x"}
    with pytest.raises(ValueError, match=r"endpoint\.x: unknown field"):
        EndpointTarget.from_dict(endpoint)


def test_a_workload_file_with_an_unknown_field_is_refused_naming_it(tmp_path):
    spec = tmp_path / "w.toml"
    spec.write_text('name = "m"\nformat = "onnx"\npath = "/m.onnx"\nunit = "inferences"\nbatch_size = 8\n'
                    '[[inputs]]\nname = "x"\nshape = ["batch", 8]\ndtype = "float32"\n')  # fmt: skip
    with pytest.raises(CommandError, match=r"Additional properties are not allowed \('batch_size' was unexpected\)"):
        call_command("declare_workload", str(spec))
