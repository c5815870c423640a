"""Scoring: area (Chinese, Tromp-Taylor) and territory (Japanese, Korean), and dead stones.

Both scorings take the set of dead stones as given.  ``estimate_dead`` makes
an estimate from playouts that the board core runs in C (darkforest's way):
random moves with capture-and-save replies and no self-atari, so that seki is
kept.  Unsettled semeai at the end of a game can still fool it.

Territory scoring counts the empty regions bordered by one colour alone, but not the eyes of a
seki, as the Japanese and Korean rules say: a region bordered by a string in seki (one that
borders a seki point, :func:`seki_points`) is nobody's.  Area scoring counts them: it is exact.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from analysis.go import _board
from analysis.go.coords import BLACK, WHITE, neighbors
from analysis.go.position import Position
from analysis.go.rules import rules_kind

DEAD_THRESHOLD = 0.0  # see dead_from_ownership


@dataclass(frozen=True)
class Score:
    """A counted score; ``white`` includes komi; ``neutral`` counts the points owned by neither side
    (the dame and the seki points; under territory scoring the eyes of a seki too)."""

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


def owners_under(pos: Position, rules: str, dead: Iterable[int] = ()) -> np.ndarray:
    """Return the (size, size) int8 owner of every point by the count under ``rules`` once
    ``dead`` are removed: :func:`area_owners`, with the eyes of a seki nobody's (0) under territory
    rules, as :func:`score` counts them."""
    stones, _, _ = _without_dead(pos, dead)
    owners = _owners(stones)
    return _without_seki_eyes(stones, owners) if rules_kind(rules) == "territory" else owners


def area_score(pos: Position, dead: Iterable[int] = ()) -> Score:
    """Return the area score: stones plus surrounded empty points, komi to white."""
    owners = area_owners(pos, dead)
    return Score(float((owners == BLACK).sum()), float((owners == WHITE).sum()) + pos.komi, "area",
                 int((owners == 0).sum()))


def seki_points(stones: np.ndarray, owners: np.ndarray | None = None) -> list[int]:
    """Return the seki points of an int8 (size, size) board whose dead stones are off: the empty
    points bordered by both colours where a stone of either colour would be in atari (or may not
    be played), flat indices in order.  Dame between settled groups are not: a stone there keeps
    the liberties of the group it joins.  ``owners``: the board's area owners, when known."""
    size = stones.shape[0]
    flat = stones.ravel()
    owners = (_owners(stones) if owners is None else owners).ravel()
    position: Position | None = None
    found = []
    for point in np.flatnonzero((flat == 0) & (owners == 0)).tolist():
        if {int(flat[q]) for q in neighbors(point, size)} >= {BLACK, WHITE}:
            black, white = np.flatnonzero(flat == BLACK).tolist(), np.flatnonzero(flat == WHITE).tolist()
            position = position or Position.from_stones(size, black=black, white=white)
            if all(_short_of_breath(position, point, color) for color in (BLACK, WHITE)):
                found.append(point)
    return found


def _short_of_breath(position: Position, point: int, color: int) -> bool:
    """Return whether a stone of ``color`` at ``point`` may not be played or is left in atari."""
    if not position.is_legal(point, color):
        return True
    after = position.copy()
    after.play(point, color)
    return after.liberties(point) <= 1


def _without_seki_eyes(stones: np.ndarray, owners: np.ndarray) -> np.ndarray:
    """Return ``owners`` with the eyes of a seki made nobody's: the empty regions bordered by strings
    in seki alone (a string that borders a seki point, and the region too, may border other land:
    a string short of liberties at the end of a game is not a seki)."""
    size = stones.shape[0]
    flat, owned = stones.ravel(), owners.ravel().copy()
    seki = seki_points(stones, owners)
    if not seki:
        return owners
    in_seki = np.zeros(size * size, dtype=bool)  # the stones of the strings that border a seki point
    stack = [q for p in seki for q in neighbors(p, size) if flat[q]]
    while stack:
        p = stack.pop()
        if not in_seki[p]:
            in_seki[p] = True
            stack.extend(q for q in neighbors(p, size) if flat[q] == flat[p] and not in_seki[q])
    seen = np.zeros(size * size, dtype=bool)
    for start in np.flatnonzero((flat == 0) & (owned != 0)).tolist():
        if seen[start]:
            continue
        region, stack, seen[start] = [], [start], True
        while stack:  # the empty region of ``start``, and whether a string in seki borders it
            p = stack.pop()
            region.append(p)
            for q in neighbors(p, size):
                if flat[q] == 0 and not seen[q]:
                    seen[q] = True
                    stack.append(q)
        if all(in_seki[q] for p in region for q in neighbors(p, size) if flat[q]):
            owned[region] = 0
    return owned.reshape(owners.shape)


def territory_score(pos: Position, dead: Iterable[int] = ()) -> Score:
    """Return the territory score: surrounded empty points, prisoners and dead stones, komi to white;
    the eyes of a seki are nobody's (:func:`seki_points`)."""
    stones, dead_black, dead_white = _without_dead(pos, dead)
    owners = _without_seki_eyes(stones, _owners(stones))
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
