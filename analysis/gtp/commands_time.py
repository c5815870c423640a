"""The clock commands: GTP's ``time_settings`` and ``time_left``, and KGS's ``kgs-time_settings``,
all kept as the site's :class:`analysis.play.clock.TimeControl` (:mod:`analysis.gtp.clock`).

GTP's own ``time_settings main byo_yomi stones`` sets Canadian overtime (``stones`` moves in
``byo_yomi`` seconds).  KGS's ``kgs-time_settings`` names the system: ``none``, ``absolute main``,
``byoyomi main period periods`` (Japanese byo-yomi) or ``canadian main byo_yomi stones`` (as
``time_settings``).  ``time_left color time stones`` gives a player's time: the main time left
(``stones`` 0), or in overtime the time left in the present period with ``stones`` the
Canadian moves to make in it or, under Japanese byo-yomi, the periods left (KGS's convention).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.gtp.commands_args import CommandError, Handler, arg, color_arg, float_arg, int_arg
from analysis.play.clock import MAX_MAIN, MAX_PERIOD, MAX_PERIODS, TimeControl, TimeControlError

if TYPE_CHECKING:
    from analysis.gtp.engine import GtpEngine

SYNTAX = "syntax error"
KGS_SYSTEMS = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}  # system -> arguments after it
LIMITS = (MAX_MAIN, MAX_PERIOD, MAX_PERIODS)


def time_settings(engine: GtpEngine, args: list[str]) -> str:
    """Set main time, then Canadian overtime: ``stones`` moves in every ``byo_yomi`` seconds
    (``byo_yomi`` 0: absolute time; ``stones`` 0 with some ``byo_yomi``, as GTP says, or neither
    main nor byo-yomi time: no time limit).

    Raises CommandError: ``syntax error`` unless given three integers of at least 0, the clock's
    own message for a clock with no time.
    """
    values = [int_arg(args, k, SYNTAX) for k in range(3)]
    no_limit = (values[1] > 0 and values[2] == 0) or values[0] == values[1] == 0
    return _set(engine, "none" if no_limit else "canadian", values)


def kgs_time_settings(engine: GtpEngine, args: list[str]) -> str:
    """Set the clock by its system's name (the module docstring).

    Raises CommandError: ``syntax error`` for an unknown system or missing, negative or
    non-integer arguments, the clock's own message for a clock with no time.
    """
    system = arg(args, 0, SYNTAX).lower()
    if system not in KGS_SYSTEMS:
        raise CommandError(SYNTAX)
    values = [int_arg(args, k, SYNTAX) for k in range(1, 1 + KGS_SYSTEMS[system])]
    return _set(engine, {"absolute": "byoyomi"}.get(system, system), values)


def _set(engine: GtpEngine, system: str, values: list[int]) -> str:
    """Make the engine's clock (and forget the time left); settings past the site's limits (three
    hours, periods of half an hour, 30 periods or moves a block) are taken at those limits, a
    Canadian block's time cut in proportion to its moves, so that the bot only plays faster.

    Raises CommandError as the settings commands do.
    """
    if any(v < 0 for v in values):
        raise CommandError(SYNTAX)
    limited = [min(v, top) for v, top in zip(values, LIMITS, strict=False)]
    if system == "canadian" and values[2] > MAX_PERIODS:
        limited[1] = max(1, min(values[1] * MAX_PERIODS // values[2], MAX_PERIOD))
    try:
        control = TimeControl(system, *limited) if system != "none" else None
    except TimeControlError as e:
        raise CommandError(str(e)) from None
    engine.time_control = control
    engine.time_left = {}
    return ""


def time_left(engine: GtpEngine, args: list[str]) -> str:
    """Record a colour's remaining time and stones, taken within the clock's limits (0 to three
    hours, 0 to 30 stones), as the settings are; the seconds may have a fraction, as LizzieYzy
    sends them (``12.34``), and are rounded down.  Raises CommandError (syntax error) for bad
    arguments."""
    color = color_arg(args, 0, SYNTAX)
    seconds, stones = float_arg(args, 1, SYNTAX), int_arg(args, 2, SYNTAX)
    kept = int(max(0.0, min(seconds, float(MAX_MAIN))))
    engine.time_left[color] = (kept, max(0, min(stones, MAX_PERIODS)))
    return ""


COMMANDS: dict[str, Handler] = {
    "time_settings": time_settings,
    "time_left": time_left,
    "kgs-time_settings": kgs_time_settings,
}
