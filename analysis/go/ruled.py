"""A position under its game's rules: the komi it counts with, and how its end is counted.

A record and the GTP ``komi`` command carry the game's komi; a :class:`Position` carries the
komi its count, its search and its network input use, which adds White's handicap bonus
(:func:`analysis.go.rules.white_handicap_bonus`: N points for N stones under Chinese rules) as
KataGo does.  It also carries its rules' ``scoring`` (area or territory), by which the search
counts the games it plays out to two passes.  Whoever builds a position from a game and its
rules calls :func:`apply_rules`.
"""

from __future__ import annotations

from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Move, Position
from analysis.go.rules import rules_kind, white_handicap_bonus


def handicap_stones(position: Position) -> int:
    """Return the handicap of ``position``'s game: the black stones on its board before the first move
    (the stones it started from and its setup steps), and Black's moves before White's first one
    (GUIs that place a handicap with ``play B`` commands; passes aside).

    As KataGo counts them (``assumeMultipleStartingBlackMovesAreHandicap``): 0 when White has a
    stone on the starting board (a set-up position, not a handicap) or when there is one stone at
    most (an even game).
    """
    first = next((i for i, s in enumerate(position.steps) if isinstance(s, Move)), len(position.steps))
    start = position.copy()
    for _ in range(len(position.steps) - first):
        start.undo()
    stones = start.stones()
    black = int((stones == BLACK).sum())
    for step in position.steps[first:]:
        if not isinstance(step, Move) or step.color != BLACK:
            break
        black += step.point != position.pass_point
    return 0 if (stones == WHITE).any() or black <= 1 else black


def counted_komi(komi: float, rules: str, position: Position, bonus: str | None = None) -> float:
    """Return ``komi`` plus White's bonus under ``rules`` (or ``bonus``, KataGo's
    ``whiteHandicapBonus``, when given) for the handicap stones of ``position``."""
    return komi + white_handicap_bonus(rules, handicap_stones(position), bonus)


def apply_rules(position: Position, rules: str, komi: float, bonus: str | None = None) -> None:
    """Give ``position`` the count of ``rules`` for a game of ``komi``: its komi with White's
    handicap bonus (:func:`counted_komi`; ``bonus`` in place of the rules' when given) and its
    scoring, ``area`` or ``territory``."""
    position.komi = counted_komi(komi, rules, position, bonus)
    position.scoring = rules_kind(rules)
