"""MLP risk scorer: standardised numeric features -> ReLU MLP -> one risk logit.

The reference size (512 features, hidden 1024-512-256) is a documented choice: the shape of a
production fraud/credit MLP, big enough to be memory-bound on a CPU core yet sub-millisecond.
The tiny size (256 features, hidden 1024-512, ~0.1 ms on 2 cores) is kept large enough that LoadGen's
fixed per-query cost (~3.5 us, see benchmarks/harness_fidelity.py) stays a few percent of a query:
a 25 us model would be measured mostly as load-generator overhead.
"""

from __future__ import annotations

import torch
from torch import nn

from .base import Workload


class RiskMLP(nn.Module):
    def __init__(self, features: int, hidden: list[int]):
        super().__init__()
        layers, width = [], features
        for h in hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class Tabular(Workload):
    model_class = "tabular"
    SIZES = {
        "tiny": {"features": 256, "hidden": [1024, 512]},
        "reference": {"features": 512, "hidden": [1024, 512, 256]},
    }

    def _build(self) -> nn.Module:
        return RiskMLP(self.config["features"], self.config["hidden"])

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        shape = (batch_size, self.config["features"])
        if device == "meta":
            return (torch.empty(shape, device="meta"),)
        gen = torch.Generator().manual_seed(seed)
        return (torch.randn(shape, generator=gen).to(device),)
