"""A move's share of the GTP clock, for the search levels: the controller's settings
(``time_settings`` or ``kgs-time_settings``, both kept as a :class:`analysis.play.clock.TimeControl`)
and the player's last ``time_left``.

``time_left color time stones`` reports the main time left (``stones`` 0) or, in overtime, the
time left in the present period with ``stones`` the Canadian moves to make in it or, under
Japanese byo-yomi, the periods left (KGS's convention).
"""

from __future__ import annotations

from analysis.play.clock import MAX_MAIN, MIN_SECONDS, PlayerClock, TimeControl, moves_left

LAG_SECONDS = 0.5  # kept back for the controller's and the pipe's delays


def control_seconds(
    control: TimeControl | None, left: tuple[int, int] | None, size: int, moves_played: int
) -> float | None:
    """Return the seconds this move may take under ``control`` given the player's last
    ``time_left`` (None: the full clock), or None without a time limit.

    A ``time_left`` with no settings is taken as the whole clock: its time for its stones, or
    absolute time.
    """
    if control is None:
        if left is None:
            return None
        seconds, stones = left
        share = seconds / stones if stones > 0 else min(seconds, MAX_MAIN) / moves_left(size, moves_played)
        return max(MIN_SECONDS, share - LAG_SECONDS)
    if left is None:
        clock, elapsed = control.start(), 0.0
    elif control.system == "canadian":
        clock, elapsed = PlayerClock(float(left[0]), max(0, left[1])), 0.0
    elif control.periods and left[1] > 0:
        clock, elapsed = PlayerClock(0.0, left[1]), float(max(0, control.period - left[0]))
    else:
        clock, elapsed = PlayerClock(float(left[0]), control.periods), 0.0
    return control.move_seconds(clock, elapsed, size, moves_played, lag=LAG_SECONDS)
