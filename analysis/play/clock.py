"""A game's clock: what a move costs each player, when one runs out, and the bot's share of its own.

==========  ================================================================================
system      rules (as on OGS and in KaTrain)
==========  ================================================================================
none        no clock
byoyomi     Japanese byo-yomi: ``main`` seconds, then ``periods`` periods of ``period`` seconds.
            A move made within a period (its last instant included) keeps it whole for the next
            move; a move that takes longer uses up one period for every ``period`` seconds
            past; time past the last period loses the game.  With no periods (or periods of no
            seconds) it is absolute time, as is Fischer without an increment.
fischer     ``main`` seconds to start, ``period`` seconds added after each move (the increment);
            time past the clock's end loses the game.
canadian    Canadian byo-yomi: ``main`` seconds, then blocks of ``periods`` moves (stones) to make
            in ``period`` seconds each.  The block's time runs on from move to move; the block's
            last move starts a new one, whole; time past a block's end loses the game.  Without
            stones or seconds it is absolute time.
==========  ================================================================================

A player's clock (:class:`PlayerClock`) is its main time left and, in Japanese byo-yomi, the
periods left; in Canadian overtime its ``main`` is the block's time left and its ``periods`` the
moves left to make in it (0 while in main time), as GTP's ``time_left`` and SGF's ``BL``/``OB``
give them.

Times are seconds (floats); the game's server measures them, so a slow network costs the player
on the move, and the bot's thinking is charged to the bot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SYSTEMS = ("none", "byoyomi", "fischer", "canadian")
MAX_MAIN = 3 * 3600  # seconds
MAX_PERIOD = 1800  # seconds: a byo-yomi or Canadian period (25 moves in 15 min is common), or an increment
MAX_PERIODS = 30  # byo-yomi periods, or a Canadian block's moves
MIN_MOVES_LEFT = 10  # main time is spread over at least this many moves
MIN_SECONDS = 0.1  # the least a search is given


class TimeControlError(ValueError):
    """Time control settings that do not make a clock (out of range, or no time at all)."""


@dataclass(frozen=True)
class PlayerClock:
    """What one player has left: ``main`` seconds (Fischer: all of it; Canadian overtime: the block's),
    and byo-yomi ``periods`` (Canadian: the block's moves left, 0 before overtime)."""

    main: float
    periods: int = 0


@dataclass(frozen=True)
class TimeControl:
    """A game's time control (see the module docstring); raises TimeControlError when built with
    settings out of range, or a clock with no time."""

    system: str = "none"
    main: int = 0
    period: int = 0
    periods: int = 0

    def __post_init__(self) -> None:
        """Check the settings, and make absolute time of the overtimes that add nothing: byo-yomi
        without periods or of no seconds, and Fischer without an increment."""
        if self.system not in SYSTEMS:
            raise TimeControlError(f"unknown time system {self.system!r}; known: {', '.join(SYSTEMS)}")
        for name, value, top in (("main time", self.main, MAX_MAIN), ("period", self.period, MAX_PERIOD),
                                 ("periods", self.periods, MAX_PERIODS)):
            if not 0 <= value <= top:
                raise TimeControlError(f"{name} must be between 0 and {top}, not {value}")
        if self.system in ("byoyomi", "canadian") and self.main == 0 and self.period * self.periods == 0:
            raise TimeControlError(f"{'Canadian ' if self.system == 'canadian' else ''}byo-yomi needs main "
                                   "time or periods of some seconds")
        if self.system == "fischer" and self.main == 0:
            raise TimeControlError("a Fischer clock needs main time to start from")
        normal = (self.system, self.main, self.period, self.periods)
        if self.system == "none":
            normal = ("none", 0, 0, 0)
        elif self.period == 0 or (self.system != "fischer" and self.periods == 0):
            normal = ("byoyomi", self.main, 0, 0)  # absolute time
        elif self.system == "fischer":
            normal = ("fischer", self.main, self.period, 0)
        for name, value in zip(("system", "main", "period", "periods"), normal, strict=True):
            object.__setattr__(self, name, value)

    @property
    def timed(self) -> bool:
        """Whether the game has a clock."""
        return self.system != "none"

    def start(self) -> PlayerClock:
        """Return a player's clock at the start of the game."""
        if self.system == "canadian":
            return PlayerClock(float(self.main), 0) if self.main else self._block()
        return PlayerClock(float(self.main), self.periods)

    def _block(self) -> PlayerClock:
        """A whole Canadian block."""
        return PlayerClock(float(self.period), self.periods)

    def overtime(self) -> str:
        """Return the overtime as SGF's OT property writes it: ``5x30 byo-yomi``, ``Fischer 10``
        (empty for none); Canadian as KGS writes it, ``25/600 Canadian``."""
        if self.system == "canadian":
            return f"{self.periods}/{self.period} Canadian"
        if self.periods:
            return f"{self.periods}x{self.period} byo-yomi"
        if self.system == "fischer":
            return f"Fischer {self.period}"
        return ""

    def describe(self) -> str:
        """Return the control in words: ``10 min + 5×30 s byo-yomi``, ``5 min + 10 s Fischer``,
        ``10 min + 25 moves in 10 min``, ``2 min absolute``, ``no clock``."""
        if not self.timed:
            return "no clock"
        main = _duration(self.main)
        if self.system == "fischer":
            return f"{main} + {self.period} s Fischer"
        if self.system == "canadian":
            overtime = f"{self.periods} move{'s' if self.periods > 1 else ''} in {_duration(self.period)}"
            return f"{main} + {overtime}" if self.main else overtime
        if self.periods:
            overtime = f"{self.periods}×{self.period} s byo-yomi"
            return f"{main} + {overtime}" if self.main else overtime
        return f"{main} absolute"

    def time_left(self, clock: PlayerClock, elapsed: float) -> float:
        """Return the seconds the player on the move has left after ``elapsed`` seconds of thinking
        (infinite without a clock; below 0: out of time)."""
        if self.system == "byoyomi":
            return clock.main + clock.periods * self.period - elapsed
        if self.system == "fischer":
            return clock.main - elapsed
        if self.system == "canadian":
            return clock.main + (0 if clock.periods else self.period) - elapsed
        return math.inf

    def charge(self, clock: PlayerClock, elapsed: float, moved: bool = True) -> PlayerClock | None:
        """Return the player's clock after a move that took ``elapsed`` seconds (with ``moved``
        False, after a turn taken back as long, which earns no Fischer increment and plays no move
        of a Canadian block), or None when the player ran out of time before making it."""
        left = self.time_left(clock, elapsed)
        if left < 0:
            return None
        if self.system == "canadian":
            return self._charge_canadian(clock, elapsed, left, moved)
        if self.system == "byoyomi":
            if elapsed <= clock.main:
                return PlayerClock(clock.main - elapsed, clock.periods)
            used = math.ceil((elapsed - clock.main) / self.period) - 1  # gone; the one it ended in stays
            return PlayerClock(0.0, clock.periods - used)
        if self.system == "fischer":
            return PlayerClock(clock.main - elapsed + (self.period if moved else 0))
        return clock

    def _charge_canadian(self, clock: PlayerClock, elapsed: float, left: float, moved: bool) -> PlayerClock:
        """The Canadian clock after a turn of ``elapsed`` seconds that left ``left`` (at least 0)."""
        if not clock.periods and elapsed <= clock.main:
            return PlayerClock(clock.main - elapsed, 0)
        moves = (clock.periods or self.periods) - (1 if moved else 0)  # of the block, after this turn
        return PlayerClock(left, moves) if moves else self._block()

    def move_seconds(self, clock: PlayerClock, elapsed: float, size: int, moves_played: int,
                     lag: float) -> float | None:
        """Return how long a player (the bot) should think about its move, ``elapsed`` seconds into
        its turn with ``clock`` at the turn's start, keeping ``lag`` seconds for the delays between
        its choice and the move's arrival; None without a clock.

        Main time is spread over the moves a game of ``size`` still has after ``moves_played``,
        and the byo-yomi period or the increment is added; in byo-yomi a move takes what is left
        of the present period.  Absolute time, with nothing to fall back on, is spread over twice
        the moves expected, less the lag of each.
        """
        if not self.timed:
            return None
        if self.system == "canadian":
            return max(MIN_SECONDS, self._canadian_share(clock, elapsed, size, moves_played) - lag)
        if self.periods and elapsed >= clock.main:
            over = elapsed - clock.main  # into the periods: what is left of the present one
            share = math.ceil(over / self.period) * self.period - over if over > 0 else self.period
        elif self.system == "fischer" or self.periods:
            main = clock.main - elapsed
            share = main / moves_left(size, moves_played)
            if self.system == "fischer":
                share = min(share + self.period, main / 2)
            else:
                share += self.period  # a period is spent only when the main time is gone
        else:  # absolute time: twice the moves expected, and the lag of every one of them, kept back
            ahead = 2 * moves_left(size, moves_played)
            share = max(0.0, clock.main - elapsed - ahead * lag) / ahead + lag
        return max(MIN_SECONDS, share - lag)

    def _canadian_share(self, clock: PlayerClock, elapsed: float, size: int, moves_played: int) -> float:
        """A move's share of a Canadian clock: in overtime the block's time left over its moves;
        before, the main time spread as in byo-yomi, plus a block's time over its moves."""
        if clock.periods or elapsed >= clock.main:
            return self.time_left(clock, elapsed) / (clock.periods or self.periods)
        return (clock.main - elapsed) / moves_left(size, moves_played) + self.period / self.periods


def _duration(seconds: int) -> str:
    """``10 min`` for whole minutes, else ``45 s``."""
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds} s"


def moves_left(size: int, moves_played: int) -> int:
    """Return how many more moves one player expects to make: a game lasts about
    ``0.8 * size * size`` moves of both players."""
    return max(MIN_MOVES_LEFT, (int(0.8 * size * size) - moves_played) // 2)
