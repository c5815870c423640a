"""Building blocks of the seed papers' networks."""

from __future__ import annotations

import torch
from torch import nn


class GoloisInput(nn.Module):
    """Cazenave 2017, figure 6: a 5x5 and a 1x1 convolution in parallel, added, then ReLU and batch norm."""

    def __init__(self, in_planes: int, channels: int) -> None:
        super().__init__()
        self.conv5 = nn.Conv2d(in_planes, channels, 5, padding=2)
        self.conv1 = nn.Conv2d(in_planes, channels, 1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, in_planes, H, W) -> (N, channels, H, W)."""
        return self.bn(torch.relu(self.conv5(x) + self.conv1(x)))


class ResidualBN(nn.Module):
    """Cazenave 2017, figure 5: y = BN(ReLU(conv3x3(x) + x)), batch norm after the ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, C, H, W)."""
        return self.bn(torch.relu(self.conv(x) + x))


class PolicyHead(nn.Module):
    """A 3x3 convolution to one plane per point, plus a pass logit from pooled features.

    Returns logits over the size*size points and pass (pass last); illegal moves are
    masked with -inf when a legality mask is given.
    """

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 1, 3, padding=1)
        self.pass_fc = nn.Linear(channels, 1)

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> torch.Tensor:
        """(N, C, H, W), legal (N, H*W + 1) bool or None -> logits (N, H*W + 1)."""
        points = self.conv(x).flatten(1)
        passing = self.pass_fc(x.mean(dim=(2, 3)))
        logits = torch.cat([points, passing], dim=1)
        if legal is not None:
            logits = logits.masked_fill(~legal, float("-inf"))
        return logits


class ValueHead(nn.Module):
    """A 1x1 convolution to 2 planes, a hidden layer of 64 and one logit: the player to move wins."""

    def __init__(self, channels: int, hidden: int = 64) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, 2, 1)
        self.bn = nn.BatchNorm2d(2)
        self.fc1 = nn.Linear(2, hidden)
        self.pool_fc = nn.Linear(channels, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> win logit (N,) for the player to move; any board size."""
        planes = torch.relu(self.bn(self.conv(x)))
        hidden = torch.relu(self.fc1(planes.mean(dim=(2, 3))) + self.pool_fc(x.mean(dim=(2, 3))))
        return self.fc2(hidden).squeeze(1)


class OwnershipHead(nn.Module):
    """Who owns each point at the end: 1x1 convolutions to one plane, tanh.

    +1: the player to move owns the point, -1: the opponent does (KataGo's ownership head).
    """

    def __init__(self, channels: int, hidden: int = 16) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, hidden, 1)
        self.conv2 = nn.Conv2d(hidden, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> ownership (N, H*W) in -1..1 for the player to move."""
        return torch.tanh(self.conv2(torch.relu(self.conv1(x)))).flatten(1)


class PooledHead(nn.Module):
    """Global average pooling of the trunk, a hidden layer, then ``outputs`` numbers."""

    def __init__(self, channels: int, outputs: int, hidden: int = 64) -> None:
        super().__init__()
        self.fc1 = nn.Linear(channels, hidden)
        self.fc2 = nn.Linear(hidden, outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, outputs)."""
        return self.fc2(torch.relu(self.fc1(x.mean(dim=(2, 3)))))


SCORE_BINS = 150  # the distribution head's margins run from -150 to +150 points, one point a bin
SCORE_SCALE = 20.0  # the gaussian head's mean output is the margin / 20


class ScoreHeads(nn.Module):
    """The final score margin for the player to move (with exact komi: the margin on the board,
    before komi), two ways (the better one is chosen by measurement):

    - ``gaussian``: a mean and a standard deviation (N, 2): mean / SCORE_SCALE and
      log(stdev / SCORE_SCALE), stdev in points;
    - ``distribution``: logits over the margins -SCORE_BINS..+SCORE_BINS, one point apart (KataGo's way).
    """

    def __init__(self, channels: int, kinds: tuple[str, ...]) -> None:
        super().__init__()
        self.kinds = kinds
        self.gaussian = PooledHead(channels, 2) if "gaussian" in kinds else None
        bins = 2 * SCORE_BINS + 1
        self.distribution = PooledHead(channels, bins, hidden=128) if "distribution" in kinds else None

    def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """(N, C, H, W) -> {"score_gaussian": (N, 2) [mean / SCORE_SCALE, log(stdev / SCORE_SCALE)],
        "score_logits": (N, 2 * SCORE_BINS + 1)}: the kinds this head has."""
        out = {}
        if self.gaussian is not None:
            out["score_gaussian"] = self.gaussian(x)
        if self.distribution is not None:
            out["score_logits"] = self.distribution(x)
        return out
