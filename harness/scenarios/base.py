"""The Scenario interface: what a LoadGen scenario does, so the runner never switches on a name.

A scenario turns run settings into labelled points; for each point it calibrates once (the first round)
and then measures, round after round, against the same calibration. It also says which figure judges a
round (``figure_of_merit``) and which way is better, so choosing a point's best round is written once.
Adding a scenario is one subclass registered in ``SCENARIO_CLASSES``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from ..telemetry import TelemetrySession
from .loadgen_run import PointResult
from .settings import RunSettings


class Scenario(ABC):
    """One scenario over one run's settings; holds its calibrations between rounds."""

    name: ClassVar[str]
    # The payload's ``rounds.chosen_by``, and whether a larger figure is the better round.
    chosen_by: ClassVar[str] = "latency_p50_ms"
    higher_is_better: ClassVar[bool] = False

    def __init__(self, settings: RunSettings):
        self.settings = settings

    @abstractmethod
    def labels(self) -> list[str]:
        """One label per point, in measurement order (``batch=8``, ``rate=120qps``, ``concurrency=4``)."""

    def calibrate(self, sut, point: int, log_dir: Path, log_root: Path, telemetry: TelemetrySession) -> None:  # noqa: B027
        """Fix what point ``point`` needs before its first measurement (its query size, its offered rate),
        logs under ``log_dir`` (the point's) or ``log_root`` (the item's). Called before every measurement;
        calibrates only once per point, so every round measures the same thing."""

    @abstractmethod
    def measure(self, sut, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        """One LoadGen test of point ``point``, logs in ``log_dir``."""

    def figure_of_merit(self, result: PointResult) -> float:
        """The figure rounds are compared by: p50 latency in ms unless the scenario says otherwise."""
        return result.parsed["latency_ns"]["p50"] / 1e6


SCENARIO_CLASSES: dict[str, type[Scenario]] = {}


def register(cls: type[Scenario]) -> type[Scenario]:
    SCENARIO_CLASSES[cls.name] = cls
    return cls


def get_scenario(name: str, settings: RunSettings) -> Scenario:
    try:
        return SCENARIO_CLASSES[name](settings)
    except KeyError:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIO_CLASSES)}") from None
