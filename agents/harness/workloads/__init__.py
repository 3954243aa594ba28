"""Workload registry: one reference architecture per model class."""

from __future__ import annotations

from .base import Workload
from .cv_classification import CvClassification
from .encoder import Encoder
from .llm_decoder import LlmDecoder
from .tabular import Tabular

WORKLOADS: dict[str, type[Workload]] = {
    cls.model_class: cls for cls in (LlmDecoder, Encoder, CvClassification, Tabular)
}
SIZES = ("tiny", "reference")


def get_workload(model_class: str, size: str = "tiny", **options) -> Workload:
    """The workload for ``model_class`` at ``size``; raises ValueError naming the known choices."""
    try:
        cls = WORKLOADS[model_class]
    except KeyError:
        raise ValueError(f"unknown workload {model_class!r}; known: {', '.join(WORKLOADS)}") from None
    return cls(size, **options)


__all__ = ["SIZES", "WORKLOADS", "Workload", "get_workload"]
