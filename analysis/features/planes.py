"""The feature planes of the seed papers, registered by name.

"Ours" is the player to move and "theirs" the opponent, as in all three papers.
Sources: Cazenave 2017 section 3.2 (golois), Tian & Zhu table 1 (darkforest),
Barratt & Pan table 1 (barratt).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from analysis.features.context import FeatureContext
from analysis.features.registry import feature


def _stack(*planes: np.ndarray) -> np.ndarray:
    return np.stack(planes).astype(np.float32, copy=False)


@lru_cache(maxsize=8)
def _eye(top: int) -> np.ndarray:
    return np.eye(top + 1, dtype=np.float32)


def _one_hot(values: np.ndarray, top: int, mask: np.ndarray | None = None) -> np.ndarray:
    """Planes for values 1, 2, ..., top - 1 and >= top; zeros (and points outside mask) set none."""
    v = np.clip(values, 0, top)
    if mask is not None:
        v = np.where(mask, v, 0)
    return np.moveaxis(_eye(top)[v], -1, 0)[1:]


def _full(ctx: FeatureContext, value: float) -> np.ndarray:
    return np.full((ctx.size, ctx.size), value, dtype=np.float32)


# -- stones -------------------------------------------------------------------
@feature("stones", [("our stones", "1 where the player to move has a stone"),
                    ("their stones", "1 where the opponent has a stone"),
                    ("empty", "1 on empty points")])
def stones(ctx: FeatureContext) -> np.ndarray:
    s = ctx.stones
    return _stack(s == 1, s == -1, s == 0)


@feature("legal", [("legal move", "1 where the player to move may play (not occupied, suicide or ko)")])
def legal(ctx: FeatureContext) -> np.ndarray:
    return _stack(ctx.legal)


# -- liberties ----------------------------------------------------------------
def _labels(top: int) -> list[str]:
    return [str(k) for k in range(1, top)] + [f">={top}"]


def _liberty_feature(name: str, top: int, whose: str) -> None:
    labels = _labels(top)
    sides = [("our", 1), ("their", -1)] if whose == "both" else [("", 0)]
    planes = []
    for side, _ in sides:
        prefix = f"{side} " if side else ""
        who = {"our": "our strings", "their": "their strings", "": "strings"}[side]
        planes += [(f"{prefix}liberties {lab}", f"1 on {who} with {lab} liberties") for lab in labels]

    def fn(ctx: FeatureContext) -> np.ndarray:
        libs = ctx.liberties
        if whose == "both":
            return np.concatenate([_one_hot(libs, top, ctx.stones == c) for _, c in sides])
        return _one_hot(libs, top)

    feature(name, planes)(fn)


_liberty_feature("liberties_3", 3, "both")  # darkforest: 1, 2, >=3 for us and them
_liberty_feature("liberties_5", 5, "both")  # golois: 1..4, >=5 for us and them
_liberty_feature("liberties_8", 8, "any")  # barratt: 1..7, >=8, any colour


def _liberties_after_feature(name: str, top: int, sides: list[str]) -> None:
    labels = _labels(top)
    planes = []
    for side in sides:
        who = "we" if side == "our" else "they"
        planes += [(f"{side} liberties after move {lab}",
                    f"1 where, if {who} played there, the new string would have {lab} liberties")
                   for lab in labels]

    def fn(ctx: FeatureContext) -> np.ndarray:
        return np.concatenate([_one_hot(ctx.liberties_after(side == "our"), top) for side in sides])

    feature(name, planes)(fn)


_liberties_after_feature("liberties_after_6", 6, ["our", "their"])  # golois
_liberties_after_feature("liberties_after_4", 4, ["our"])  # barratt


# -- ko -----------------------------------------------------------------------
@feature("ko_point", [("ko point", "1 on the point simple ko forbids to the player to move")])
def ko_point(ctx: FeatureContext) -> np.ndarray:
    out = np.zeros((1, ctx.size * ctx.size), dtype=np.float32)
    if ctx.ko is not None:
        out[0, ctx.ko] = 1
    return out.reshape(1, ctx.size, ctx.size)


@feature("ko_exists", [("ko on board", "all 1 when there is a ko the player to move may not retake")])
def ko_exists(ctx: FeatureContext) -> np.ndarray:
    return _full(ctx, 1.0 if ctx.ko is not None else 0.0)[None]


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
    return _stack(np.exp(-0.5 * (idx[:, None] ** 2 + idx[None, :] ** 2)))


@feature("third_line", [("third line", "1 on the third line from the edge")])
def third_line(ctx: FeatureContext) -> np.ndarray:
    return _stack(_line(ctx.size) == 2)


@feature("border", [("border", "1 on the first line (the edge of the board)")])
def border(ctx: FeatureContext) -> np.ndarray:
    return _stack(_line(ctx.size) == 0)


@feature("position_mask", [("position mask", "exp(-d^2/2), d the distance to the centre of the board")])
def position_mask(ctx: FeatureContext) -> np.ndarray:
    return _centre_mask(ctx.size)


# -- history ------------------------------------------------------------------
@feature("history_decay", [("our history", "exp(-0.1 t) on our stones played t moves ago"),
                           ("their history", "exp(-0.1 t) on their stones played t moves ago")])
def history_decay(ctx: FeatureContext) -> np.ndarray:
    ages = ctx.ages
    decay = np.where(ages > 0, np.exp(-0.1 * ages), 0.0)
    return _stack(np.where(ctx.stones == 1, decay, 0.0), np.where(ctx.stones == -1, decay, 0.0))


def _last_moves_feature(name: str, count: int, description: str) -> None:
    planes = [(f"{description} {k}", f"1 on the move played {k} move{'s' if k > 1 else ''} ago")
              for k in range(1, count + 1)]

    def fn(ctx: FeatureContext) -> np.ndarray:
        n = ctx.size
        out = np.zeros((count, n * n), dtype=np.float32)
        for k, p in enumerate(ctx.recent_moves(count)):
            if p < n * n:
                out[k, p] = 1
        return out.reshape(count, n, n)

    feature(name, planes)(fn)


_last_moves_feature("last_5_moves", 5, "last move")  # golois
_last_moves_feature("last_8_moves", 8, "moves ago")  # barratt: time since last move


# -- tactics --------------------------------------------------------------------
@feature("ladder_strings", [
    ("string captured in ladder", "1 on strings with two liberties that the attacker captures in a ladder"),
    ("string escapes ladder", "1 on strings in atari that escape when their owner moves first"),
], uses_ladders=True)
def ladder_strings(ctx: FeatureContext) -> np.ndarray:
    return ctx.ladder_strings.astype(np.float32)


@feature("ladder_moves", [
    ("our move laddered", "1 where our stone would be captured in a ladder"),
    ("their move laddered", "1 where their stone would be captured in a ladder"),
    ("our ladder capture", "1 where our move ataris a string that cannot escape the ladder"),
    ("their ladder capture", "1 where their move ataris a string that cannot escape the ladder"),
], uses_ladders=True)
def ladder_moves(ctx: FeatureContext) -> np.ndarray:
    ours, theirs = ctx.ladder_points(True), ctx.ladder_points(False)
    return _stack(ours[0], theirs[0], ours[1], theirs[1])


# -- darkforest extras ------------------------------------------------------
@feature("opponent_rank", [(f"opponent rank {k}d", f"all 1 when the opponent is {k} dan (9: 9 dan or pro)")
                           for k in range(1, 10)])
def opponent_rank(ctx: FeatureContext) -> np.ndarray:
    out = np.zeros((9, ctx.size, ctx.size), dtype=np.float32)
    rank = ctx.rank_of(-ctx.us)
    if rank == 9:
        out[:] = 1  # darkforest: 9 dan and professionals fill all nine planes
    elif rank > 0:
        out[rank - 1] = 1
    return out


@feature("territory", [("our territory", "1 where the nearest stone is ours (closer to us)"),
                       ("their territory", "1 where the nearest stone is theirs")])
def territory(ctx: FeatureContext) -> np.ndarray:
    d_us, d_them = ctx.distance_to[1], ctx.distance_to[-1]
    return _stack(d_us < d_them, d_them < d_us)
