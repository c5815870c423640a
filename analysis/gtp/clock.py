"""A move's share of the GTP clock, for the search levels: the controller's settings
(``time_settings`` or ``kgs-time_settings``, both kept as a :class:`analysis.play.clock.TimeControl`)
and the player's last ``time_left``.

``time_left color time stones`` reports the main time left (``stones`` 0) or, in overtime, the
time left in the present period with ``stones`` the Canadian moves to make in it or, under
Japanese byo-yomi, the periods left (KGS's convention).
"""

from __future__ import annotations

from analysis.play.clock import (
    MAX_MAIN,
    MAX_PERIOD,
    MAX_PERIODS,
    MIN_SECONDS,
    PlayerClock,
    TimeControl,
    TimeControlError,
)

LAG_SECONDS = 0.5  # kept back for the controller's and the pipe's delays


def control_seconds(
    control: TimeControl | None, left: tuple[int, int] | None, size: int, moves_played: int
) -> float | None:
    """Return the seconds this move may take under ``control`` given the player's last
    ``time_left`` (None: the full clock), or None without a time limit.

    A ``time_left`` with no settings is taken as the whole clock: its time for its stones (a
    Canadian period), or absolute time.
    """
    if control is None:
        if left is None:
            return None
        control = _implied(*left)
        if control is None:  # no time left at all
            return MIN_SECONDS
    if left is None:
        clock, elapsed = control.start(), 0.0
    elif control.system == "canadian":
        clock, elapsed = PlayerClock(float(left[0]), max(0, left[1])), 0.0
    elif control.periods and left[1] > 0:
        clock, elapsed = PlayerClock(0.0, left[1]), float(max(0, control.period - left[0]))
    else:
        clock, elapsed = PlayerClock(float(left[0]), control.periods), 0.0
    return control.move_seconds(clock, elapsed, size, moves_played, lag=LAG_SECONDS)


def _implied(seconds: int, stones: int) -> TimeControl | None:
    """The clock a ``time_left`` implies when no settings came: a Canadian period of ``seconds``
    for ``stones`` moves, or ``seconds`` of absolute time (within the site's limits, so shorter
    only); None for no time."""
    try:
        if stones > 0:
            return TimeControl("canadian", 0, min(seconds, MAX_PERIOD), min(stones, MAX_PERIODS))
        return TimeControl("byoyomi", min(seconds, MAX_MAIN))
    except TimeControlError:
        return None
