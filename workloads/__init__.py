"""The workload registry (Django-free, torch-free): the unit of every comparison InferLedger makes.

Use ``workloads.get(id)``, ``workloads.reference_for(model_class)``, ``workloads.for_harness(...)``
and ``workloads.published_benchmark(name)``; see ``registry.py`` for what a workload states.
"""

from .lookup import get
from .registry import (
    ENDPOINT,
    LLM_DECODER,
    MODEL_CLASSES,
    WORKLOADS,
    KvCacheShape,
    LlmSla,
    ModelClass,
    PublishedBenchmark,
    Unit,
    UnknownWorkload,
    Workload,
    all_workloads,
    endpoint_workload,
    for_harness,
    for_model_class,
    normalise_benchmark_name,
    published_benchmark,
    reference_for,
)
from .user import (
    USER,
    UserWorkloadError,
    UserWorkloadSpec,
    declaration_errors,
    file_errors,
    load_spec_file,
    model_root,
    model_root_errors,
    parse_spec,
    user_workload,
)

__all__ = [
    "ENDPOINT",
    "LLM_DECODER",
    "MODEL_CLASSES",
    "WORKLOADS",
    "KvCacheShape",
    "LlmSla",
    "ModelClass",
    "PublishedBenchmark",
    "Unit",
    "UnknownWorkload",
    "Workload",
    "all_workloads",
    "endpoint_workload",
    "for_harness",
    "for_model_class",
    "get",
    "normalise_benchmark_name",
    "published_benchmark",
    "reference_for",
    "USER",
    "UserWorkloadError",
    "UserWorkloadSpec",
    "declaration_errors",
    "file_errors",
    "load_spec_file",
    "model_root",
    "model_root_errors",
    "parse_spec",
    "user_workload",
]
