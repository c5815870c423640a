"""Game results as SGF writes them (``RE``): ``B+3.5``, ``W+R``, ``B+T``, ``0``...

Both functions read the text only; neither raises.
"""

from __future__ import annotations

import math

from analysis.go.coords import BLACK, WHITE

DRAWS = ("0", "DRAW", "JIGO")


def result_margin(result: str | None) -> float:
    """Return Black's final margin of a counted game with SGF result ``result`` (``B+3.5``: 3.5,
    ``W+0.5``: -0.5, a draw: 0), or NaN for a game not decided by the count (resignation, time,
    forfeit, unknown)."""
    text = (result or "").strip().upper()
    if text in DRAWS:
        return 0.0
    if len(text) < 3 or text[0] not in "BW" or text[1] != "+":
        return math.nan
    try:
        margin = float(text[2:])
    except ValueError:
        return math.nan
    if not math.isfinite(margin):
        return math.nan
    return margin if text[0] == "B" else -margin


def result_value(result: str | None, color: int) -> float:
    """Return 1.0 if ``color`` won the game with SGF result ``result``, 0.0 if it lost, 0.5 for a draw.

    Returns NaN for unknown results and for games decided on time (``+T``) or by forfeit (``+F``).
    """
    text = (result or "").strip().upper()
    if text in DRAWS:
        return 0.5
    if len(text) < 2 or text[0] not in "BW" or text[1] != "+":
        return math.nan
    if text[2:].startswith(("T", "F")):
        return math.nan
    winner = BLACK if text[0] == "B" else WHITE
    return 1.0 if winner == color else 0.0
