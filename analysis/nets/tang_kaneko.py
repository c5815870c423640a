"""Tang & Kaneko's back-prediction CNN (section 3.2.1): four zero-padded convolutions and a dense layer.

The layers are the paper's (betago's): a 7 x 7 convolution of 48 kernels, three 5 x 5
convolutions of 32, each with ReLU and zero padding so the board keeps its 19 x 19 size, a dense
layer of 512 with ReLU, and a dense output layer whose softmax gives the previous move.  No
batch norm, no dropout, no pooling (section 4.4).  Weights start with He initialisation and
biases at zero: with PyTorch's default initialisation this plain stack of six ReLU layers did
not learn (ladder set, Adam at 0.001: the training loss stayed at 3.5-3.7 and top-1 near 10%
for 400 batches of 2,000 positions), with He's it passed 35% within 200 batches.

Outputs.  The one-plane net (``tk-cnn1``) has the paper's 361 point outputs.  The multi-plane
net (``tk-cnn3``) has its 722: the first 361 when Black is to play, the last 361 when White is
(section 3.1.2).  The app asks for one thing, the point the previous move was played on (its
colour is the opponent of the player to move), so the 722-output net returns the half of the
colour to play, read from the input's ``black to play`` plane, and drops the other: that half
can never hold the answer.  It trains on that half's softmax, which is the paper's 722-way
softmax given the colour the input states.  Both nets add one pass logit to their last dense
layer: the app's policies cover pass, the paper's did not.

One board size.  The dense layers fix the board at ``board_size`` (19); smaller boards run
through :mod:`analysis.nets.fixed_board`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from analysis.nets.base import NetConfig
from analysis.nets.fixed_board import crop_points, pad_to_board, policy_logits


def he_init(model: nn.Module) -> None:
    """Give every convolution and dense layer of ``model`` He (Kaiming) normal weights for ReLU
    and zero biases, in place."""
    for layer in model.modules():
        if isinstance(layer, (nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
            nn.init.zeros_(layer.bias)


def check_policy_only(config: NetConfig) -> None:
    """Raise ValueError when ``config`` asks for a head besides the one policy head (value,
    ownership, score, darkforest's later moves): Tang & Kaneko's nets have no other."""
    if config.value_head or config.ownership_head or config.score_head or config.future_moves != 1:
        raise ValueError("Tang & Kaneko's nets have one policy head and no other")


@dataclass(frozen=True)
class TangKanekoCNNConfig(NetConfig):
    """Architecture of a Tang & Kaneko CNN; saved inside every checkpoint.

    ``blocks`` counts the convolutions (the first has ``first_channels`` kernels of
    ``first_kernel``, the rest ``channels`` of ``kernel``); ``hidden`` is the dense layer.
    ``colour_outputs`` gives the 722 outputs of the multi-plane net, whose input plane
    ``colour_plane`` is 1 when Black is to play.  Raises ValueError for a head these nets do not
    have (value, ownership, score, darkforest's later moves) or fewer than one convolution.
    """

    arch = "tk-cnn"
    feature_set: str = "tk-oneplane"
    target: str = "previous"
    first_channels: int = 48
    first_kernel: int = 7
    kernel: int = 5
    hidden: int = 512
    colour_outputs: bool = False
    colour_plane: int = 2
    board_size: int = 19

    def __post_init__(self) -> None:
        check_policy_only(self)
        if self.blocks < 1:
            raise ValueError(f"a Tang & Kaneko CNN needs at least one convolution, not {self.blocks}")


class TangKanekoCNN(nn.Module):
    """Four zero-padded convolutions, a dense layer of 512 and the output layer (see the module docstring)."""

    def __init__(self, config: TangKanekoCNNConfig) -> None:
        super().__init__()
        self.config = config
        widths = [config.in_planes, config.first_channels] + [config.channels] * (config.blocks - 1)
        kernels = [config.first_kernel] + [config.kernel] * (config.blocks - 1)
        self.convs = nn.ModuleList(nn.Conv2d(a, b, k, padding=k // 2)
                                   for a, b, k in zip(widths[:-1], widths[1:], kernels, strict=True))
        area = config.board_size ** 2
        self.halves = 2 if config.colour_outputs else 1
        self.hidden = nn.Linear(widths[-1] * area, config.hidden)
        self.out = nn.Linear(config.hidden, self.halves * area + 1)
        he_init(self)

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> tuple[torch.Tensor, None]:
        """(N, in_planes, H, W), H and W at most ``board_size``, legal (N, H*W + 1) bool or None ->
        (policy logits (N, 1, H*W + 1) for the previous move, pass last; None: no value head)."""
        return self.forward_all(x, legal)["policy"], None

    def forward_all(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """(N, in_planes, H, W), legal (N, H*W + 1) bool or None -> {"policy": (N, 1, H*W + 1) logits}.

        Raises ValueError for a board larger than ``board_size``.
        """
        n, _, h, w = x.shape
        y = pad_to_board(x, self.config.board_size)
        for conv in self.convs:
            y = torch.relu(conv(y))
        out = self.out(torch.relu(self.hidden(y.flatten(1))))
        points = out[:, :-1].unflatten(1, (self.halves, -1))  # (N, halves, board * board)
        if self.halves == 2:
            white_to_play = x[:, self.config.colour_plane].flatten(1).mean(1) < 0.5
            points = points[torch.arange(n, device=x.device), white_to_play.long()]
        else:
            points = points[:, 0]
        return {"policy": policy_logits(crop_points(points, h, w), out[:, -1:], legal)}
