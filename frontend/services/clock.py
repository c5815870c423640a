"""A played game's clock, kept in its row and charged by the server's time.

The rules of the clock are :class:`analysis.play.clock.TimeControl`'s; this module keeps each
player's time in ``Game.clock``: ``{"B": [main seconds, periods], "W": [...], "turn": "B",
"since": t}``, with ``turn`` the colour whose clock runs and ``since`` the Unix time its turn
started, both None while no clock runs (while the dead stones are marked, and after the end).
A paused game keeps ``turn`` with ``since`` None and ``paused`` the seconds its turn had run.
A move is charged with the time since its turn started, the human's and the bot's alike, so the
delays of the network and of the worker queue count for the player on the move, as on OGS.
Pages get the clock in the state message and count it down themselves from ``elapsed``, which
keeps them independent of the browser's own clock.  The time is each process's ``time.time()``:
the web and worker machines' clocks must agree (NTP).
"""

from __future__ import annotations

from analysis.play.clock import PlayerClock
from analysis.sgf import GameRecord
from frontend.models import Game, other

BOT_LAG_SECONDS = 1.0  # kept back by the bot for the queue, the worker and saving the move


def start(game: Game, first: str, now: float) -> None:
    """Set both players' clocks to the game's start and run ``first``'s from ``now``."""
    control = game.time_control
    if not control.timed:
        game.clock = {}
        return
    begin = control.start()
    game.clock = {"B": [begin.main, begin.periods], "W": [begin.main, begin.periods]}
    restart(game, first, now)


def _running(game: Game) -> bool:
    return game.time_control.timed and game.clock.get("since") is not None and bool(game.clock.get("turn"))


def _player(game: Game, color: str) -> PlayerClock:
    main, periods = game.clock[color]
    return PlayerClock(float(main), int(periods))


def elapsed(game: Game, now: float) -> float:
    """Return the seconds since the running turn started (0 while no clock runs)."""
    return max(0.0, now - game.clock["since"]) if _running(game) else 0.0


def charge(game: Game, color: str, now: float, moved: bool = True) -> bool:
    """Charge ``color``'s move made at ``now`` (``moved`` False: its turn taken back by an undo at
    ``now``) and run the next turn's clock from then; return False, changing nothing, when the move
    came after ``color``'s time ran out."""
    if not _running(game):
        return True
    after = game.time_control.charge(_player(game, color), elapsed(game, now), moved)
    if after is None:
        return False
    _set(game, color, after)
    restart(game, other(color), now)
    return True


def take_back(game: Game, color: str, record: GameRecord, turn: float) -> None:
    """Take back what the move of ``color`` an undo removed from ``record`` counted on its clock,
    its ``turn`` seconds on the move since (0: none) already charged: the Fischer increment it
    earned; under Canadian overtime the clock it had before that move (the record's time left: a
    block it finished is not new, the seconds it took are given back), less those seconds."""
    control = game.time_control
    if control.system == "fischer":
        _set(game, color, PlayerClock(max(0.0, _player(game, color).main - control.period)))
    elif control.system == "canadian":
        restore(game, color, record)
        before = _player(game, color)
        _set(game, color, control.charge(before, turn, moved=False) or PlayerClock(0.0, before.periods))


def run_out(game: Game, color: str) -> None:
    """Show ``color``'s clock at zero: it lost on time (under Canadian overtime, with the moves it
    had left to make)."""
    control = game.time_control
    if control.system == "canadian":
        _set(game, color, PlayerClock(0.0, _player(game, color).periods or control.periods))
    elif control.timed:
        _set(game, color, PlayerClock(0.0))


def _set(game: Game, color: str, clock: PlayerClock) -> None:
    game.clock = {**game.clock, color: [round(clock.main, 3), clock.periods]}


def restore(game: Game, color: str, record: GameRecord) -> None:
    """Give ``color`` back the time it had after its last move left in ``record`` (its time-left
    properties, :func:`sgf_time_left`), or at the start: an undo takes back the bot's reply and
    the time it spent on it."""
    control = game.time_control
    if not control.timed:
        return
    moves = [node for node in record.main_line() if node.get(f"{color}L") is not None]
    if not moves:
        _set(game, color, control.start())
        return
    last = moves[-1]
    seconds, periods = float(last.get(f"{color}L")), last.get(f"O{color}")
    if periods is None:  # in main time
        _set(game, color, PlayerClock(seconds, 0 if control.system == "canadian" else control.periods))
    elif control.system == "canadian":  # the block's time and moves left
        _set(game, color, PlayerClock(seconds, int(periods)))
    else:
        _set(game, color, PlayerClock(0.0, int(periods)))


def expired(game: Game, now: float) -> str | None:
    """Return the colour whose clock runs if it has run out of time by ``now``, else None."""
    if not _running(game):
        return None
    color = game.clock["turn"]
    return color if game.time_control.time_left(_player(game, color), elapsed(game, now)) < 0 else None


def stop(game: Game) -> None:
    """Stop the clocks (scoring, the end of the game)."""
    if game.clock:
        game.clock = {**_without_pause(game.clock), "turn": None, "since": None}


def _without_pause(clock: dict) -> dict:
    """The clock JSON without its ``paused`` key."""
    return {key: value for key, value in clock.items() if key != "paused"}


def paused(game: Game) -> bool:
    """Whether the game's clock is paused."""
    return bool(game.clock) and game.clock.get("paused") is not None


def pause(game: Game, now: float) -> None:
    """Stop the running clock at ``now``, keeping the seconds its turn has run."""
    if _running(game):
        game.clock = {**game.clock, "since": None, "paused": round(elapsed(game, now), 3)}


def resume(game: Game, now: float) -> None:
    """Run the paused turn's clock again from ``now``, with the seconds it had run before the pause."""
    if paused(game):
        game.clock = {**_without_pause(game.clock), "since": now - game.clock["paused"]}


def restart(game: Game, color: str, now: float) -> None:
    """Run ``color``'s clock from ``now`` (its turn: the next move, or the game's start again after
    an undo)."""
    if game.time_control.timed:
        game.clock = {**game.clock, "turn": color, "since": now}


def bot_seconds(game: Game, color: str, moves_played: int, now: float) -> float | None:
    """Return how long the bot, playing ``color`` and on the move, may think (None: no clock)."""
    if not _running(game):
        return None
    return game.time_control.move_seconds(_player(game, color), elapsed(game, now), game.size, moves_played,
                                          lag=BOT_LAG_SECONDS)


def sgf_time_left(game: Game, color: str) -> dict[str, str]:
    """Return the SGF properties of ``color``'s time left after its move, as KGS writes them:
    BL/WL the main time left, or once in byo-yomi the seconds of the period ahead with OB/OW the
    periods left (in Canadian overtime the block's seconds and moves left); none without a clock."""
    control = game.time_control
    if not control.timed:
        return {}
    clock = _player(game, color)
    if control.system == "canadian":
        block = {f"O{color}": str(clock.periods)} if clock.periods else {}
        return {f"{color}L": f"{clock.main:.1f}", **block}
    if control.periods and clock.main <= 0:
        return {f"{color}L": f"{control.period:.1f}", f"O{color}": str(clock.periods)}
    return {f"{color}L": f"{clock.main:.1f}"}


def state(game: Game, now: float) -> dict | None:
    """Return the clock for the state message (None without a clock): the control, each player's
    time left at the start of the running turn, who is on the move (None: stopped), how long ago
    the turn started (while paused: how long it had run) and the colour whose clock is paused (None:
    not paused)."""
    control = game.time_control
    if not control.timed or not game.clock:
        return None
    players = {c: {"main": round(clock.main, 1), "periods": clock.periods}
               for c, clock in ((c, _player(game, c)) for c in "BW")}
    return {"system": control.system, "main": control.main, "period": control.period,
            "periods": control.periods, "overtime": control.overtime(), **players,
            "running": game.clock["turn"] if _running(game) else None,
            "elapsed": round(game.clock["paused"] if paused(game) else elapsed(game, now), 2),
            "paused": game.clock["turn"] if paused(game) else None}
