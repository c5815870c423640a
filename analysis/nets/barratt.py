"""Barratt & Pan 2017: cross-shaped (diagonal) convolutions in an inception-style "cross layer".

The cross.  The paper (section 4.1) builds a cross convolution inside an ordinary
k x k convolution by zeroing weights.  Its cross-width ``c`` is the thickness of the
lines running from corner to corner; the active region (the cross-area) is every
point covered by a c x c block sliding along both diagonals, so the kernel keeps an X
(the diagonals, not a + shape) and the zeroed points form four triangles on the sides.
Figure 2 shows 5 x 5 kernels of cross-widths 1 and 2.  The X matches ladders, which
run diagonally across the board: with a kernel of 2 * 19 - 1 points every point of a
19 x 19 board sees both of its full diagonals.

Computed cheaply.  A dense masked 37 x 37 kernel multiplies 1,369 weights per input
plane where only ~73 are not zero.  An X of width c is two bands, one along each
diagonal (its 2c - 1 innermost diagonals each), minus their shared centre.  Shearing
the board (shifting row r by H - 1 - r columns, :func:`shear`) turns every diagonal
into a column, so the main-diagonal band becomes a vertical k x (2c - 1) band:
convolving the sheared board with it and unshearing (:func:`unshear`) gives the band's
part of the cross convolution.  The anti-diagonal band is the same on the board
flipped left to right, with its output flipped back; the centre points that lie on
both bands belong to the main-diagonal band only, so they count once.  Along the
band's long axis the convolution is a banded Toeplitz matrix over the board's rows
(:func:`toeplitz_rows`), so each band is one matrix product whose inner dimension is
in_channels x rows x (2c - 1) rather than in_channels x k x k, and taps that would only
ever see padding (beyond H - 1 rows away) are never multiplied.  On a 19 x 19 board
with c = 1 that is 18 times fewer multiply-adds than the dense 37 x 37 kernel (the
sheared board's zeros included), in one well-shaped matrix product instead of a
convolution whose kernel is larger than the board; it runs on any board size.

``CrossConv2d`` stores exactly the cross-area's weights (one per point of
:func:`cross_mask`, in row-major order); :meth:`CrossConv2d.to_dense` returns the
equivalent dense masked k x k kernel, which ``F.conv2d`` with same padding reproduces
(tests/test_barratt.py checks outputs and gradients to float tolerance).

The layer.  Section 4.2 puts the cross convolutions in a "cross layer" next to
ordinary filters, concatenated with them and with the layer's own input; section 4.3
surrounds each large (39 x 39) cross convolution with 1 x 1 convolutions to cut its
parameters (SqueezeNet's squeeze) and feeds the layer's input both to a 1-width and to
a 5-width cross.  ``InceptionCross`` does that: a 3 x 3 branch and one branch per cross
width, each a 1 x 1 squeeze, the cross, and a 1 x 1 expansion, concatenated.  The
concatenation keeps the trunk's width and the input is added back instead of
concatenated (the paper's stated motivation for concatenating it is ResNet's gradient
flow), so a cross layer is a drop-in residual block.  Section 4.3 places cross layers
after the first 7 x 7 layer and again half-way down the 3 x 3 stack; ``BarrattNet``
does the same on a Golois-style residual trunk with the usual heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
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


def shear(x: torch.Tensor) -> torch.Tensor:
    """Return x (..., H, W) sheared to (..., H, W + H - 1): ``out[a, u] = x[a, u + a - (H - 1)]``, 0 outside.

    Row a moves H - 1 - a columns to the right, so the diagonal ``j - i = d`` of x becomes
    column ``d + H - 1``.  Pads and reshapes only (no gather).
    """
    h, w = x.shape[-2:]
    length = w + 2 * (h - 1)
    flat = F.pad(F.pad(x, (h - 1, h - 1)).flatten(-2), (0, h))
    return flat.view(*x.shape[:-2], h, length + 1)[..., : w + h - 1]


def unshear(y: torch.Tensor, width: int) -> torch.Tensor:
    """Return y (..., H, width + H - 1) unsheared to (..., H, width): ``out[r, s] = y[r, s + H - 1 - r]``.

    The inverse of :func:`shear` on the points it keeps.  A strided view of y (copied first
    when y's last two dimensions are not contiguous).  Raises ValueError unless y has
    ``width + H - 1`` columns.
    """
    h, m = y.shape[-2:]
    if m != width + h - 1:
        raise ValueError(f"a sheared {h}-row board of width {width} has {width + h - 1} columns, not {m}")
    flat = y.flatten(-2)[..., h - 1 : h - 1 + h * (m - 1)]
    return flat.view(*y.shape[:-2], h, m - 1)[..., :width]


def toeplitz_rows(band_index: torch.Tensor, rows: int, zero: int) -> torch.Tensor:
    """Return the (..., rows, rows, b) indices of a same-padded band convolution's matrix along ``rows`` rows.

    ``band_index`` (..., k, b), k odd, indexes a band's weights; entry ``[..., r, a, e]`` is
    ``band_index[..., a - r + k // 2, e]`` (the tap that carries input row a, band column e, to
    output row r) where that tap exists, else ``zero``.  Taps more than ``rows - 1`` rows away
    only ever see padding, so they are left out.
    """
    k = band_index.shape[-2]
    steps = torch.arange(rows, device=band_index.device)
    tap = steps[None, :] - steps[:, None] + k // 2
    inside = ((tap >= 0) & (tap < k))[..., None]
    return torch.where(inside, band_index[..., tap.clamp(0, k - 1), :], zero)


class CrossConv2d(nn.Module):
    """A stride-1, same-padded k x k convolution whose kernel is the X of ``width`` (see ``cross_mask``),
    computed as two sheared diagonal bands (see the module docstring).

    ``weight`` (out_channels, in_channels, P) holds only the P points of the cross-area, in
    row-major order of the mask, so no masked weight exists to train or decay; it is
    initialised like ``nn.Conv2d``'s kernel, for a fan-in of the cross rather than of the square.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, width: int) -> None:
        super().__init__()
        mask = cross_mask(kernel_size, width).bool()
        points = int(mask.sum())
        position = torch.full((kernel_size, kernel_size), points)  # points: a zero appended to the weights
        position[mask] = torch.arange(points)
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.width = kernel_size, width
        bound = 1 / math.sqrt(in_channels * points)
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, points).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(out_channels).uniform_(-bound, bound))
        rows = torch.arange(kernel_size)[:, None]
        column = rows + torch.arange(2 * width - 1)[None, :] - (width - 1)  # the band's columns, row by row
        inside = (column >= 0) & (column < kernel_size)
        column = column.clamp(0, kernel_size - 1)
        diagonal = torch.where(inside, position[rows, column], points)
        anti = torch.where(inside, position[rows, kernel_size - 1 - column], points)
        anti = torch.where(torch.isin(anti, diagonal), points, anti)  # the shared centre counts once
        self.register_buffer("dense_index", position, persistent=False)
        self.register_buffer("band_index", torch.stack([diagonal, anti]), persistent=False)

    def to_dense(self) -> torch.Tensor:
        """Return the equivalent dense kernel (out_channels, in_channels, k, k), zero outside the cross."""
        return F.pad(self.weight, (0, 1))[:, :, self.dense_index]

    def multiply_adds(self, height: int, width: int) -> int:
        """Return the multiply-adds of the two bands' matrix products per (in, H, W) input."""
        columns = width + height - 1
        return 2 * self.out_channels * height * self.in_channels * height * (2 * self.width - 1) * columns

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, in_channels, H, W) -> (N, out_channels, H, W)."""
        n, _, h, w = x.shape
        half = self.width - 1
        index = toeplitz_rows(self.band_index, h, self.weight.shape[-1])  # (2, H, H, 2c - 1)
        table = F.pad(self.weight, (0, 1)).flatten(0, 1).t()  # (points + 1, out * in)
        matrices = F.embedding(index, table).unflatten(-1, (self.out_channels, self.in_channels))
        matrices = matrices.permute(0, 4, 1, 5, 2, 3).reshape(2, self.out_channels * h, -1)
        sheared = shear(torch.stack([x, x.flip(-1)]))  # (2, N, in, H, U)
        columns = sheared.shape[-1]
        planes = F.pad(sheared, (half, half)).unfold(-1, 2 * half + 1, 1)  # (2, N, in, H, U, 2c - 1)
        planes = planes.permute(0, 2, 3, 5, 1, 4).reshape(2, matrices.shape[-1], n * columns)
        y = torch.bmm(matrices, planes).view(2, self.out_channels, h, n, columns).permute(0, 3, 1, 2, 4)
        y = unshear(y, w)
        return y[0] + y[1].flip(-1) + self.bias[:, None, None]


class CrossBranch(nn.Module):
    """A 1x1 squeeze to ``squeeze`` planes, a cross convolution, and a 1x1 expansion to ``planes``.

    All linear: the two 1x1 convolutions factor a ``channels`` -> ``planes`` cross convolution
    through ``squeeze`` planes (the paper's SqueezeNet-style reduction of the large kernel).
    """

    def __init__(self, channels: int, squeeze: int, planes: int, kernel: int, width: int) -> None:
        super().__init__()
        self.squeeze = nn.Conv2d(channels, squeeze, 1)
        self.cross = CrossConv2d(squeeze, squeeze, kernel, width)
        self.expand = nn.Conv2d(squeeze, planes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, channels, H, W) -> (N, planes, H, W)."""
        return self.expand(self.cross(self.squeeze(x)))


class InceptionCross(nn.Module):
    """A cross layer: a 3x3 branch and one squeezed cross branch per width, concatenated, added to the input.

    y = BN(ReLU(concat(conv3x3(x), branch_1(x), ...) + x)); each cross branch gives
    ``cross_planes`` planes and the 3x3 branch the rest of ``channels``.  Raises ValueError
    when the cross branches would leave the 3x3 branch no plane, or for a width or kernel
    outside ``cross_mask``'s range.
    """

    def __init__(self, channels: int, cross_widths: tuple[int, ...], cross_kernel: int,
                 cross_channels: int, cross_planes: int) -> None:
        super().__init__()
        if not 0 < len(cross_widths) * cross_planes < channels:
            raise ValueError(f"{len(cross_widths)} cross branches of {cross_planes} planes leave no 3x3 "
                             f"plane out of {channels}")
        self.conv = nn.Conv2d(channels, channels - len(cross_widths) * cross_planes, 3, padding=1)
        self.crosses = nn.ModuleList(
            CrossBranch(channels, cross_channels, cross_planes, cross_kernel, width) for width in cross_widths
        )
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(N, C, H, W) -> (N, C, H, W)."""
        branches = torch.cat([self.conv(x), *(cross(x) for cross in self.crosses)], dim=1)
        return self.bn(torch.relu(branches + x))


@dataclass(frozen=True)
class BarrattConfig(NetConfig):
    """Architecture of a Barratt net; saved inside every checkpoint.

    Each cross layer has one branch per entry of ``cross_widths`` (the paper's 1 and 5), each
    squeezing to ``cross_channels`` planes for a ``cross_kernel`` x ``cross_kernel`` cross and
    expanding to ``cross_planes``.  The kernel is 37 rather than the paper's 39: wider taps never
    reach a 19 x 19 board.  A squeeze of 8 planes keeps barratt-b6c64's training above half of
    golois-b6c64's samples/s (BENCHMARKS.md).  A list (as JSON gives it back) is stored as a tuple.
    """

    arch = "barratt"
    feature_set: str = "barratt"
    cross_widths: tuple[int, ...] = (1, 5)
    cross_kernel: int = 37  # 2 * 19 - 1: both full diagonals of every point of a 19x19 board
    cross_channels: int = 8
    cross_planes: int = 16

    def __post_init__(self) -> None:
        object.__setattr__(self, "cross_widths", tuple(self.cross_widths))


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
            InceptionCross(config.channels, config.cross_widths, config.cross_kernel, config.cross_channels,
                           config.cross_planes)
            if i in crosses else ResidualBN(config.channels)
            for i in range(config.blocks)
        ))
        super().__init__(config, BarrattInput(config.in_planes, config.channels), trunk)
