"""Scoring: area (Chinese, Tromp-Taylor) and territory (Japanese, Korean), and dead stones.

Both scorings take the set of dead stones as given.  ``estimate_dead`` makes
an estimate from playouts that the board core runs in C (darkforest's way):
random moves with capture-and-save replies and no self-atari, so that seki is
kept.  Unsettled semeai at the end of a game can still fool it.

Territory scoring counts every empty region bordered by one colour alone,
so eyes inside a seki count as territory too (Japanese rules would not
count them); area scoring is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from analysis.go import _board
from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Position
from analysis.go.rules import rules_kind

DEAD_THRESHOLD = 0.0  # see dead_from_ownership


@dataclass(frozen=True)
class Score:
    """A counted score; ``white`` includes komi; ``neutral`` counts the points owned by neither side
    (the dame and the seki points)."""

    black: float
    white: float
    kind: str
    neutral: int = 0

    @property
    def margin(self) -> float:
        """Black's lead (negative when white leads)."""
        return self.black - self.white

    def result(self) -> str:
        """Return the result as ``B+3.5``, ``W+0.5`` or ``0`` for a draw."""
        m = self.margin
        if m == 0:
            return "0"
        return f"{'B' if m > 0 else 'W'}+{abs(m):g}"


def _owners(stones: np.ndarray) -> np.ndarray:
    """Return the area owner of every point of an int8 (size, size) board."""
    size = stones.shape[0]
    board = _board.Board(size)
    flat = stones.ravel()
    nonzero = np.flatnonzero(flat)
    board.setup(nonzero.tolist(), flat[nonzero].tolist())
    return np.frombuffer(board.area_owner(), dtype=np.int8).reshape(size, size)


def _without_dead(pos: Position, dead: Iterable[int]) -> tuple[np.ndarray, int, int]:
    """Return the board with dead stones removed, and the dead black and white stone counts."""
    stones = pos.stones()
    flat = stones.ravel()
    dead = list(dead)
    dead_black = sum(1 for p in dead if flat[p] == BLACK)
    dead_white = sum(1 for p in dead if flat[p] == WHITE)
    flat[dead] = 0
    return stones, dead_black, dead_white


def area_owners(pos: Position, dead: Iterable[int] = ()) -> np.ndarray:
    """Return the (size, size) int8 area owner of every point once ``dead`` are removed: BLACK or
    WHITE for its stones and the empty points only it borders, 0 for the dame and seki points."""
    stones, _, _ = _without_dead(pos, dead)
    return _owners(stones)


def area_score(pos: Position, dead: Iterable[int] = ()) -> Score:
    """Return the area score: stones plus surrounded empty points, komi to white."""
    owners = area_owners(pos, dead)
    return Score(float((owners == BLACK).sum()), float((owners == WHITE).sum()) + pos.komi, "area",
                 int((owners == 0).sum()))


def territory_score(pos: Position, dead: Iterable[int] = ()) -> Score:
    """Return the territory score: surrounded empty points, prisoners and dead stones, komi to white."""
    stones, dead_black, dead_white = _without_dead(pos, dead)
    owners = _owners(stones)
    empty = stones == 0
    black = float((owners[empty] == BLACK).sum() + pos.prisoners(BLACK) + dead_white)
    white = float((owners[empty] == WHITE).sum() + pos.prisoners(WHITE) + dead_black) + pos.komi
    return Score(black, white, "territory", int((owners[empty] == 0).sum()))


def score(pos: Position, rules: str = "chinese", dead: Iterable[int] | None = None) -> Score:
    """Return the score under ``rules``; ``dead`` defaults to ``estimate_dead(pos)``."""
    dead = estimate_dead(pos) if dead is None else dead
    if rules_kind(rules) == "territory":
        return territory_score(pos, dead)
    return area_score(pos, dead)


def ownership(pos: Position, playouts: int = 200, seed: int = 0) -> np.ndarray:
    """Return the mean area owner of each point (+1 black, -1 white) over playouts.

    The playouts start with the player to move.  Each side captures a string just
    played in atari or saves its own string that move put in atari; otherwise it
    plays at random, but never fills a real eye of its own nor puts two or more of
    its stones in atari, so seki stays seki (``gb_playout`` in the C core).  Returns
    a float64 (size, size) array; the position is unchanged.
    """
    raw = pos.board.ownership(pos.to_play, playouts, seed)
    return np.frombuffer(raw, dtype=np.float64).reshape(pos.size, pos.size).copy()


def estimate_dead(
    pos: Position, playouts: int = 200, seed: int = 0, threshold: float = DEAD_THRESHOLD
) -> set[int]:
    """Return the stones estimated dead: strings that the playouts mostly give to the opponent.

    See :func:`dead_from_ownership` for ``threshold``.
    """
    return dead_from_ownership(pos, ownership(pos, playouts, seed), threshold)


def dead_from_ownership(pos: Position, owner: np.ndarray, threshold: float = DEAD_THRESHOLD) -> set[int]:
    """Return the stones of the strings whose mean ``owner``, from their colour, is below ``-threshold``.

    ``owner`` is a (size, size) array of mean owners, +1 black and -1 white
    (:func:`ownership`).  With the default threshold 0 a string is dead when the
    opponent owns its points in more playouts than its own colour does.  Random
    playouts let dead stones live now and then (the defender gets two moves in a
    row while the attacker plays elsewhere), so a higher threshold leaves dead
    stones on the board: on counted Tygem 9-dan games 0 gives the recorded score
    far more often than 0.4 did (``python -m analysis.bench scoring``).
    """
    flat_owner = np.asarray(owner).ravel()
    flat = pos.stones().ravel()
    dead: set[int] = set()
    seen: set[int] = set()
    for p in np.flatnonzero(flat).tolist():
        if p in seen:
            continue
        string = pos.string(p)
        seen.update(string)
        if float(flat_owner[string].mean()) * flat[p] < -threshold:
            dead.update(string)
    return dead
