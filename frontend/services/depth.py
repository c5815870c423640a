"""How deep the review searches each position: the depths a user picks, in search visits.

KaTrain and Lizzie let their users trade speed for depth; the review page offers three depths,
for the position shown and for the whole-game analysis alike.  Each is a multiple of
``GOWEB_REVIEW_VISITS`` (the normal depth), capped by ``GOWEB_API_MAX_VISITS`` like the API's
searches, so that one setting moves them all.
"""

from __future__ import annotations

from django.conf import settings

from frontend.services.games import GameError

NORMAL = "normal"
FACTORS = {"fast": 0.25, NORMAL: 1.0, "deep": 4.0}  # depth -> times GOWEB_REVIEW_VISITS


def visits(depth: str = NORMAL) -> int:
    """Return the search visits of ``depth`` (at least 1, at most ``GOWEB_API_MAX_VISITS``).

    Raises GameError naming the depths for an unknown one.
    """
    if depth not in FACTORS:
        raise GameError(f"unknown depth {depth!r}; choose {', '.join(FACTORS)}")
    wanted = round(FACTORS[depth] * settings.GOWEB_REVIEW_VISITS)
    return max(1, min(wanted, settings.GOWEB_API_MAX_VISITS))


def choices() -> list[tuple[str, int]]:
    """Return (depth, visits) for each depth, shallowest first, as the review page offers them."""
    return [(depth, visits(depth)) for depth in FACTORS]
