"""The harness's workloads: one architecture per model class, at a ``tiny`` (smoke stand-in) and a
``reference`` size. Each (model class, size) is a workload of the registry (``workloads`` at the
repository root), whose id names its results: ``get_workload("encoder", "reference").name`` is
``bert-large-99``."""

from __future__ import annotations

from ..names import SIZES
from .base import Workload
from .cv_classification import CvClassification
from .encoder import Encoder
from .llm_decoder import LlmDecoder
from .recommendation import Recommendation
from .tabular import Tabular

WORKLOADS: dict[str, type[Workload]] = {
    cls.model_class: cls for cls in (LlmDecoder, Encoder, CvClassification, Tabular, Recommendation)
}


def get_workload(model_class: str, size: str = "tiny", **options) -> Workload:
    """The workload for ``model_class`` at ``size``; raises ValueError naming the known choices."""
    try:
        cls = WORKLOADS[model_class]
    except KeyError:
        raise ValueError(f"unknown workload {model_class!r}; known: {', '.join(WORKLOADS)}") from None
    return cls(size, **options)


__all__ = ["SIZES", "WORKLOADS", "Workload", "get_workload"]
