"""The clock commands: GTP's ``time_settings`` and ``time_left``, and KGS's ``kgs-time_settings``.

GTP's own ``time_settings main byo_yomi stones`` sets Canadian overtime (``stones`` moves in
``byo_yomi`` seconds; :mod:`analysis.gtp.clock`).  KGS's ``kgs-time_settings`` names the system:
``none``, ``absolute main``, ``byoyomi main period periods`` (Japanese byo-yomi, the site's
:class:`analysis.play.clock.TimeControl`) or ``canadian main byo_yomi stones`` (as
``time_settings``).  ``time_left color time stones`` gives a player's time: the main time left
(``stones`` 0), or in overtime the time left in the present period with ``stones`` the
Canadian moves to make in it or, under Japanese byo-yomi, the periods left (KGS's convention).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.gtp.commands_args import CommandError, Handler, arg, color_arg, int_arg
from analysis.play.clock import MAX_MAIN, MAX_PERIOD, MAX_PERIODS, TimeControl, TimeControlError

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine

SYNTAX = "syntax error"
KGS_SYSTEMS = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}  # system -> arguments after it


def time_settings(engine: GtpEngine, args: list[str]) -> str:
    """Record main time, byo-yomi time and byo-yomi stones (Canadian overtime).

    Raises CommandError (syntax error) unless given three integers.
    """
    engine.time_settings = (int_arg(args, 0, SYNTAX), int_arg(args, 1, SYNTAX), int_arg(args, 2, SYNTAX))
    engine.time_control = None
    engine.time_left = {}
    return ""


def kgs_time_settings(engine: GtpEngine, args: list[str]) -> str:
    """Set the clock by its system's name (the module docstring).

    Raises CommandError: ``syntax error`` for an unknown system or missing, negative or
    non-integer arguments, the clock's own message for a clock with no time.  Settings past the
    site's limits (three hours, periods of ten minutes, 30 periods) are taken at those limits.
    """
    system = arg(args, 0, SYNTAX).lower()
    if system not in KGS_SYSTEMS:
        raise CommandError(SYNTAX)
    values = [int_arg(args, k, SYNTAX) for k in range(1, 1 + KGS_SYSTEMS[system])]
    if system == "canadian":
        return time_settings(engine, [str(v) for v in values])
    if any(v < 0 for v in values):
        raise CommandError(SYNTAX)
    # Past the site's limits the clock is only longer: the bot plans with the limits, a little faster.
    limited = [min(v, top) for v, top in zip(values, (MAX_MAIN, MAX_PERIOD, MAX_PERIODS), strict=False)]
    try:
        control = TimeControl("byoyomi", *limited) if system != "none" else None
    except TimeControlError as e:
        raise CommandError(str(e)) from None
    engine.time_settings = None
    engine.time_control = control
    engine.time_left = {}
    return ""


def time_left(engine: GtpEngine, args: list[str]) -> str:
    """Record a colour's remaining time and stones; raises CommandError (syntax error) for bad arguments."""
    color = color_arg(args, 0, SYNTAX)
    engine.time_left[color] = (int_arg(args, 1, SYNTAX), int_arg(args, 2, SYNTAX))
    return ""


COMMANDS: dict[str, Handler] = {
    "time_settings": time_settings,
    "time_left": time_left,
    "kgs-time_settings": kgs_time_settings,
}
