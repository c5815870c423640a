"""Barratt & Pan 2017: cross-shaped (diagonal) convolutions in an inception-style "cross layer".

The paper (section 4.1) builds a cross convolution inside an ordinary n x n
convolution by zeroing weights.  Its cross-width ``c`` is the thickness of the
lines running from corner to corner; the active region (the cross-area) is
every point covered by a c x c block sliding along both diagonals, so the
kernel keeps an X (the diagonals, not a + shape) and the zeroed points form
four triangles on the sides.  Figure 2 shows 5 x 5 kernels of cross-widths 1
and 2.  The X matches ladders, which run diagonally across the board: with a
kernel of 2 * 19 - 1 points every point of a 19 x 19 board sees both of its
full diagonals.

Section 4.2 puts the cross convolution in a "cross layer" next to ordinary
filters (a 1 x 1 squeeze before the large cross kernel), concatenated with
them and with the layer's own input.  Here the concatenated branches keep the
trunk's width and the input is added back instead (the paper's stated
motivation for concatenating the input is ResNet's gradient flow), so a cross
layer is a drop-in residual block.  Section 4.3 places cross layers after the
first 7 x 7 layer and again half-way down the 3 x 3 stack; ``BarrattNet`` does
the same on a Golois-style residual trunk with the usual heads.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from analysis.nets.base import NetConfig, PolicyValueNet
from analysis.nets.layers import ResidualBN


def cross_mask(size: int, width: int) -> torch.Tensor:
    """Return the (size, size) float mask of the cross-area: 1 on both diagonal bands, 0 elsewhere.

    A point (i, j) is kept when a width x width block sliding from corner to corner covers
    it: ``|i - j| < width`` or ``|i + j - (size - 1)| < width``.  Raises ValueError unless
    ``size`` is odd and ``1 <= width <= ceil(size / 2 - 1)`` (the paper's range: a wider
    cross is a plain convolution).
    """
    if size % 2 == 0 or size < 3:
        raise ValueError(f"cross kernel size must be odd and at least 3, not {size}")
    widest = (size - 1) // 2
    if not 1 <= width <= widest:
        raise ValueError(f"cross width must be in 1..{widest} for a {size}x{size} kernel, not {width}")
    i = torch.arange(size)[:, None]
    j = torch.arange(size)[None, :]
    return (((i - j).abs() < width) | ((i + j - (size - 1)).abs() < width)).float()


class CrossConv2d(nn.Conv2d):
    """A stride-1, same-padded convolution whose kernel is masked to an X of ``width`` (see ``cross_mask``).

    The mask multiplies the weights in every forward pass, so the masked weights get zero
    gradients; they are also zeroed at initialisation, so they stay zero in storage under
    Adam, AdamW or SGD.  The kept weights are rescaled at initialisation to the fan-in of the
    cross rather than of the full square.
    """

    mask: torch.Tensor

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, width: int) -> None:
        mask = cross_mask(kernel_size, width)
        super().__init__(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.register_buffer("mask", mask)
        with torch.no_grad():
            self.weight.mul_(mask * (mask.numel() / mask.sum()) ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, in_channels, H, W) -> (N, out_channels, H, W)."""
        return self._conv_forward(x, self.weight * self.mask, self.bias)


class InceptionCross(nn.Module):
    """A cross layer: a 3x3 branch and a squeezed cross branch, concatenated, added to the input.

    y = BN(ReLU(concat(conv3x3(x), cross(squeeze1x1(x))) + x)); the 3x3 branch gives
    ``channels - cross_channels`` planes and the cross branch ``cross_channels``.
    """

    def __init__(self, channels: int, cross_channels: int, cross_kernel: int, cross_width: int) -> None:
        super().__init__()
        if not 0 < cross_channels < channels:
            raise ValueError(f"cross_channels must be in 1..{channels - 1}, not {cross_channels}")
        self.conv = nn.Conv2d(channels, channels - cross_channels, 3, padding=1)
        self.squeeze = nn.Conv2d(channels, cross_channels, 1)
        self.cross = CrossConv2d(cross_channels, cross_channels, cross_kernel, cross_width)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, C, H, W)."""
        branches = torch.cat([self.conv(x), self.cross(self.squeeze(x))], dim=1)
        return self.bn(torch.relu(branches + x))


@dataclass(frozen=True)
class BarrattConfig(NetConfig):
    """Architecture of a Barratt net; saved inside every checkpoint."""

    arch = "barratt"
    feature_set: str = "barratt"
    cross_width: int = 1
    cross_kernel: int = 37  # 2 * 19 - 1: both full diagonals of every point of a 19x19 board
    cross_channels: int = 16


class BarrattInput(nn.Module):
    """A 7x7 convolution, ReLU, then batch norm."""

    def __init__(self, in_planes: int, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_planes, channels, 7, padding=3)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, in_planes, H, W) -> (N, channels, H, W)."""
        return self.bn(torch.relu(self.conv(x)))


class BarrattNet(PolicyValueNet):
    """A 7x7 input layer, ``blocks`` residual layers of which the first and the middle one are
    cross layers, then the heads.  Fully convolutional: runs on any board size.
    """

    def __init__(self, config: BarrattConfig) -> None:
        crosses = {0, config.blocks // 2}
        trunk = nn.Sequential(*(
            InceptionCross(config.channels, config.cross_channels, config.cross_kernel, config.cross_width)
            if i in crosses else ResidualBN(config.channels)
            for i in range(config.blocks)
        ))
        super().__init__(config, BarrattInput(config.in_planes, config.channels), trunk)
