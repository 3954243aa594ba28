"""Declared user workloads: validation names the field, nothing is registered from a bad declaration."""

import json

import pytest

import workloads as registry
from workloads import UserWorkloadError, load_spec_file, parse_spec


def _spec(**changes):
    spec = {
        "name": "my-mlp",
        "format": "onnx",
        "path": "model.onnx",
        "unit": "inferences",
        "inputs": [{"name": "features", "shape": ["batch", 8], "dtype": "float32"}],
    }
    return spec | changes


def _save_onnx_graph(path, *inputs):
    """A one-node ONNX graph (Identity of its first input) with the given (name, dims, element type) inputs."""
    import onnx
    from onnx import helper

    values = [helper.make_tensor_value_info(name, elem, dims) for name, dims, elem in inputs]
    output = helper.make_tensor_value_info("out", inputs[0][2], inputs[0][1])
    graph = helper.make_graph([helper.make_node("Identity", [inputs[0][0]], ["out"])], "g", values, [output])
    onnx.save(helper.make_model(graph), str(path))


@pytest.fixture
def model_dir(tmp_path):
    import onnx

    _save_onnx_graph(tmp_path / "model.onnx", ("features", ["batch", 8], onnx.TensorProto.FLOAT))
    return tmp_path


def test_an_onnx_declaration_that_contradicts_the_graph_is_refused_naming_each_field(tmp_path):
    import onnx

    # The graph takes features [batch, 8] float32 and mask [batch, 4] int64.
    _save_onnx_graph(tmp_path / "model.onnx", ("features", ["batch", 8], onnx.TensorProto.FLOAT),
                     ("mask", ["batch", 4], onnx.TensorProto.INT64))  # fmt: skip
    declared = [{"name": "features", "shape": ["batch", 16], "dtype": "float32"},
                {"name": "mask", "shape": ["batch", 4, 1], "dtype": "float32"}]  # fmt: skip
    with pytest.raises(UserWorkloadError) as refused:
        parse_spec(_spec(inputs=declared), base_dir=tmp_path)
    assert refused.value.by_field() == {
        "inputs[0].shape": "dimension 1 is 16, but model.onnx fixes it at 8: [batch, 8]",
        "inputs[1].shape": "3 dimensions, but model.onnx gives mask 2: [batch, 4]",
        "inputs[1].dtype": "float32, but model.onnx takes int64",
    }


def test_it_accepts_a_well_formed_declaration_and_names_it_user_colon_name(model_dir):
    spec = parse_spec(_spec(), base_dir=model_dir)
    assert spec.id == "user:my-mlp"
    assert spec.path == str((model_dir / "model.onnx").resolve())
    workload = registry.user_workload(spec.id, spec)
    assert workload.user_defined and workload.unit == registry.Unit.INFERENCES
    assert "features float32[batch, 8]" in workload.input_description


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (
            {"inputs": [{"name": "x", "shape": [8, 8], "dtype": "float32"}]},
            "inputs[0].shape[0]",
            "'batch' was expected",
        ),
        ({"inputs": [{"name": "x", "shape": ["batch", 0], "dtype": "float32"}]}, "inputs[0].shape[1]", "minimum"),
        ({"inputs": [{"name": "x", "shape": ["batch", 8], "dtype": "float33"}]}, "inputs[0].dtype", "float33"),
        ({"inputs": [{"name": "x", "shape": ["batch", 8]}]}, "inputs[0]", "'dtype' is a required property"),
        ({"format": "keras"}, "format", "'keras' is not one of"),
        ({"unit": "tokens"}, "unit", "'tokens' is not one of"),
        ({"name": "My Model"}, "name", "does not match"),
        ({"path": "missing.onnx"}, "path", "does not exist"),
        ({"format": "torch-export"}, "path", "a torch-export file ends in .pt2"),
        ({"unit": "output_tokens"}, "unit", "output_tokens needs a generative model"),
        (
            {"inputs": [{"name": "a", "shape": ["batch"], "dtype": "int64", "range": [5, 5]}]},
            "inputs[0].range",
            "low 5 must be below high 5",
        ),
        ({"extra": 1}, "(spec)", "Additional properties are not allowed"),
    ],
)
def test_it_rejects_a_malformed_declaration_naming_the_field(model_dir, changes, field, message):
    with pytest.raises(UserWorkloadError) as caught:
        parse_spec(_spec(**changes), base_dir=model_dir)
    assert any(f == field and message in m for f, m in caught.value.errors), caught.value.errors
    assert f"{field}: " in str(caught.value)


def test_it_names_every_missing_file_of_a_hugging_face_directory(tmp_path):
    with pytest.raises(UserWorkloadError, match=r"path: .* has no config.json and no \*.safetensors weights"):
        parse_spec(_spec(format="huggingface", path="."), base_dir=tmp_path)


def test_it_reads_yaml_and_toml_declarations_relative_to_their_own_folder(model_dir):
    (model_dir / "w.yaml").write_text(
        "name: my-mlp\nformat: onnx\npath: model.onnx\nunit: samples\n"
        "inputs:\n  - {name: features, shape: [batch, 8], dtype: float32}\n"
    )
    (model_dir / "w.toml").write_text(
        'name = "my-mlp"\nformat = "onnx"\npath = "model.onnx"\nunit = "samples"\n'
        '[[inputs]]\nname = "features"\nshape = ["batch", 8]\ndtype = "float32"\n'
    )
    assert load_spec_file(model_dir / "w.yaml") == load_spec_file(model_dir / "w.toml")


def test_it_reports_a_file_that_is_not_yaml(model_dir):
    (model_dir / "w.yaml").write_text("name: [unclosed\n")
    with pytest.raises(UserWorkloadError, match=r"\(file\): w.yaml is not valid YAML"):
        load_spec_file(model_dir / "w.yaml")


def test_a_user_id_resolves_in_any_process_to_a_workload_of_its_own():
    workload = registry.get("user:my-mlp")
    assert workload.id == "user:my-mlp" and workload.model_class == registry.USER and workload.user_defined
    with pytest.raises(registry.UnknownWorkload):
        registry.get("user:Not Valid")


def _hf_dir(folder, **config):
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "model.safetensors").write_bytes(b"")
    return folder


def test_a_generative_declaration_is_checked_against_its_config_json(tmp_path):
    _hf_dir(tmp_path / "lm", architectures=["LlamaForCausalLM"], max_position_embeddings=16, vocab_size=8)
    _hf_dir(tmp_path / "enc", architectures=["BertModel"], max_position_embeddings=512)
    llm = {"prompt_tokens": 8, "output_tokens": 4}
    declaration = _spec(format="huggingface", path="lm", unit="output_tokens", llm=llm, inputs=None)
    del declaration["inputs"]
    assert parse_spec(declaration, base_dir=tmp_path).llm == llm
    with pytest.raises(UserWorkloadError, match=r"llm: prompt_tokens \+ output_tokens = 24 exceeds the model's "
                       r"max_position_embeddings \(16\)"):  # fmt: skip
        parse_spec(declaration | {"llm": {"prompt_tokens": 20, "output_tokens": 4}}, base_dir=tmp_path)
    with pytest.raises(UserWorkloadError, match=r"path: .*enc is not a causal language model \(its architectures: "
                       r"BertModel\)"):  # fmt: skip
        parse_spec(declaration | {"path": "enc"}, base_dir=tmp_path)


def test_a_declaration_for_an_agent_host_needs_an_absolute_path_and_no_file_here(monkeypatch):
    monkeypatch.delenv("INFERLEDGER_MODEL_ROOT", raising=False)  # the default root, /var/lib/inferledger/models
    spec = parse_spec(_spec(path="/var/lib/inferledger/models/agent.onnx"), base_dir=None, check_files=False)
    assert spec.path == "/var/lib/inferledger/models/agent.onnx"
    with pytest.raises(UserWorkloadError, match=r"path: 'model.onnx' must be absolute: the file's path on the agent"):
        parse_spec(_spec(), base_dir=None, check_files=False)
