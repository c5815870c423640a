"""A network's policy as the site shows it, the same on every page (no Django here).

The review (its candidates, the policy heatmap, the rank of the move played) and the compare page
show a next-move network's policy averaged over the board's 8 symmetries, each prior rounded to
``POLICY_DIGITS`` decimals; the moves are ranked by those rounded priors (ties share the better
rank), so that both pages give a position's move the same prior and rank.
"""

from __future__ import annotations

import numpy as np

POLICY_DIGITS = 5
SYMMETRIES = 8


def shown_policy(policy: np.ndarray) -> list[float]:
    """Return ``policy`` (one position's priors) with each prior rounded to ``POLICY_DIGITS`` decimals."""
    return [round(float(p), POLICY_DIGITS) for p in policy]


def move_rank(policy: np.ndarray, point: int) -> int:
    """Return the 1-based rank of ``point`` in ``policy`` (ties share the better rank)."""
    return int((policy > policy[point]).sum()) + 1
