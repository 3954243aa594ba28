"""The harness's vocabulary without torch: what a job spec, a schedule or a command line may name.

The web process validates job specs with these (importing the harness itself would load torch);
tests/harness/test_names.py checks that they are exactly what the harness runs.
"""

from __future__ import annotations

import workloads as registry

SUITES = ("quick", "standard", "publishable")
SCENARIOS = ("single-stream", "offline", "server")
BACKENDS = ("eager", "compile", "onnxruntime", "cudagraphs", "tensorrt")
PRECISIONS = ("fp32", "bf16", "fp16", "int8", "fp8")
SIZES = ("tiny", "reference")

# The registry's workloads that the harness runs, by id, and the model classes they belong to.
HARNESS_WORKLOADS: dict[str, tuple[str, str]] = {
    w.id: w.harness for w in registry.all_workloads() if w.harness is not None
}
MODEL_CLASSES = tuple(dict.fromkeys(model_class for model_class, _size in HARNESS_WORKLOADS.values()))


def resolve_workloads(names, sizes) -> dict[str, list[str]]:
    """{model_class: [size, ...]} for a list of names, each a model class (run at every size of
    ``sizes``) or a registry workload id (run at its own size); ValueError naming the unknown ones."""
    names, sizes = list(names), list(sizes)
    unknown = [n for n in names if n not in MODEL_CLASSES and n not in HARNESS_WORKLOADS]
    if unknown:
        raise ValueError(
            f"unknown workloads {unknown}; known: model classes {', '.join(MODEL_CLASSES)} "
            f"or workload ids {', '.join(HARNESS_WORKLOADS)}"
        )
    wanted: dict[str, list[str]] = {}
    for name in names:
        model_class, pinned = HARNESS_WORKLOADS.get(name, (name, None))
        for size in [pinned] if pinned else sizes:
            if size not in wanted.setdefault(model_class, []):
                wanted[model_class].append(size)
    return wanted
