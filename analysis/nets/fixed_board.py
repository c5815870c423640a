"""Running a network built for one board size (a dense layer over 19 x 19 points) on smaller boards.

Tang & Kaneko's networks end in dense layers over the 361 points of a 19 x 19 board, so unlike
the fully convolutional nets they have one board size.  A smaller board (the site's 9 x 9 and
13 x 13 reviews) is placed in the top-left corner of an empty 19 x 19 input (zero planes) and the
outputs of its own points are kept.  The nets never trained on such boards: the answers run, but
are out of their training distribution.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def pad_to_board(x: torch.Tensor, board: int) -> torch.Tensor:
    """(N, C, H, W) -> (N, C, board, board), zero rows and columns added below and to the right.

    Raises ValueError for a board larger than ``board``.
    """
    h, w = x.shape[-2:]
    if h > board or w > board:
        raise ValueError(f"this network reads boards of at most {board}x{board}, not {h}x{w}")
    return F.pad(x, (0, board - w, 0, board - h))


def crop_points(points: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """(..., board * board) per-point values -> (..., height * width): those of the top-left corner."""
    board = round(points.shape[-1] ** 0.5)
    grid = points.unflatten(-1, (board, board))
    return grid[..., :height, :width].flatten(-2)


def policy_logits(points: torch.Tensor, passing: torch.Tensor, legal: torch.Tensor | None) -> torch.Tensor:
    """Return the policy (N, 1, H*W + 1) from point logits (N, H*W) and a pass logit (N, 1), pass
    last, -inf where ``legal`` (N, H*W + 1) bool is False (no masking when it is None)."""
    logits = torch.cat([points, passing], dim=1)
    if legal is not None:
        logits = logits.masked_fill(~legal, float("-inf"))
    return logits[:, None]
