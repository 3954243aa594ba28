"""DLRM-v2 design (MLPerf ``dlrm-v2``, TorchRec's ``DLRM_DCN``): a bottom MLP over 13 dense features,
26 sum-pooled multi-hot embedding bags, a low-rank DCNv2 cross network over their concatenation, and
a top MLP to one click logit.

Inputs are ``(dense [B, 13] float, ids [B, 214] long)``: the ids of the 26 features side by side, each
feature's fixed multi-hot width as in MLPerf's synthetic multi-hot Criteo set (3, 2, 1, ..., 100, 27,
...). The reference tables total 204,184,588 rows (104.6 GB of fp32 weights): count them on the meta
device; a host without that much memory is refused before anything is allocated (see ``memory``).
"""

from __future__ import annotations

import torch
from torch import nn

from .base import Workload

# mlcommons/inference recommendation/dlrm_v2 (num_embeddings_per_feature, multi_hot_sizes).
CRITEO_1TB_TABLE_ROWS = (
    40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
    2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36,
)  # fmt: skip
MULTI_HOT_SIZES = (3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1)
DENSE_FEATURES = 13


def _mlp(sizes: list[int], relu_last: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (width_in, width_out) in enumerate(zip(sizes, sizes[1:], strict=False)):
        layers.append(nn.Linear(width_in, width_out))
        if relu_last or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class LowRankCrossNet(nn.Module):
    """DCNv2 with low-rank kernels (TorchRec ``LowRankCrossNet``): x_{l+1} = x_0 * (W_l V_l x_l + b_l) + x_l."""

    def __init__(self, features: int, layers: int, rank: int):
        super().__init__()
        # TorchRec's initialisation: Xavier-normal kernels, zero bias.
        xavier = nn.init.xavier_normal_
        self.w = nn.ParameterList(nn.Parameter(xavier(torch.empty(features, rank))) for _ in range(layers))
        self.v = nn.ParameterList(nn.Parameter(xavier(torch.empty(rank, features))) for _ in range(layers))
        self.bias = nn.ParameterList(nn.Parameter(torch.zeros(features)) for _ in range(layers))

    def forward(self, x0: torch.Tensor) -> torch.Tensor:
        x = x0
        for w, v, b in zip(self.w, self.v, self.bias, strict=True):
            x = x0 * ((x @ v.t()) @ w.t() + b) + x
        return x


class Dlrm(nn.Module):
    def __init__(self, table_rows, multi_hot, dim, bottom, cross_layers, cross_rank, top):
        super().__init__()
        self.multi_hot = list(multi_hot)
        self.bottom = _mlp([DENSE_FEATURES, *bottom], relu_last=True)
        self.tables = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for rows in table_rows)
        for table in self.tables:
            # TorchRec's default for embedding tables: uniform in ±sqrt(1 / rows). (torch's N(0, 1)
            # would make the 100-hot feature's pooled sum ~10x every other input of the cross net.)
            bound = table.num_embeddings**-0.5
            nn.init.uniform_(table.weight, -bound, bound)
        features = dim * (len(table_rows) + 1)
        self.cross = LowRankCrossNet(features, cross_layers, cross_rank)
        self.top = _mlp([features, *top], relu_last=False)

    def forward(self, dense: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        pooled = [self.bottom(dense)]
        for table, feature_ids in zip(self.tables, ids.split(self.multi_hot, dim=1), strict=True):
            pooled.append(table(feature_ids))
        return self.top(self.cross(torch.cat(pooled, dim=1)))


class Recommendation(Workload):
    """Click-through-rate recommender; ``reference`` is MLPerf's DLRM-v2 (26,151,671,809 parameters)."""

    model_class = "recommendation"
    SIZES = {
        "tiny": {
            "table_rows": [min(rows, 1000) for rows in CRITEO_1TB_TABLE_ROWS],
            "multi_hot": list(MULTI_HOT_SIZES),
            "dim": 16,
            "bottom": [64, 16],
            "cross_layers": 2,
            "cross_rank": 32,
            "top": [128, 64, 1],
        },
        "reference": {
            "table_rows": list(CRITEO_1TB_TABLE_ROWS),
            "multi_hot": list(MULTI_HOT_SIZES),
            "dim": 128,
            "bottom": [512, 256, 128],
            "cross_layers": 3,
            "cross_rank": 512,
            "top": [1024, 1024, 512, 256, 1],
        },
    }

    def _build(self) -> nn.Module:
        c = self.config
        return Dlrm(
            c["table_rows"], c["multi_hot"], c["dim"], c["bottom"], c["cross_layers"], c["cross_rank"], c["top"]
        )

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        width = sum(self.config["multi_hot"])
        if device == "meta":
            return (
                torch.empty(batch_size, DENSE_FEATURES, device="meta"),
                torch.zeros(batch_size, width, dtype=torch.long, device="meta"),
            )
        gen = torch.Generator().manual_seed(seed)
        dense = torch.randn(batch_size, DENSE_FEATURES, generator=gen)
        # Each feature's ids are uniform over its own table, as MLPerf's synthetic multi-hot set draws them.
        ids = torch.cat(
            [
                torch.randint(0, rows, (batch_size, hot), generator=gen)
                for rows, hot in zip(self.config["table_rows"], self.config["multi_hot"], strict=True)
            ],
            dim=1,
        )
        return dense.to(device), ids.to(device)
