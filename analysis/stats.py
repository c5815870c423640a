"""Statistics shared by the match harness (win rates) and GTP's analysis (a move's ``lcb``)."""

from __future__ import annotations

import math

Z_95 = 1.959964  # two-sided 95% normal quantile


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Return the Wilson score interval (low, high) of a success rate; (0, 1) when ``trials`` is 0.

    ``successes`` may be fractional (a draw counts one half).
    Raises ValueError if it is outside ``0..trials``.
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} outside 0..{trials}")
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)
