"""A move's share of the GTP clock (``time_settings`` or ``kgs-time_settings``, and ``time_left``),
for the search levels.

GTP's ``time_settings main byo_yomi stones``: byo-yomi time with 0 stones means
no time limit; otherwise Canadian byo-yomi (``stones`` moves in ``byo_yomi``
seconds) follows the main time, and 0 byo-yomi time means absolute time.
``time_left color time stones`` reports the time left in the main time
(``stones`` 0) or in the current byo-yomi period with ``stones`` moves to make.
"""

from __future__ import annotations

from analysis.play.clock import MIN_SECONDS, PlayerClock, TimeControl, moves_left

LAG_SECONDS = 0.5  # kept back for the controller's and the pipe's delays


def move_seconds(
    settings: tuple[int, int, int] | None,
    left: tuple[int, int] | None,
    size: int,
    moves_played: int,
) -> float | None:
    """Return the seconds this move may take, or None without a time limit.

    ``settings`` is the ``time_settings`` triple (None if never given) and ``left`` the
    player's last ``time_left`` (None if never given: the full main time is assumed).
    """
    if settings is None and left is None:
        return None
    main, byo_yomi, stones = settings or (0, 0, 0)
    if settings is not None and byo_yomi > 0 and stones == 0:
        return None
    remaining, period_stones = left if left is not None else (main, 0)
    if period_stones > 0:  # in byo-yomi: this period's time spread over its stones
        share = remaining / period_stones
    else:
        share = remaining / moves_left(size, moves_played)
        if byo_yomi > 0 and stones > 0:  # the byo-yomi periods wait after the main time
            share += byo_yomi / stones
    return max(MIN_SECONDS, share - LAG_SECONDS)


def control_seconds(
    control: TimeControl, left: tuple[int, int] | None, size: int, moves_played: int
) -> float:
    """Return the seconds this move may take under ``kgs-time_settings``' ``control`` (absolute
    time or Japanese byo-yomi), given the player's last ``time_left`` (None: the full clock).

    In byo-yomi KGS's ``time_left`` gives the time left in the present period and the periods
    left (its ``stones``); before, the main time and 0.
    """
    if left is None:
        clock, elapsed = control.start(), 0.0
    elif control.periods and left[1] > 0:
        clock, elapsed = PlayerClock(0.0, left[1]), float(max(0, control.period - left[0]))
    else:
        clock, elapsed = PlayerClock(float(left[0]), control.periods), 0.0
    return control.move_seconds(clock, elapsed, size, moves_played, lag=LAG_SECONDS)
