"""Tang & Kaneko's capsule network (section 3.2.2): one convolution, then one capsule per point.

Capsules are Sabour, Frosst & Hinton's (2017): a capsule is a vector whose length is the
probability that its entity is present, kept below 1 by :func:`squash` (the paper's eq. 1), and
a layer of capsules is computed from the one below by routing-by-agreement (:func:`route`,
Algorithm 1, 3 iterations).  Here the entity of output capsule j is "the previous move was
played on point j": there are 19 x 19 of them, and the policy's logit of a point is the log of
its capsule's length, so the move probabilities are the lengths normalised to sum to one.

The network: a 9 x 9 convolution of 256 channels with ReLU (the paper's), primary capsules, and
the routed point capsules.  Sabour's primary capsules are a strided convolution (9 x 9, stride
2, 32 types of 8 dimensions: 1,152 capsules on MNIST).  Every primary capsule has its own
transformation matrix to every point capsule (the paper's "without share weights"), so their
number times 361 sets the size, and the routed predictions (primary capsules x 361 x 8 numbers a
position) set the time, which is memory-bound: 5 x 5 kernels with stride 4 give a 5 x 5 grid,
and 4 types of 8 dimensions make 100 primary capsules, 2.3 million matrix weights, 289,000
predictions and about 17 million multiply-adds a position: small enough to train on two CPU
cores (8 types measured twice as slow).  The convolutions start with He initialisation, as
the CNN's do (see :mod:`analysis.nets.tang_kaneko`).  The point capsules have 8
dimensions (the paper sets theirs to its number of board states).  The app's policies cover
pass, so pass is one more routed capsule (the last), on the same scale as the points: the
policy is every capsule's length, normalised to sum to one.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from analysis.nets.base import NetConfig
from analysis.nets.fixed_board import crop_points, pad_to_board, policy_logits
from analysis.nets.tang_kaneko import check_policy_only, he_init

EPSILON = 1e-12  # keeps square roots and logs finite at 0; far below the squared lengths at initialisation


def squash(s: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Return v = |s|^2 / (1 + |s|^2) * s / |s| along ``dim``: s's direction, a length below 1."""
    squared = (s * s).sum(dim, keepdim=True)
    return s * (squared / (1 + squared) / torch.sqrt(squared + EPSILON))


def route(predictions: torch.Tensor, iterations: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """Routing by agreement (Sabour et al., Algorithm 1) of predictions u_hat (N, I, J, D) of the I
    lower capsules for the J upper ones.

    Returns (v (N, J, D) the upper capsules, c (N, I, J) the last coupling coefficients, which
    sum to 1 over j for every lower capsule i).  Raises ValueError for fewer than one iteration.
    """
    if iterations < 1:
        raise ValueError(f"routing needs at least one iteration, not {iterations}")
    logits = torch.zeros(predictions.shape[:3], dtype=predictions.dtype, device=predictions.device)
    for step in range(iterations):
        coupling = torch.softmax(logits, dim=2)
        v = squash(torch.einsum("nij,nijd->njd", coupling, predictions))
        if step + 1 < iterations:
            logits = logits + torch.einsum("nijd,njd->nij", predictions, v)
    return v, coupling


class CapsuleLayer(nn.Module):
    """``outputs`` capsules of ``out_dim`` routed from ``inputs`` capsules of ``in_dim``, each pair
    with its own transformation matrix W_ij (the paper's eq. 2)."""

    def __init__(self, inputs: int, in_dim: int, outputs: int, out_dim: int, iterations: int = 3) -> None:
        super().__init__()
        self.iterations = iterations
        self.weight = nn.Parameter(torch.randn(inputs, outputs, out_dim, in_dim) / in_dim ** 0.5)

    def forward(self, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(N, inputs, in_dim) -> (v (N, outputs, out_dim), coupling coefficients (N, inputs, outputs))."""
        return route(torch.einsum("ijdk,nik->nijd", self.weight, u), self.iterations)


@dataclass(frozen=True)
class TangKanekoCapsuleConfig(NetConfig):
    """Architecture of a Tang & Kaneko capsule net; saved inside every checkpoint.

    ``channels`` and ``conv_kernel``: the first convolution (``blocks`` is 1: there is one).
    ``primary_types`` capsule types of ``primary_dim`` come from a ``primary_kernel`` convolution
    of stride ``primary_stride``; the ``board_size`` squared point capsules have ``point_dim``
    dimensions and are routed in ``iterations``.  Raises ValueError for a head these nets do not
    have (value, ownership, score, darkforest's later moves).
    """

    arch = "tk-capsule"
    feature_set: str = "tk-oneplane"
    target: str = "previous"
    conv_kernel: int = 9
    primary_kernel: int = 5
    primary_stride: int = 4
    primary_types: int = 4
    primary_dim: int = 8
    point_dim: int = 8
    iterations: int = 3
    board_size: int = 19

    def __post_init__(self) -> None:
        check_policy_only(self)

    @property
    def primary_grid(self) -> int:
        """The side of the primary capsules' grid."""
        pad = self.primary_kernel // 2
        return (self.board_size + 2 * pad - self.primary_kernel) // self.primary_stride + 1


class TangKanekoCapsuleNet(nn.Module):
    """A 9 x 9 convolution, primary capsules and one routed capsule per point (see the module docstring)."""

    def __init__(self, config: TangKanekoCapsuleConfig) -> None:
        super().__init__()
        self.config = config
        c = config
        self.conv = nn.Conv2d(c.in_planes, c.channels, c.conv_kernel, padding=c.conv_kernel // 2)
        self.primary = nn.Conv2d(c.channels, c.primary_types * c.primary_dim, c.primary_kernel,
                                 stride=c.primary_stride, padding=c.primary_kernel // 2)
        self.capsules = CapsuleLayer(c.primary_types * c.primary_grid ** 2, c.primary_dim,
                                     c.board_size ** 2 + 1, c.point_dim, c.iterations)
        for layer in (self.conv, self.primary):
            he_init(layer)

    def point_capsules(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(N, in_planes, H, W) -> (capsules (N, board * board + 1, point_dim): one per point, then
        pass; coupling coefficients (N, primary capsules, board * board + 1)).

        Raises ValueError for a board larger than ``board_size``.
        """
        c = self.config
        features = torch.relu(self.conv(pad_to_board(x, c.board_size)))
        primary = self.primary(features).unflatten(1, (c.primary_types, c.primary_dim))  # (N, T, D, g, g)
        primary = squash(primary.permute(0, 1, 3, 4, 2).flatten(1, 3))  # (N, T * g * g, D)
        return self.capsules(primary)

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> tuple[torch.Tensor, None]:
        """(N, in_planes, H, W), H and W at most ``board_size``, legal (N, H*W + 1) bool or None ->
        (policy logits (N, 1, H*W + 1) for the previous move, pass last; None: no value head)."""
        return self.forward_all(x, legal)["policy"], None

    def forward_all(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """(N, in_planes, H, W), legal (N, H*W + 1) bool or None -> {"policy": (N, 1, H*W + 1) logits,
        the log of each point's capsule length, then pass's}."""
        h, w = x.shape[-2:]
        v, _ = self.point_capsules(x)
        logits = 0.5 * torch.log((v * v).sum(-1) + EPSILON)  # log of the length
        return {"policy": policy_logits(crop_points(logits[:, :-1], h, w), logits[:, -1:], legal)}
