"""The Golois residual policy network (Cazenave 2017) with named presets."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from analysis.nets.layers import GoloisInput, PolicyHead, ResidualBN


@dataclass(frozen=True)
class GoloisConfig:
    """Architecture of a Golois net; saved inside every checkpoint."""

    in_planes: int
    blocks: int
    channels: int

    def to_dict(self) -> dict:
        """Return the config as plain JSON-serialisable data."""
        return asdict(self)


PRESETS = {
    "golois-b6c64": GoloisConfig(in_planes=39, blocks=6, channels=64),
    "golois-b12c128": GoloisConfig(in_planes=39, blocks=12, channels=128),
}


class GoloisNet(nn.Module):
    """Input layer, ``blocks`` residual layers with batch norm, then the policy head."""

    def __init__(self, config: GoloisConfig) -> None:
        super().__init__()
        self.config = config
        self.input = GoloisInput(config.in_planes, config.channels)
        self.trunk = nn.Sequential(*(ResidualBN(config.channels) for _ in range(config.blocks)))
        self.policy = PolicyHead(config.channels)

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
        """(N, in_planes, H, W), legal (N, H*W + 1) or None -> policy logits (N, H*W + 1)."""
        return self.policy(self.trunk(self.input(x)), legal)
