"""The Golois residual network (Cazenave 2017) with optional extra heads, and named presets.

Options on the same trunk:
- ``future_moves`` > 1 adds darkforest's heads (Tian & Zhu): one softmax for each
  of the next k moves;
- ``value_head`` adds a win-probability head for the player to move (multi-task);
- ``target="previous"`` makes the policy head predict the move that led to the
  position instead of the next one (back prediction, Tang & Kaneko).
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import nn

from analysis.nets.base import NetConfig, PolicyValueNet
from analysis.nets.layers import GoloisInput, ResidualBN


@dataclass(frozen=True)
class GoloisConfig(NetConfig):
    """Architecture of a Golois net; saved inside every checkpoint."""

    arch = "golois"


class GoloisNet(PolicyValueNet):
    """Input layer, ``blocks`` residual layers with batch norm, then the heads."""

    def __init__(self, config: GoloisConfig) -> None:
        trunk = nn.Sequential(*(ResidualBN(config.channels) for _ in range(config.blocks)))
        super().__init__(config, GoloisInput(config.in_planes, config.channels), trunk)
