"""The feature planes of the seed papers, registered by name.

"Ours" is the player to move and "theirs" the opponent, as in all three papers.
Sources: Cazenave 2017 section 3.2 (golois), Tian & Zhu table 1 (darkforest),
Barratt & Pan table 1 (barratt).  Each feature writes its planes into the slice
of the input it is given; the per-point work runs in the board core
(``analysis/go/_cboard/planes.c``).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from analysis.features.context import FeatureContext
from analysis.features.registry import feature
from analysis.go.coords import WHITE
from analysis.go.position import Position


def _labels(top: int) -> list[str]:
    return [str(k) for k in range(1, top)] + [f">={top}"]


# -- stones -------------------------------------------------------------------
@feature("stones", [("our stones", "1 where the player to move has a stone"),
                    ("their stones", "1 where the opponent has a stone"),
                    ("empty", "1 on empty points")])
def stones(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("stones", out)


@feature("legal", [("legal move", "1 where the player to move may play (not occupied, suicide or ko)")])
def legal(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("legal", out)


# -- liberties ----------------------------------------------------------------
def _liberty_feature(name: str, top: int, both: bool) -> None:
    if both:
        planes = [(f"{side} liberties {lab}", f"1 on {side} strings with {lab} liberties")
                  for side in ("our", "their") for lab in _labels(top)]
    else:
        planes = [(f"liberties {lab}", f"1 on strings with {lab} liberties") for lab in _labels(top)]

    def fn(ctx: FeatureContext, out: np.ndarray) -> None:
        ctx.fill("liberties_both" if both else "liberties_any", out, top=top)

    feature(name, planes)(fn)


_liberty_feature("liberties_3", 3, both=True)  # darkforest: 1, 2, >=3 for us and them
_liberty_feature("liberties_5", 5, both=True)  # golois: 1..4, >=5 for us and them
_liberty_feature("liberties_8", 8, both=False)  # barratt: 1..7, >=8, any colour


def _liberties_after_feature(name: str, top: int, sides: tuple[str, ...]) -> None:
    planes = [(f"{side} liberties after move {lab}",
               f"1 where, if {'we' if side == 'our' else 'they'} played there, "
               f"the new string would have {lab} liberties")
              for side in sides for lab in _labels(top)]

    def fn(ctx: FeatureContext, out: np.ndarray) -> None:
        for i, side in enumerate(sides):
            color = ctx.us if side == "our" else -ctx.us
            ctx.fill("liberties_after", out[i * top : (i + 1) * top], color, top)

    feature(name, planes)(fn)


_liberties_after_feature("liberties_after_6", 6, ("our", "their"))  # golois
_liberties_after_feature("liberties_after_4", 4, ("our",))  # barratt


# -- ko -----------------------------------------------------------------------
@feature("ko_point", [("ko point", "1 on the point simple ko forbids to the player to move")])
def ko_point(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("ko_point", out)


@feature("ko_exists", [("ko on board", "all 1 when there is a ko the player to move may not retake")])
def ko_exists(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("ko_exists", out)


# -- board geometry ----------------------------------------------------------
@lru_cache(maxsize=32)
def _line(size: int) -> np.ndarray:
    """Each point's distance to the nearest edge: 0 on the first line."""
    idx = np.arange(size)
    edge = np.minimum(idx, size - 1 - idx)
    return np.minimum(edge[:, None], edge[None, :])


@lru_cache(maxsize=32)
def _centre_mask(size: int) -> np.ndarray:
    idx = np.arange(size) - (size - 1) / 2
    return np.exp(-0.5 * (idx[:, None] ** 2 + idx[None, :] ** 2)).astype(np.float32)


@feature("third_line", [("third line", "1 on the third line from the edge")])
def third_line(ctx: FeatureContext, out: np.ndarray) -> None:
    out[0] = _line(ctx.size) == 2


@feature("border", [("border", "1 on the first line (the edge of the board)")])
def border(ctx: FeatureContext, out: np.ndarray) -> None:
    out[0] = _line(ctx.size) == 0


@feature("position_mask", [("position mask", "exp(-d^2/2), d the distance to the centre of the board")])
def position_mask(ctx: FeatureContext, out: np.ndarray) -> None:
    out[0] = _centre_mask(ctx.size)


# -- history ------------------------------------------------------------------
@feature("history_decay", [("our history", "exp(-0.1 t) on our stones played t moves ago"),
                           ("their history", "exp(-0.1 t) on their stones played t moves ago")])
def history_decay(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("history_decay", out)


def _last_moves_feature(name: str, count: int, label: str) -> None:
    planes = [(f"{label} {k}", f"1 on the move played {k} move{'s' if k > 1 else ''} ago")
              for k in range(1, count + 1)]

    def fn(ctx: FeatureContext, out: np.ndarray) -> None:
        ctx.fill("last_moves", out, top=count)

    feature(name, planes)(fn)


_last_moves_feature("last_5_moves", 5, "last move")  # golois
_last_moves_feature("last_8_moves", 8, "moves ago")  # barratt: time since last move


# -- tactics --------------------------------------------------------------------
@feature("ladder_strings", [
    ("string captured in ladder", "1 on strings with two liberties that the attacker captures in a ladder"),
    ("string escapes ladder", "1 on strings in atari that escape when their owner moves first"),
], uses_ladders=True)
def ladder_strings(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("ladder_strings", out)


@feature("ladder_moves", [
    ("our move laddered", "1 where our stone would be captured in a ladder"),
    ("their move laddered", "1 where their stone would be captured in a ladder"),
    ("our ladder capture", "1 where our move ataris a string that cannot escape the ladder"),
    ("their ladder capture", "1 where their move ataris a string that cannot escape the ladder"),
], uses_ladders=True)
def ladder_moves(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("ladder_moves", out)


# -- darkforest extras ------------------------------------------------------
@feature("opponent_rank", [(f"opponent rank {k}d", f"all 1 when the opponent is {k} dan (9: 9 dan or pro)")
                           for k in range(1, 10)])
def opponent_rank(ctx: FeatureContext, out: np.ndarray) -> None:
    out[:] = 0
    rank = ctx.rank_of(-ctx.us)
    if rank == 9:
        out[:] = 1  # darkforest: 9 dan and professionals fill all nine planes
    elif rank > 0:
        out[rank - 1] = 1


@feature("territory", [("our territory", "1 where the nearest stone is ours (closer to us)"),
                       ("their territory", "1 where the nearest stone is theirs")])
def territory(ctx: FeatureContext, out: np.ndarray) -> None:
    ctx.fill("territory", out)


# -- the game's terms (KataGo's idea: the net sees what it plays for) ----------
KOMI_SCALE = 15.0  # komi 7.5 reads as 0.5; the plane saturates at 15 points either way


def mover_komi(position: Position) -> float:
    """Return the komi from the side of the player to move, in points: +komi for White, -komi for Black."""
    return position.komi * (1 if position.to_play == WHITE else -1)


def komi_past_plane(position: Position) -> float:
    """Return the part of :func:`mover_komi` that the komi plane cannot show (beyond ``KOMI_SCALE``
    points either way; 0 for any usual komi)."""
    ours = mover_komi(position)
    return ours - max(-KOMI_SCALE, min(KOMI_SCALE, ours))


@feature("komi", [("komi for us", "the komi from the side of the player to move (white +, black -) / 15, "
                                   "clipped to -1..1")], value_range=(-1.0, 1.0))
def komi(ctx: FeatureContext, out: np.ndarray) -> None:
    out[:] = max(-1.0, min(1.0, mover_komi(ctx.position) / KOMI_SCALE))
