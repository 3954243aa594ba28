"""User workloads: a model file the user declares (ONNX, TorchScript, ``torch.export`` or a local Hugging Face
directory) with its input spec and unit of work, registered as ``user:<name>``.

A declaration is a small YAML or TOML file (or the same mapping in a job spec). It is validated with
jsonschema and then against the files it names; any error names its field (``inputs[0].shape: ...``) and
nothing is registered until everything checks. Django-free and torch-free: the harness
(``harness.workloads.file``) loads the model itself.

Two places check a declaration. Where it is declared for jobs (the control plane: API, admin, ``manage.py
declare_workload``) only the declaration itself is checked, ``parse_spec(..., check_files=False)``: its
``path`` is on the agent host and must be absolute. Where the file is (``bench --workload-file``, and the
agent that runs a job) ``file_errors`` checks the file against the declaration too.

Every stored run carries its declaration in ``workload.config`` and its id ``user:<name>``;
``get('user:<name>')`` answers in any process (the web included) with a workload that ranks only against
runs of that id.

Agents read user models only under the model root: ``INFERLEDGER_MODEL_ROOT`` (default
/var/lib/inferledger/models), set alike on the control plane and the agents. A declaration for an agent host names
a path under it, without '..' (checked where it is declared); the agent checks it again with symlinks resolved
before it opens anything. One sample's declared inputs are bounded (MAX_SAMPLE_INPUT_BYTES, 1 GiB): the harness
generates them, batch after batch, in the agent's memory.
"""

from __future__ import annotations

import json
import math
import os
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path, PurePosixPath

import jsonschema

from .registry import DECLARED_NAME, Unit, Workload

USER = "user"
USER_ID = re.compile(rf"^user:{DECLARED_NAME}$")
FORMATS = ("onnx", "torchscript", "torch-export", "huggingface")
FILE_SUFFIXES = {"onnx": (".onnx",), "torchscript": (".pt", ".pth", ".ts"), "torch-export": (".pt2",)}
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "bool": 1}
DTYPES = tuple(DTYPE_BYTES)
# The most one sample's declared inputs may take (the product of the non-batch dimensions times the dtype's size,
# over every input): a shape of 4x10^22 bytes was accepted, and the agent would try to allocate it.
MAX_SAMPLE_INPUT_BYTES = 1 << 30
MODEL_ROOT_ENV = "INFERLEDGER_MODEL_ROOT"
DEFAULT_MODEL_ROOT = "/var/lib/inferledger/models"
UNITS = (Unit.INFERENCES.value, Unit.SAMPLES.value, Unit.OUTPUT_TOKENS.value)
NATIVE_BACKEND = {"onnx": "onnxruntime", "torchscript": "eager", "torch-export": "eager", "huggingface": "eager"}

SPEC_SCHEMA = {
    "type": "object",
    "required": ["name", "format", "path", "unit"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": rf"^{DECLARED_NAME}$"},
        "title": {"type": "string", "maxLength": 200},
        "format": {"enum": list(FORMATS)},
        "path": {"type": "string", "minLength": 1},
        "unit": {"enum": list(UNITS)},
        "inputs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["name", "shape", "dtype"],
                "additionalProperties": False,
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "shape": {
                        "type": "array",
                        "minItems": 1,
                        "prefixItems": [{"const": "batch"}],
                        "items": {"type": "integer", "minimum": 1},
                    },
                    "dtype": {"enum": list(DTYPES)},
                    "range": {
                        "type": "array",
                        "prefixItems": [{"type": "integer"}, {"type": "integer"}],
                        "minItems": 2,
                        "maxItems": 2,
                    },
                },
            },
        },
        "llm": {
            "type": "object",
            "required": ["prompt_tokens", "output_tokens"],
            "additionalProperties": False,
            "properties": {
                "prompt_tokens": {"type": "integer", "minimum": 1, "maximum": 32768},
                "output_tokens": {"type": "integer", "minimum": 1, "maximum": 8192},
            },
        },
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(SPEC_SCHEMA)


class UserWorkloadError(ValueError):
    """A declaration that cannot be registered; ``errors`` is [(field, message)], the field as a path."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors))

    def by_field(self) -> dict[str, str]:
        """{field path: its messages joined by '; '}, for answers keyed by field (the API's 400)."""
        fields: dict[str, list[str]] = {}
        for field, message in self.errors:
            fields.setdefault(field, []).append(message)
        return {field: "; ".join(messages) for field, messages in fields.items()}


def field_path(parts) -> str:
    """``['inputs', 0, 'shape']`` -> ``inputs[0].shape``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(spec)"


@dataclass(frozen=True)
class UserWorkloadSpec:
    """A validated declaration; ``path`` is absolute."""

    name: str
    format: str
    path: str
    unit: str
    inputs: tuple[dict, ...]
    title: str = ""
    llm: dict | None = None

    @property
    def id(self) -> str:
        return f"{USER}:{self.name}"

    @property
    def native_backend(self) -> str:
        return NATIVE_BACKEND[self.format]

    def to_dict(self) -> dict:
        spec: dict = {"name": self.name, "format": self.format, "path": self.path, "unit": self.unit,
                "inputs": [dict(i) for i in self.inputs]}  # fmt: skip
        if self.title:
            spec["title"] = self.title
        if self.llm:
            spec["llm"] = dict(self.llm)
        return spec


def parse_spec(data, base_dir: str | Path | None = ".", *, check_files: bool = True) -> UserWorkloadSpec:
    """Validate a declaration (a mapping) and, with ``check_files``, the files it names.

    Relative paths are from ``base_dir``; with ``base_dir=None`` (a declaration for an agent host) the path
    must be absolute. Raises UserWorkloadError listing every bad field; returns nothing half-checked.
    """
    errors = declaration_errors(data)
    if errors:
        raise UserWorkloadError(errors)
    path = Path(data["path"]).expanduser()
    if not path.is_absolute():
        if base_dir is None:
            raise UserWorkloadError([("path", f"{data['path']!r} must be absolute: the file's path on the agent host")])
        path = (Path(base_dir) / path).resolve()
    elif base_dir is None:  # a declaration for an agent host: only under its model root
        errors = model_root_errors(str(path))
        if errors:
            raise UserWorkloadError(errors)
    spec = UserWorkloadSpec(
        name=data["name"], format=data["format"], path=str(path), unit=data["unit"],
        inputs=tuple(dict(i) for i in data.get("inputs", ())), title=data.get("title", ""), llm=data.get("llm"),
    )  # fmt: skip
    if check_files:
        errors = file_errors(spec)
        if errors:
            raise UserWorkloadError(errors)
    return spec


def model_root() -> Path:
    """Where agents may read user models: INFERLEDGER_MODEL_ROOT, or /var/lib/inferledger/models."""
    return Path(os.environ.get(MODEL_ROOT_ENV) or DEFAULT_MODEL_ROOT)


def model_root_errors(path: str, *, resolve: bool = False) -> list[tuple[str, str]]:
    """[('path', why)] when ``path`` is not under the model root; ``resolve`` (on the agent, before opening it)
    follows symlinks too, so a link under the root to a file outside it is refused."""
    root = model_root()
    if ".." in PurePosixPath(path).parts:
        return [("path", f"{path!r} must not contain '..' (models are read only under {root})")]
    target, base = (Path(path).resolve(), root.resolve()) if resolve else (Path(path), root)
    if not target.is_relative_to(base):
        where = f"{path} (resolved: {target})" if resolve and str(target) != path else path
        return [("path", f"{where} is outside the model root {root} ({MODEL_ROOT_ENV}): agents read models only "
                         "under it")]  # fmt: skip
    return []


def declaration_errors(data) -> list[tuple[str, str]]:
    """Every problem of a declaration as (field path, message), without opening the file; empty when none."""
    if not isinstance(data, dict):
        return [("(spec)", f"expected a mapping, got {type(data).__name__}")]
    errors = [
        (field_path(e.absolute_path), e.message)
        for e in sorted(_VALIDATOR.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    ]
    return errors or _semantic_errors(data)


def _semantic_errors(data: dict) -> list[tuple[str, str]]:
    errors, is_llm = [], data["unit"] == Unit.OUTPUT_TOKENS.value
    if is_llm and data["format"] != "huggingface":
        errors.append(("unit", "output_tokens needs a generative model: format huggingface with llm"))
    if is_llm and "llm" not in data:
        errors.append(("llm", "required when unit is output_tokens (prompt_tokens, output_tokens)"))
    if not is_llm and "llm" in data:
        errors.append(("llm", f"only for unit output_tokens, not {data['unit']}"))
    if not is_llm and "inputs" not in data:
        errors.append(("inputs", "required: the model's inputs (name, shape with the batch dimension, dtype)"))
    names = [i["name"] for i in data.get("inputs", ())]
    for n, name in enumerate(names):
        if name in names[:n]:
            errors.append((f"inputs[{n}].name", f"{name!r} is declared twice"))
    for n, spec in enumerate(data.get("inputs", ())):
        low_high = spec.get("range")
        if low_high is not None and low_high[0] >= low_high[1]:
            errors.append((f"inputs[{n}].range", f"low {low_high[0]} must be below high {low_high[1]}"))
    sizes = [math.prod(spec["shape"][1:]) * DTYPE_BYTES[spec["dtype"]] for spec in data.get("inputs", ())]
    limit = f"at most {MAX_SAMPLE_INPUT_BYTES} bytes (1 GiB) per sample"
    for n, size in enumerate(sizes):
        if size > MAX_SAMPLE_INPUT_BYTES:
            errors.append((f"inputs[{n}].shape", f"one sample of this input takes {size} bytes; {limit}"))
    if sum(sizes) > MAX_SAMPLE_INPUT_BYTES and all(size <= MAX_SAMPLE_INPUT_BYTES for size in sizes):
        errors.append(("inputs", f"one sample of these inputs takes {sum(sizes)} bytes; {limit}"))
    return errors


def file_errors(spec: UserWorkloadSpec) -> list[tuple[str, str]]:
    """What is wrong with the file a declaration names, on the host that has it; empty when it matches.

    Checks what can be read without loading the model (it exists, its kind and suffix; a causal LM's
    config.json); the harness reports a file that then does not load, or whose ONNX inputs differ.
    """
    path, fmt = Path(spec.path), spec.format
    if not path.exists():
        return [("path", f"{path} does not exist")]
    if fmt == "huggingface":
        if not path.is_dir():
            return [("path", f"{path} is not a directory (a Hugging Face model directory is)")]
        missing = [] if (path / "config.json").is_file() else ["config.json"]
        if not list(path.glob("*.safetensors")):
            missing.append("*.safetensors weights")
        if missing:
            return [("path", f"{path} has no {' and no '.join(missing)}")]
        return _causal_lm_errors(path / "config.json", spec.llm) if spec.llm else []
    if not path.is_file():
        return [("path", f"{path} is not a file")]
    if path.suffix not in FILE_SUFFIXES[fmt]:
        return [("path", f"a {fmt} file ends in {' or '.join(FILE_SUFFIXES[fmt])}, not {path.name!r}")]
    return onnx_input_errors(path, spec.inputs) if fmt == "onnx" else []


# ONNX's TensorProto element types, by the declaration's dtype names.
ONNX_DTYPES = {"float32": 1, "int32": 6, "int64": 7, "bool": 9, "float16": 10, "bfloat16": 16}


def onnx_input_errors(path: Path, inputs) -> list[tuple[str, str]]:
    """The declared inputs against the graph's own (names, rank, fixed dimensions, element type), read with
    onnx's loader without the weights: a contradiction is named at declaration, not met at run time."""
    import onnx

    try:
        graph = onnx.load(str(path), load_external_data=False).graph
    except Exception as exc:  # noqa: BLE001 - any parse failure is the file's fault
        return [("path", f"not a readable ONNX model: {exc}")]
    initializers = {i.name for i in graph.initializer}
    graph_inputs = {i.name: i.type.tensor_type for i in graph.input if i.name not in initializers}
    errors = []
    for n, declared in enumerate(inputs):
        tensor = graph_inputs.get(declared["name"])
        if tensor is None:
            errors.append((f"inputs[{n}].name", f"{declared['name']!r} is not an input of {path.name} (its inputs: "
                                                f"{', '.join(graph_inputs)})"))  # fmt: skip
            continue
        dims = ["batch" if d.dim_param or not d.HasField("dim_value") else d.dim_value for d in tensor.shape.dim]
        graph_shape = "[" + ", ".join(map(str, dims)) + "]"
        if len(dims) != len(declared["shape"]):
            errors.append((f"inputs[{n}].shape", f"{len(declared['shape'])} dimensions, but {path.name} gives "
                                                 f"{declared['name']} {len(dims)}: {graph_shape}"))  # fmt: skip
        else:
            # The first dimension is the batch the harness sweeps; the others the graph may fix.
            for k, (ours, theirs) in enumerate(zip(declared["shape"][1:], dims[1:], strict=True), start=1):
                if isinstance(theirs, int) and theirs != ours:
                    errors.append((f"inputs[{n}].shape", f"dimension {k} is {ours}, but {path.name} fixes it at "
                                                         f"{theirs}: {graph_shape}"))  # fmt: skip
        if tensor.elem_type and ONNX_DTYPES.get(declared["dtype"]) != tensor.elem_type:
            theirs = onnx.TensorProto.DataType.Name(tensor.elem_type).lower()
            errors.append((f"inputs[{n}].dtype", f"{declared['dtype']}, but {path.name} takes {theirs}"))
    missing = [name for name in graph_inputs if name not in {i["name"] for i in inputs}]
    if missing:
        errors.append(("inputs", f"the model also needs {', '.join(missing)}"))
    return errors


def _causal_lm_errors(config_path: Path, llm: dict) -> list[tuple[str, str]]:
    """A generative declaration against its config.json: a causal LM whose context holds prompt + output."""
    try:
        config = json.loads(config_path.read_text())
    except (OSError, ValueError) as exc:
        return [("path", f"{config_path} is not readable JSON: {exc}")]
    architectures = config.get("architectures") or []
    if not any(str(name).endswith("ForCausalLM") for name in architectures):
        stated = ", ".join(map(str, architectures)) or "none stated"
        return [("path", f"{config_path.parent} is not a causal language model (its architectures: {stated}); "
                         "output_tokens needs one")]  # fmt: skip
    context = config.get("max_position_embeddings")
    needed = llm["prompt_tokens"] + llm["output_tokens"]
    if isinstance(context, int) and needed > context:
        return [("llm", f"prompt_tokens + output_tokens = {needed} exceeds the model's max_position_embeddings "
                        f"({context})")]  # fmt: skip
    return []


def load_spec_file(path: str | Path, *, check_files: bool = True) -> UserWorkloadSpec:
    """Read and validate a YAML (.yaml/.yml) or TOML (.toml) declaration; paths in it are relative to it."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise UserWorkloadError([("(file)", f"cannot read {path}: {exc.strerror or exc}")]) from None
    try:
        if path.suffix == ".toml":
            data = tomllib.loads(text)
        elif path.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            raise UserWorkloadError([("(file)", f"{path.name}: a declaration is .yaml, .yml or .toml")])
    except (tomllib.TOMLDecodeError, ValueError) as exc:
        if isinstance(exc, UserWorkloadError):
            raise
        raise UserWorkloadError([("(file)", f"{path.name} is not valid {path.suffix[1:].upper()}: {exc}")]) from None
    except Exception as exc:  # yaml.YAMLError (yaml is imported lazily)
        raise UserWorkloadError([("(file)", f"{path.name} is not valid YAML: {exc}")]) from None
    return parse_spec(data, base_dir=path.parent, check_files=check_files)


def user_workload(workload_id: str, spec: UserWorkloadSpec | None = None) -> Workload:
    """The registry workload of a user id (``user:<name>``): it ranks only against runs of that id."""
    from .registry import UnknownWorkload

    if not USER_ID.match(workload_id):
        raise UnknownWorkload(f"{workload_id!r} is not a user workload id (user:<lowercase name>)")
    name = workload_id.removeprefix(f"{USER}:")
    if spec is None:
        return Workload(id=workload_id, model_class=USER, title=f"User workload {name}",
                        reference_model="the user's own model file", unit=Unit.INFERENCES,
                        input_description="as declared with the workload", quality_target="not measured",
                        user_defined=True)  # fmt: skip
    shapes = ", ".join(f"{i['name']} {i['dtype']}[{', '.join(map(str, i['shape']))}]" for i in spec.inputs)
    llm = spec.llm or {}
    return Workload(
        id=workload_id, model_class=USER, title=spec.title or f"User workload {name} ({spec.format})",
        reference_model=f"{spec.format} {Path(spec.path).name}", unit=Unit(spec.unit),
        input_description=shapes or f"{llm.get('prompt_tokens')} prompt tokens, {llm.get('output_tokens')} output",
        quality_target="the file's own fp32 run on its native backend (accuracy guard)",
        input_tokens_per_request=_tokens(llm.get("prompt_tokens")),
        output_tokens_per_request=_tokens(llm.get("output_tokens")),
        user_defined=True, extra={"spec": spec.to_dict()},
    )  # fmt: skip


def _tokens(count: int | None) -> Decimal | None:
    return None if count is None else Decimal(count)
