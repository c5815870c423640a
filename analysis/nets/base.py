"""What every policy network of the papers shares: its config's fields and its forward pass.

A network is an input layer (the stem), a trunk of blocks, ``future_moves`` policy heads
(darkforest's next-k moves; the first is masked to the moves that can be its answer) and an
optional value head.  Each architecture's config names it in ``arch`` and is saved inside every
checkpoint (:func:`analysis.nets.presets.config_from_dict` reads it back).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar

import torch
from torch import nn

from analysis.nets.layers import PolicyHead, ValueHead


@dataclass(frozen=True)
class NetConfig:
    """The fields every architecture has; subclasses add their own and set ``arch``."""

    arch: ClassVar[str] = ""
    in_planes: int
    blocks: int
    channels: int
    feature_set: str = "golois"
    future_moves: int = 1
    value_head: bool = False
    target: str = "next"  # "previous": a back-prediction net (Tang & Kaneko)

    def to_dict(self) -> dict:
        """Return the config as plain JSON-serialisable data, with ``arch``."""
        return {"arch": self.arch, **asdict(self)}


class PolicyValueNet(nn.Module):
    """Stem, trunk, policy heads and an optional value head (see the module docstring)."""

    def __init__(self, config: NetConfig, stem: nn.Module, trunk: nn.Module) -> None:
        super().__init__()
        self.config = config
        self.input = stem
        self.trunk = trunk
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
