"""The Golois residual network (Cazenave 2017) with optional extra heads, and named presets.

Options on the same trunk:
- ``future_moves`` > 1 adds darkforest's heads (Tian & Zhu): one softmax for each
  of the next k moves;
- ``value_head`` adds a win-probability head for the player to move (multi-task);
- ``target="previous"`` makes the policy head predict the move that led to the
  position instead of the next one (back prediction, Tang & Kaneko).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
from torch import nn

from analysis.nets.layers import GoloisInput, PolicyHead, ResidualBN, ValueHead


@dataclass(frozen=True)
class GoloisConfig:
    """Architecture of a Golois net; saved inside every checkpoint."""

    in_planes: int
    blocks: int
    channels: int
    feature_set: str = "golois"
    future_moves: int = 1
    value_head: bool = False
    target: str = "next"  # "previous": a back-prediction net (Tang & Kaneko)

    def to_dict(self) -> dict:
        """Return the config as plain JSON-serialisable data."""
        return asdict(self)


class GoloisNet(nn.Module):
    """Input layer, ``blocks`` residual layers with batch norm, then the heads."""

    def __init__(self, config: GoloisConfig) -> None:
        super().__init__()
        self.config = config
        self.input = GoloisInput(config.in_planes, config.channels)
        self.trunk = nn.Sequential(*(ResidualBN(config.channels) for _ in range(config.blocks)))
        self.policy = nn.ModuleList(PolicyHead(config.channels) for _ in range(config.future_moves))
        self.value = ValueHead(config.channels) if config.value_head else None

    def forward(
        self, x: torch.Tensor, legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(N, in_planes, H, W), legal (N, H*W + 1) bool or None ->
        (policy logits (N, future_moves, H*W + 1), value logit (N,) or None).

        Only the first policy head (the next move) is masked by ``legal``.
        """
        h = self.trunk(self.input(x))
        heads = [head(h, legal if i == 0 else None) for i, head in enumerate(self.policy)]
        value = self.value(h) if self.value is not None else None
        return torch.stack(heads, dim=1), value
