"""What every policy network of the papers shares: its config's fields and its forward pass.

A network is an input layer (the stem), a trunk of blocks, ``future_moves`` policy heads
(darkforest's next-k moves; the first is masked to the moves that can be its answer), an
optional value head, and optionally KataGo's ownership head and score heads (``score_head``:
``gaussian``, ``distribution`` or ``both``).  With ``exact_komi`` the score heads are trained on
the margin on the board alone (the same under any komi), and ``forward_all`` adds
``score_offset``, the komi from the mover's side read off the komi plane: the final margin is the
heads' margin plus that offset.  A point of komi then moves the score by one point through the
offset, plus whatever the trunk, which still reads the plane, makes of it (how the players'
play changes with komi).  ``forward`` gives the policy and value every caller
needs; ``forward_all`` gives every head by name.  Each architecture's config names it in ``arch``
and is saved inside every checkpoint (:func:`analysis.nets.presets.config_from_dict` reads it back).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar

import torch
from torch import nn

from analysis.features import get_feature_set
from analysis.features.planes import KOMI_SCALE
from analysis.nets.layers import OwnershipHead, PolicyHead, ScoreHeads, ValueHead


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
    ownership_head: bool = False
    score_head: str = ""  # "", "gaussian", "distribution" or "both"
    exact_komi: bool = False  # the score heads give the margin before komi (see the module docstring)

    @property
    def score_kinds(self) -> tuple[str, ...]:
        """The score heads' kinds: () without a score head."""
        return {"": (), "both": ("gaussian", "distribution")}.get(self.score_head, (self.score_head,))

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
        self.ownership = OwnershipHead(config.channels) if config.ownership_head else None
        self.score = ScoreHeads(config.channels, config.score_kinds) if config.score_kinds else None
        self.komi_plane = None
        if config.exact_komi:
            self.komi_plane = get_feature_set(config.feature_set).plane_index("komi")

    def forward(
        self, x: torch.Tensor, legal: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(N, in_planes, H, W), legal (N, H*W + 1) bool or None ->
        (policy logits (N, future_moves, H*W + 1), value logit (N,) or None).

        Only the first policy head (the next move) is masked by ``legal``.
        """
        out = self.forward_all(x, legal)
        return out["policy"], out.get("value")

    def trunk_features(self, x: torch.Tensor) -> torch.Tensor:
        """(N, in_planes, H, W) -> (N, channels, H, W): what every head reads."""
        return self.trunk(self.input(x))

    def forward_all(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """(N, in_planes, H, W), legal (N, H*W + 1) bool or None -> every head by name:
        ``policy`` (N, future_moves, H*W + 1) logits, ``value`` (N,) win logit, ``ownership``
        (N, H*W) in -1..1, ``score_gaussian`` (N, 2) and ``score_logits`` (N, 2 * SCORE_BINS + 1)
        (see :class:`~analysis.nets.layers.ScoreHeads`) and with ``exact_komi`` ``score_offset`` (N,)
        in points, to add to the score heads' margins: the heads the config has, all for the
        player to move.
        """
        h = self.trunk_features(x)
        heads = [head(h, legal if i == 0 else None) for i, head in enumerate(self.policy)]
        out = {"policy": torch.stack(heads, dim=1)}
        if self.value is not None:
            out["value"] = self.value(h)
        if self.ownership is not None:
            out["ownership"] = self.ownership(h)
        if self.score is not None:
            out.update(self.score(h))
        if self.komi_plane is not None:
            out["score_offset"] = KOMI_SCALE * x[:, self.komi_plane, 0, 0].float()
        return out
