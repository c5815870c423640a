"""The komi that counts: the game's komi plus what its rules give White for a handicap.

A record and the GTP ``komi`` command carry the game's komi; a :class:`Position` carries the
komi its count, its search and its network input use, which adds White's handicap bonus
(:func:`analysis.go.rules.white_handicap_bonus`: N points for N stones under Chinese rules) as
KataGo does.  Whoever builds a position from a game and its rules calls :func:`counted_komi`.
"""

from __future__ import annotations

from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Move, Position
from analysis.go.rules import white_handicap_bonus


def handicap_stones(position: Position) -> int:
    """Return the handicap of ``position``'s game: the black stones on its board before the first move
    (the stones it started from and its setup steps).

    As KataGo counts them: 0 when White has a stone there too (a set-up position, not a handicap)
    or when there is one stone at most (an even game).
    """
    moves = next((len(position.steps) - i for i, s in enumerate(position.steps) if isinstance(s, Move)), 0)
    start = position.copy()
    for _ in range(moves):
        start.undo()
    stones = start.stones()
    black = int((stones == BLACK).sum())
    return 0 if (stones == WHITE).any() or black <= 1 else black


def counted_komi(komi: float, rules: str, position: Position) -> float:
    """Return ``komi`` plus White's bonus under ``rules`` for the handicap stones of ``position``."""
    return komi + white_handicap_bonus(rules, handicap_stones(position))
