"""Choosing the move to play from a search result: by visits, with temperature in the opening."""

from __future__ import annotations

import numpy as np

from analysis.mcts.result import SearchResult


def choose_move(
    result: SearchResult,
    move_number: int,
    rng: np.random.Generator,
    opening_moves: int = 30,
    temperature: float = 1.0,
) -> int:
    """Return the move to play after ``move_number`` moves of the game.

    During the first ``opening_moves`` moves a candidate is drawn with probability
    proportional to ``visits ** (1 / temperature)``; afterwards (or with temperature 0)
    the most visited move is played.  Raises ValueError for a negative temperature.
    """
    if temperature < 0:
        raise ValueError(f"temperature must be non-negative, not {temperature}")
    if move_number >= opening_moves or temperature == 0 or not result.candidates:
        return result.best
    visits = np.array([c.visits for c in result.candidates], dtype=np.float64)
    weights = (visits / visits.max()) ** (1.0 / temperature)
    return result.candidates[int(rng.choice(visits.size, p=weights / weights.sum()))].move
