"""User workloads declared once (API, admin, `declare_workload`) and measured through jobs: the agent gets the
declaration in the job's spec, loads the file on its host, and fails the job's items with the reason when the
file is missing or does not match the declaration."""

from io import StringIO
from unittest import mock

import pytest
from django.core.management import CommandError, call_command

from agents.local_runner import run_pending_local_jobs
from agents.models import Job, JobSchedule, UserWorkload
from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db


def mlp(path, **changes) -> dict:
    return {"name": "mlp", "format": "onnx", "path": str(path), "unit": "inferences",
            "inputs": [{"name": "features", "shape": ["batch", 8], "dtype": "float32"}]} | changes  # fmt: skip


SHORT = {"min_duration_ms": 150, "min_query_count": 16, "rounds": 1, "offline_batch_sizes": [1, 4], "time_limit_s": 600}


def _run_job(staff_api, django_capture_on_commit_callbacks, **spec) -> Job:
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", SHORT | spec, format="json")
    assert response.status_code == 201, response.data
    assert run_pending_local_jobs() == 1
    return Job.objects.get(pk=response.data["id"])


def test_the_api_declares_a_user_workload_once_with_its_id(staff_api, api, model_files):
    created = staff_api.post("/api/v1/user-workloads/", mlp(model_files / "mlp.onnx"), format="json")
    assert created.status_code == 201, created.data
    assert created.data["workload_id"] == "user:mlp" and created.data["path"] == str(model_files / "mlp.onnx")
    assert UserWorkload.objects.get().as_spec() == mlp(model_files / "mlp.onnx")
    again = staff_api.post("/api/v1/user-workloads/", mlp(model_files / "other.onnx"), format="json")
    assert again.status_code == 400 and "already declared" in str(again.data["name"])
    assert api.post("/api/v1/user-workloads/", mlp("/m.onnx", name="x"), format="json").status_code == 403


def test_a_malformed_declaration_is_refused_naming_each_field_and_nothing_is_stored(staff_api):
    bad = mlp("models/mlp.onnx", inputs=[{"name": "features", "shape": [8, 8], "dtype": "float32"}])
    response = staff_api.post("/api/v1/user-workloads/", bad, format="json")
    assert response.status_code == 400
    assert "'batch' was expected" in str(response.data["inputs[0].shape[0]"])
    relative = staff_api.post("/api/v1/user-workloads/", mlp("models/mlp.onnx"), format="json")
    assert relative.status_code == 400 and "must be absolute" in str(relative.data["path"])
    generative = {key: value for key, value in mlp("/models/mlp.onnx", unit="output_tokens").items() if key != "inputs"}
    response = staff_api.post("/api/v1/user-workloads/", generative, format="json")
    assert response.status_code == 400 and {"unit", "llm"} <= set(response.data)
    assert staff_api.post("/api/v1/user-workloads/", mlp("/m.onnx", format="keras"), format="json").status_code == 400
    assert not UserWorkload.objects.exists()


def test_declare_workload_reads_the_yaml_bench_reads_and_enqueue_names_it(model_files):
    (model_files / "mlp.yaml").write_text(
        "name: mlp\nformat: onnx\npath: mlp.onnx\nunit: inferences\n"
        "inputs:\n  - {name: features, shape: [batch, 8], dtype: float32}\n"
    )
    out = StringIO()
    call_command("declare_workload", str(model_files / "mlp.yaml"), stdout=out)
    assert "Declared user:mlp" in out.getvalue()
    assert UserWorkload.objects.get().path == str((model_files / "mlp.onnx").resolve())
    with mock.patch("agents.jobs.job_dispatch"):
        call_command("enqueue", "--user-workload", "mlp", "--scenario", "offline", stdout=out)
    assert Job.objects.get().user_workload.name == "mlp"
    with pytest.raises(CommandError, match="UserWorkload matching query does not exist"):
        call_command("enqueue", "--user-workload", "nope", stdout=out)
    (model_files / "bad.yaml").write_text("name: bad\nformat: onnx\npath: mlp.onnx\nunit: inferences\n")
    with pytest.raises(CommandError, match=r"bad.yaml: inputs: required"):
        call_command("declare_workload", str(model_files / "bad.yaml"), stdout=StringIO())
    assert list(UserWorkload.objects.values_list("name", flat=True)) == ["mlp"]


def test_a_job_spec_naming_a_user_workload_is_checked_field_by_field(staff_api, model_files):
    staff_api.post("/api/v1/user-workloads/", mlp(model_files / "mlp.onnx"), format="json")
    response = staff_api.post(
        "/api/v1/jobs/", {"user_workload": "mlp", "workloads": ["tabular"], "backends": ["tensorrt2"]}, format="json"
    )
    assert response.status_code == 400 and {"workloads", "backends"} <= set(response.data)
    unknown = staff_api.post("/api/v1/jobs/", {"user_workload": "nope"}, format="json")
    assert unknown.status_code == 400 and "user_workload" in unknown.data
    assert not Job.objects.exists()


@pytest.mark.timeout(300, method="thread")
def test_a_job_measures_a_declared_onnx_file_on_the_agent_and_it_ranks_alone(
    catalog, staff_api, model_files, short_quick, django_capture_on_commit_callbacks
):
    staff_api.post("/api/v1/user-workloads/", mlp(model_files / "mlp.onnx"), format="json")
    job = _run_job(staff_api, django_capture_on_commit_callbacks, user_workload="mlp",
                   scenarios=["single-stream", "offline"])  # fmt: skip
    assert job.state == "succeeded", job.error
    runs = list(BenchmarkRun.objects.filter(job=job))
    assert {(run.workload_name, run.model_class, run.backend) for run in runs} == {("user:mlp", "user", "onnxruntime")}
    assert {run.scenario for run in runs} == {"single-stream", "offline"}
    assert {run.parameters for run in runs} == {195}  # read from the file's initializers, on the agent
    assert runs[0].payload["workload"]["config"] == mlp(model_files / "mlp.onnx")
    BenchmarkRun.objects.update(loadgen_valid=True)  # a short run's verdict depends on the machine's load
    ranking = staff_api.get("/api/v1/rankings/", {"workload": "user:mlp", "price_kind": "cloud_on_demand"})
    listed = [row["run"] for row in ranking.data["rows"]] + [row["run"] for row in ranking.data["infeasible"]]
    assert listed and {run["workload_name"] for run in listed} == {"user:mlp"}


@pytest.mark.timeout(300, method="thread")
def test_a_job_generates_with_a_declared_hugging_face_causal_lm(
    catalog, staff_api, tiny_causal_lm, short_quick, django_capture_on_commit_callbacks
):
    declaration = {"name": "tiny-llama", "format": "huggingface", "path": str(tiny_causal_lm),
                   "unit": "output_tokens", "llm": {"prompt_tokens": 16, "output_tokens": 8}}  # fmt: skip
    assert staff_api.post("/api/v1/user-workloads/", declaration, format="json").status_code == 201
    job = _run_job(staff_api, django_capture_on_commit_callbacks, user_workload="tiny-llama",
                   scenarios=["single-stream"])  # fmt: skip
    assert job.state == "succeeded", job.error
    run = BenchmarkRun.objects.get(job=job)
    assert (run.workload_name, run.backend) == ("user:tiny-llama", "eager")
    point = run.points.get()
    assert point.throughput_unit == "output_tokens" and point.output_tokens_per_s > 0
    assert 0 < point.ttft_p50_ms <= point.latency_p50_ms and point.tpot_p50_ms > 0
    llm = run.payload["points"][0]["llm"]
    assert (llm["prompt_tokens"], llm["output_tokens"]) == (16, 8)  # the declared lengths, every request


def test_a_missing_or_mismatched_file_fails_the_jobs_items_with_the_reason(
    catalog, staff_api, model_files, short_quick, django_capture_on_commit_callbacks
):
    staff_api.post("/api/v1/user-workloads/", mlp(model_files / "nowhere" / "mlp.onnx", name="gone"), format="json")
    job = _run_job(staff_api, django_capture_on_commit_callbacks, user_workload="gone", scenarios=["offline"])
    assert job.state == "failed" and "user:gone offline onnxruntime/fp32" in job.error
    assert f"path: {model_files / 'nowhere' / 'mlp.onnx'} does not exist" in job.error
    wrong = mlp(model_files / "mlp.onnx", name="wrong", inputs=[{"name": "pixels", "shape": ["batch", 8],
                                                                  "dtype": "float32"}])  # fmt: skip
    # A file that is on this host too is checked when it is declared: the contradiction is a 400, not a failed job.
    refused = staff_api.post("/api/v1/user-workloads/", wrong, format="json")
    assert refused.status_code == 400
    assert refused.data["inputs[0].name"] == "'pixels' is not an input of mlp.onnx (its inputs: features)"
    assert not BenchmarkRun.objects.exists()


def test_a_path_outside_the_model_root_is_refused_at_declaration(staff_api, model_root):
    for path in ("/etc/passwd", f"{model_root}/../../../../etc/passwd"):
        response = staff_api.post("/api/v1/user-workloads/", mlp(path, format="torchscript"), format="json")
        assert response.status_code == 400, path
        message = str(response.data["path"])
        assert "outside the model root" in message or "must not contain '..'" in message
    assert not UserWorkload.objects.exists()


def test_the_agent_refuses_a_path_outside_its_model_root_before_opening_it(
    catalog, staff_api, model_files, short_quick, django_capture_on_commit_callbacks, tmp_path_factory
):
    # Declared under the root, but a symlink there points outside it (or the agent's root differs).
    outside = tmp_path_factory.mktemp("outside")
    (outside / "mlp.onnx").write_bytes((model_files / "mlp.onnx").read_bytes())
    (model_files / "link.onnx").symlink_to(outside / "mlp.onnx")
    staff_api.post("/api/v1/user-workloads/", mlp(model_files / "link.onnx", name="linked"), format="json")
    job = _run_job(staff_api, django_capture_on_commit_callbacks, user_workload="linked", scenarios=["offline"])
    assert job.state == "failed" and "is outside the model root" in job.error
    assert f"(resolved: {outside / 'mlp.onnx'})" in job.error and not BenchmarkRun.objects.exists()


def test_declared_inputs_are_bounded_at_one_gib_per_sample(staff_api, model_files):
    # 4x10^22 bytes was accepted: 10^11 x 10^11 float32 = 4x10^22 bytes per sample, over 2^30 = 1,073,741,824.
    huge = mlp(model_files / "mlp.onnx", inputs=[{"name": "features", "shape": ["batch", 10**11, 10**11],
                                                  "dtype": "float32"}])  # fmt: skip
    response = staff_api.post("/api/v1/user-workloads/", huge, format="json")
    assert response.status_code == 400
    assert "takes 40000000000000000000000 bytes; at most 1073741824 bytes (1 GiB)" in str(
        response.data["inputs[0].shape"]
    )
    # 2 inputs of 2^28 float32 (2^30 bytes each) are each at the limit, together twice it.
    half = {"shape": ["batch", 1 << 28], "dtype": "float32"}
    pair = mlp(model_files / "mlp.onnx", inputs=[half | {"name": "a"}, half | {"name": "b"}])
    response = staff_api.post("/api/v1/user-workloads/", pair, format="json")
    assert response.status_code == 400 and "takes 2147483648 bytes" in str(response.data["inputs"])
    assert not UserWorkload.objects.exists()


def test_a_schedule_and_the_jobs_page_name_a_user_workload(staff_api, client, staff, model_files):
    from agents.registry import local_agent
    from agents.schedules import schedule_fire

    staff_api.post("/api/v1/user-workloads/", mlp(model_files / "mlp.onnx"), format="json")
    agent = local_agent()
    created = staff_api.post(
        "/api/v1/schedules/", {"name": "nightly mlp", "user_workload": "mlp", "agent": agent.name, "every_s": 3600},
        format="json",
    )  # fmt: skip
    assert created.status_code == 201, created.data
    with mock.patch("agents.jobs.job_dispatch"):
        job = schedule_fire(schedule_id=JobSchedule.objects.get().pk)
    assert job.user_workload.name == "mlp" and job.state == "queued"

    client.force_login(staff)
    with mock.patch("agents.jobs.job_dispatch"):
        response = client.post("/jobs/", {"agent": agent.pk, "suite": "quick", "time_limit_s": 600,
                                          "user_workload": UserWorkload.objects.get().pk})  # fmt: skip
    assert response.status_code == 302
    assert Job.objects.filter(schedule=None, user_workload__name="mlp").count() == 1
    assert "User workload" in client.get("/jobs/").content.decode()
