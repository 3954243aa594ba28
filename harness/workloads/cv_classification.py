"""ResNet-50 design (He et al. 2015, v1.5 stride placement): bottleneck blocks with batch norm."""

from __future__ import annotations

import torch
from torch import nn

from .base import Workload


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_ch: int, width: int, stride: int):
        super().__init__()
        out_ch = width * self.expansion
        self.conv1 = nn.Conv2d(in_ch, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_ch, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or in_ch != out_ch:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_ch, out_ch, 1, stride=stride, bias=False), nn.BatchNorm2d(out_ch)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, layers: list[int], base_width: int, num_classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(3, base_width, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(base_width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        stages, in_ch = [], base_width
        for i, blocks in enumerate(layers):
            width = base_width * 2**i
            for b in range(blocks):
                stages.append(Bottleneck(in_ch, width, stride=2 if (b == 0 and i > 0) else 1))
                in_ch = width * Bottleneck.expansion
        self.layers = nn.Sequential(*stages)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_ch, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.avgpool(self.layers(x))
        return self.fc(torch.flatten(x, 1))


class CvClassification(Workload):
    """Image classification; ``reference`` has ResNet-50's 25,557,032 parameters."""

    model_class = "cv-classification"
    SIZES = {
        "tiny": {"layers": [1, 1, 1, 1], "base_width": 8, "num_classes": 10, "image_size": 32},
        "reference": {"layers": [3, 4, 6, 3], "base_width": 64, "num_classes": 1000, "image_size": 224},
    }

    def _build(self) -> nn.Module:
        c = self.config
        return ResNet(c["layers"], c["base_width"], c["num_classes"])

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        side = self.config["image_size"]
        if device == "meta":
            return (torch.empty(batch_size, 3, side, side, device="meta"),)
        gen = torch.Generator().manual_seed(seed)
        return (torch.randn(batch_size, 3, side, side, generator=gen).to(device),)
