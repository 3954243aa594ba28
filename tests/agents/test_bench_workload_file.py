"""`bench --workload-file`: a user's own model files, made here, measured for real, stored under user:<name>."""

from io import StringIO

import pytest
import torch
from django.core.management import CommandError, call_command

from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db


def _declare(folder, fmt, path, input_name="features", suffix="yaml"):
    spec = folder / f"{fmt}.{suffix}"
    if suffix == "yaml":
        spec.write_text(
            f"name: mlp-{fmt}\nformat: {fmt}\npath: {path}\nunit: inferences\n"
            f"inputs:\n  - name: {input_name}\n    shape: [batch, 8]\n    dtype: float32\n"
        )
    else:
        spec.write_text(
            f'name = "mlp-{fmt}"\nformat = "{fmt}"\npath = "{path}"\nunit = "inferences"\n'
            f'[[inputs]]\nname = "{input_name}"\nshape = ["batch", 8]\ndtype = "float32"\n'
        )
    return spec


def _bench(spec, out_dir, *extra):
    out = StringIO()
    call_command("bench", "--workload-file", str(spec), "--out", str(out_dir), *extra, stdout=out)
    return out.getvalue()


def test_it_benchmarks_an_onnx_file_on_onnx_runtime_and_stores_it_as_its_own_workload(
    catalog, model_files, short_quick, tmp_path
):
    text = _bench(_declare(model_files, "onnx", "mlp.onnx"), tmp_path / "out", "--scenario", "single-stream",
                  "--scenario", "offline")  # fmt: skip
    assert "2 runs stored, 0 skipped, 0 quarantined, 0 failed" in text
    runs = list(BenchmarkRun.objects.all())
    assert {run.workload_name for run in runs} == {"user:mlp-onnx"}
    assert {run.model_class for run in runs} == {"user"}
    assert {(run.backend, run.precision) for run in runs} == {("onnxruntime", "fp32")}
    assert {run.scenario for run in runs} == {"single-stream", "offline"}
    # 8*16+16 + 16*3+3 weights read from the file's initializers; the declaration is kept with the run.
    assert {run.parameters for run in runs} == {195}
    assert runs[0].payload["workload"]["config"]["format"] == "onnx"
    assert all(point.throughput_per_s > 0 for run in runs for point in run.points.all())


def test_it_benchmarks_torchscript_and_torch_export_files_declared_in_toml_and_yaml(
    catalog, model_files, short_quick, tmp_path
):
    for fmt, path, suffix in (("torchscript", "mlp.pt", "toml"), ("torch-export", "mlp.pt2", "yaml")):
        text = _bench(_declare(model_files, fmt, path, suffix=suffix), tmp_path / fmt, "--scenario", "single-stream")
        assert "1 runs stored, 0 skipped, 0 quarantined, 0 failed" in text, text
    runs = {run.workload_name: run for run in BenchmarkRun.objects.all()}
    assert set(runs) == {"user:mlp-torchscript", "user:mlp-torch-export"}
    assert {run.backend for run in runs.values()} == {"eager"}


def test_a_file_on_a_backend_that_cannot_run_it_is_skipped_with_the_reason(catalog, model_files, short_quick, tmp_path):
    text = _bench(_declare(model_files, "onnx", "mlp.onnx"), tmp_path / "out", "--scenario", "single-stream",
                  "--backend", "eager", "--backend", "tensorrt")  # fmt: skip
    assert "0 runs stored, 2 skipped" in text
    assert "an ONNX file runs on ONNX Runtime (backends onnxruntime, tensorrt), not eager" in text
    assert "TensorRT" in text  # no CUDA here: the TensorRT execution provider is skipped with why
    assert not BenchmarkRun.objects.exists()


def test_it_rejects_an_input_the_onnx_file_does_not_have_naming_the_field(catalog, model_files, tmp_path):
    with pytest.raises(CommandError, match=r"inputs\[0\].name: 'pixels' is not an input of mlp.onnx \(its inputs: "
                       r"features\)"):  # fmt: skip
        _bench(_declare(model_files, "onnx", "mlp.onnx", input_name="pixels"), tmp_path / "out")
    assert not BenchmarkRun.objects.exists()


def test_it_rejects_a_malformed_declaration_before_running_anything(catalog, model_files, tmp_path):
    spec = model_files / "bad.yaml"
    spec.write_text("name: bad\nformat: onnx\npath: mlp.onnx\nunit: inferences\n"
                    "inputs:\n  - {name: features, shape: [8, 8], dtype: float32}\n")  # fmt: skip
    with pytest.raises(CommandError, match=r"bad.yaml: inputs\[0\].shape\[0\]: 'batch' was expected"):
        _bench(spec, tmp_path / "out")
    (model_files / "broken.pt").write_bytes(b"not a torchscript archive")
    with pytest.raises(CommandError, match=r"path: .*broken.pt does not load as torchscript"):
        _bench(_declare(model_files, "torchscript", "broken.pt"), tmp_path / "out")
    assert not BenchmarkRun.objects.exists()


def test_it_refuses_other_work_under_a_declared_id_and_runs_the_same_declaration(
    catalog, model_files, short_quick, tmp_path
):
    declared = _declare(model_files, "onnx", "mlp.onnx")
    call_command("declare_workload", str(declared), stdout=StringIO())
    other = model_files / "other.yaml"
    other.write_text("name: mlp-onnx\nformat: onnx\npath: mlp.onnx\nunit: samples\n"
                     "inputs:\n  - {name: features, shape: [batch, 4], dtype: float32}\n")  # fmt: skip
    with pytest.raises(CommandError) as refused:
        _bench(other, tmp_path / "other", "--scenario", "single-stream")
    message = str(refused.value)
    assert message.startswith(f"{other}: user:mlp-onnx is already declared") and "another name" in message
    assert "unit: declared 'inferences', this file 'samples'" in message
    assert "'shape': ['batch', 8]" in message and "'shape': ['batch', 4]" in message
    assert "path:" not in message and "format:" not in message  # only what differs is named
    assert not BenchmarkRun.objects.exists()

    text = _bench(declared, tmp_path / "same", "--scenario", "single-stream")
    assert "1 runs stored, 0 skipped, 0 quarantined, 0 failed" in text, text
    assert BenchmarkRun.objects.get().workload_name == "user:mlp-onnx"


def test_it_benchmarks_a_hugging_face_directory_loaded_offline(catalog, short_quick, tmp_path, monkeypatch):
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=32)  # fmt: skip
    BertModel(config).save_pretrained(tmp_path / "tiny-bert")  # config.json + model.safetensors
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a hub download would fail here rather than pass
    spec = tmp_path / "bert.yaml"
    spec.write_text(
        "name: tiny-bert\nformat: huggingface\npath: tiny-bert\nunit: samples\n"
        "inputs:\n  - {name: input_ids, shape: [batch, 16], dtype: int64, range: [0, 100]}\n"
    )
    text = _bench(spec, tmp_path / "out", "--scenario", "single-stream")
    assert "1 runs stored, 0 skipped, 0 quarantined, 0 failed" in text, text
    run = BenchmarkRun.objects.get()
    assert (run.workload_name, run.model_class, run.backend) == ("user:tiny-bert", "user", "eager")
    assert run.parameters == sum(p.numel() for p in BertModel(config).parameters())
    assert run.flops_per_inference > 0


def test_a_user_workload_ranks_only_against_its_own_runs(catalog, model_files, short_quick, tmp_path, api):
    _bench(_declare(model_files, "onnx", "mlp.onnx"), tmp_path / "out", "--scenario", "offline")
    call_command("bench", "--workload", "tabular-tiny", "--scenario", "offline", "--out", str(tmp_path / "tiny"),
                 "--rounds", "1", stdout=StringIO())  # fmt: skip
    assert BenchmarkRun.objects.filter(workload_name="tabular-tiny").exists()
    # LoadGen's verdict on a short run depends on the machine's load; pin it so only the workload filter decides.
    BenchmarkRun.objects.update(loadgen_valid=True)

    response = api.get("/api/v1/rankings/", {"workload": "user:mlp-onnx", "price_kind": "cloud_on_demand"})

    assert response.status_code == 200, response.data
    assert response.data["workload"]["id"] == "user:mlp-onnx"
    listed = [row["run"] for row in response.data["rows"]] + [row["run"] for row in response.data["infeasible"]]
    assert listed and {run["workload_name"] for run in listed} == {"user:mlp-onnx"}
    other = api.get("/api/v1/rankings/", {"workload": "user:other", "price_kind": "cloud_on_demand"})
    assert other.status_code == 200 and other.data["rows"] == [] and other.data["infeasible"] == []


def test_a_hugging_face_causal_lm_generates_exactly_the_declared_tokens_greedily(tiny_causal_lm):
    """The generation loop the harness times is greedy decoding: the same ids transformers' generate gives."""
    import workloads as registry
    from harness.workloads.file import FileWorkload

    declaration = {"name": "tiny-llama", "format": "huggingface", "path": str(tiny_causal_lm),
                   "unit": "output_tokens", "llm": {"prompt_tokens": 12, "output_tokens": 9}}  # fmt: skip
    workload = FileWorkload(registry.parse_spec(declaration))
    model = workload.build("cpu")
    (prompt,) = workload.example_inputs(2)
    first_tokens = []
    generated = workload.infer(model, model, (prompt,), on_first_token=first_tokens.append)
    expected = model.model.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                                    max_new_tokens=9, min_new_tokens=9)[:, 12:]  # fmt: skip
    assert generated.shape == (2, 9) and torch.equal(generated, expected)
    assert len(first_tokens) == 1 and torch.equal(first_tokens[0], expected[:, :1])
    assert workload.output_tokens() == 9


def test_bench_measures_a_hugging_face_causal_lm_in_output_tokens(catalog, tiny_causal_lm, short_quick, tmp_path):
    spec = tmp_path / "llm.toml"
    spec.write_text(f'name = "tiny-llama"\nformat = "huggingface"\npath = "{tiny_causal_lm}"\n'
                    'unit = "output_tokens"\n[llm]\nprompt_tokens = 16\noutput_tokens = 8\n')  # fmt: skip
    text = _bench(spec, tmp_path / "out", "--scenario", "single-stream", "--scenario", "offline",
                  "--backend", "eager", "--backend", "compile")  # fmt: skip
    assert "2 runs stored, 2 skipped, 0 quarantined, 0 failed" in text, text
    assert "a causal LM file generates on the eager backend" in text
    for run in BenchmarkRun.objects.all():
        assert (run.workload_name, run.backend) == ("user:tiny-llama", "eager")
        for point in run.points.all():
            assert point.throughput_unit == "output_tokens" and point.output_tokens_per_s > 0
            llm = run.payload["points"][point.index]["llm"]
            assert (llm["prompt_tokens"], llm["output_tokens"]) == (16, 8)
            if run.scenario == "single-stream":  # LoadGen times tokens in SingleStream and Server, not Offline
                assert 0 < point.ttft_p50_ms <= point.latency_p50_ms and point.tpot_p50_ms > 0
