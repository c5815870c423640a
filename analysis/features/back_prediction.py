"""The input planes of Tang & Kaneko's back-prediction networks, registered by name.

Section 3.1 of the paper: the one-plane representation (one 19x19 image of the stones) and the
multi-plane one (a black board, a white board, and a plane saying whose turn it is).  The paper's
one-plane nets come from betago, whose one-plane encoder writes +1 for the stones of the player
to move and -1 for the opponent's.  ``previous_stones_signed`` is the same image one move earlier:
the paper's "k previous states" input, which gives the previous move away (the two boards differ
exactly by it and its captures), kept to measure how much.
"""

from __future__ import annotations

import numpy as np

from analysis.features.context import FeatureContext
from analysis.features.registry import feature
from analysis.go.coords import BLACK
from analysis.go.position import Move


def _signed(ctx: FeatureContext) -> np.ndarray:
    """Return the (size, size) image of ``ctx``'s stones: +1 ours, -1 theirs, 0 empty."""
    planes = np.empty((3, ctx.size, ctx.size), dtype=np.float32)
    ctx.fill("stones", planes)
    return planes[0] - planes[1]


@feature("stones_signed", [("stones +1/-1", "+1 on the stones of the player to move, -1 on the opponent's")],
         value_range=(-1.0, 1.0))
def stones_signed(ctx: FeatureContext, out: np.ndarray) -> None:
    out[0] = _signed(ctx)


@feature("previous_stones_signed", [("stones one move ago", "the board before the last move: +1 on the "
                                     "stones of the player to move, -1 on the opponent's (the board itself "
                                     "when no move was played)")], value_range=(-1.0, 1.0))
def previous_stones_signed(ctx: FeatureContext, out: np.ndarray) -> None:
    before = ctx.position
    if before.steps and isinstance(before.steps[-1], Move):
        before = before.copy()
        before.undo()
        before.to_play = ctx.us
    out[0] = _signed(FeatureContext(before, ctx.ranks, ctx.ladder_limits))


@feature("colour_stones", [("black stones", "1 on Black's stones"), ("white stones", "1 on White's stones")])
def colour_stones(ctx: FeatureContext, out: np.ndarray) -> None:
    planes = np.empty((3, ctx.size, ctx.size), dtype=np.float32)
    ctx.fill("stones", planes, BLACK)
    out[:] = planes[:2]


@feature("black_to_play", [("black to play", "all 1 when Black is to move, all 0 when White is")])
def black_to_play(ctx: FeatureContext, out: np.ndarray) -> None:
    out[:] = float(ctx.us == BLACK)
