"""One game of a match between two GTP engines, refereed by our own Position.

Every move an engine generates is checked on our Position before it is sent to
the other engine: a malformed or illegal move, a crash, an error reply or a
timeout loses the game at once (``B+F`` / ``W+F``, ``+T`` for a timeout).  A
game that ends with two passes or at the move limit is scored: the engines'
``final_score`` decides when both answer the same; otherwise a referee engine's
``final_score`` on the replayed game when one is given (as ``gogui-twogtp -referee``
does), else our own count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from analysis.go.coords import BLACK, WHITE, CoordinateError, from_gtp, to_gtp
from analysis.go.position import IllegalMoveError, Position
from analysis.go.rules import uses_superko
from analysis.go.scoring import estimate_dead, score
from analysis.gtp.client import GtpError
from analysis.match.engine import EngineTimeout, MatchEngine
from analysis.sgf import GameRecord, SgfNode, write_sgf

GTP_COLOR = {BLACK: "b", WHITE: "w"}
SGF_COLOR = {BLACK: "B", WHITE: "W"}
_SCORE = re.compile(r"([BW])\+(\d+(?:\.\d*)?)", re.IGNORECASE)


@dataclass(frozen=True)
class GameConfig:
    """What every game of a match is played with."""

    size: int
    komi: float
    rules: str
    max_moves: int


@dataclass(frozen=True)
class GameResult:
    """How one game ended; engines are named ``"A"``/``"B"``, ``winner`` is None for a draw.

    ``reason`` is ``two passes``, ``move limit``, ``resignation``, ``illegal move``,
    ``timeout`` or ``engine error``; the scores are set only for scored games
    (``decided_by`` is then ``engines``, ``referee`` or ``ours``).
    """

    number: int
    black: str
    white: str
    winner: str | None
    result: str
    reason: str
    moves: int
    detail: str = ""
    black_score: str | None = None
    white_score: str | None = None
    our_score: str | None = None
    decided_by: str | None = None
    referee_score: str | None = None

    @property
    def disagreement(self) -> bool:
        """True when both engines counted the game and their scores differ."""
        if self.black_score is None or self.white_score is None:
            return False
        return parse_score(self.black_score) != parse_score(self.white_score)


class Forfeit(Exception):
    """An engine lost the game by misbehaving: ``color`` is its colour, ``reason`` a GameResult reason."""

    def __init__(self, color: int, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.color = color
        self.reason = reason
        self.detail = detail


def parse_score(text: str) -> float | None:
    """Return black's margin in a ``final_score`` reply (``B+3.5``, ``W+0.5``, ``0``), None if unreadable."""
    text = text.strip()
    if text == "0":
        return 0.0
    match = _SCORE.fullmatch(text)
    if match is None:
        return None
    margin = float(match.group(2))
    return margin if match.group(1).upper() == "B" else -margin


def format_margin(margin: float) -> str:
    """Return black's ``margin`` as a result: ``B+3.5``, ``W+0.5`` or ``0``."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


def _command(engine: MatchEngine, color: int, command: str) -> str:
    """Send a command the game cannot go on without; raises Forfeit for ``color`` if it fails."""
    try:
        return engine.send(command)
    except EngineTimeout as e:
        raise Forfeit(color, "timeout", f"{engine.name}: {e}") from None
    except GtpError as e:
        engine.discard()
        raise Forfeit(color, "engine error", f"{engine.name}: {command!r} failed: {e}") from None


def _prepare(engine: MatchEngine, color: int, config: GameConfig) -> None:
    """(Re)start the engine and set up an empty board; raises Forfeit for ``color`` on failure.

    An engine may refuse ``komi`` (its reply is ignored) but not the board.
    """
    try:
        engine.start()
    except OSError as e:
        raise Forfeit(color, "engine error", f"{engine.name}: cannot restart: {e}") from None
    _command(engine, color, f"boardsize {config.size}")
    _command(engine, color, "clear_board")
    try:
        engine.send(f"komi {config.komi:g}")
    except EngineTimeout as e:
        raise Forfeit(color, "timeout", f"{engine.name}: {e}") from None
    except GtpError:
        pass


def _generate(engine: MatchEngine, color: int, position: Position) -> int | None:
    """Return the point the engine plays for ``color`` (None when it resigns).

    Raises Forfeit for a failure, a malformed vertex or an illegal move.
    """
    try:
        reply = engine.genmove(GTP_COLOR[color])
    except EngineTimeout as e:
        raise Forfeit(color, "timeout", f"{engine.name}: {e}") from None
    except GtpError as e:
        engine.discard()
        raise Forfeit(color, "engine error", f"{engine.name}: genmove failed: {e}") from None
    if reply == "resign":
        return None
    try:
        point = from_gtp(reply, position.size)
        position.play(point, color)
    except (CoordinateError, IllegalMoveError) as e:
        raise Forfeit(color, "illegal move", f"{engine.name} played {reply!r}: {e}") from None
    return point


def _play_moves(players: dict[int, MatchEngine], position: Position, record: GameRecord, limit: int) -> str:
    """Alternate genmove and play until two passes, a resignation or ``limit`` moves.

    Returns the reason the game ended (``resignation`` leaves the resigning side
    to move on ``position``).  Raises Forfeit when an engine fails.
    """
    node: SgfNode = record.root
    while len(position.moves) < limit:
        color = position.to_play
        point = _generate(players[color], color, position)
        if point is None:
            return "resignation"
        node = record.add_move(color, point, parent=node)
        _command(players[-color], -color, f"play {GTP_COLOR[color]} {to_gtp(point, position.size)}")
        if position.consecutive_passes() >= 2:
            return "two passes"
    return "move limit"


def _final_score(engine: MatchEngine) -> str | None:
    """Return the engine's ``final_score`` reply, or None if it refuses, fails or times out."""
    try:
        return engine.send("final_score").strip()
    except GtpError:
        return None


def _referee_score(referee: MatchEngine, position: Position, config: GameConfig) -> str | None:
    """Replay the game on ``referee`` and return its ``final_score``, or None if any command fails."""
    try:
        referee.start()
        for command in (f"boardsize {config.size}", "clear_board", f"komi {config.komi:g}"):
            referee.send(command)
        for move in position.moves:
            referee.send(f"play {GTP_COLOR[move.color]} {to_gtp(move.point, position.size)}")
        return referee.send("final_score").strip()
    except (GtpError, OSError):
        referee.discard()
        return None


def _scored(number: int, players: dict[int, MatchEngine], position: Position, config: GameConfig,
            reason: str, referee: MatchEngine | None) -> GameResult:
    """Return the result of a game that ended on the board, counted by the engines, the referee or us."""
    black_score, white_score = _final_score(players[BLACK]), _final_score(players[WHITE])
    ours = score(position, config.rules, dead=estimate_dead(position)).margin
    black_margin = None if black_score is None else parse_score(black_score)
    white_margin = None if white_score is None else parse_score(white_score)
    referee_score = None
    if black_margin is not None and black_margin == white_margin:
        margin, decided_by = black_margin, "engines"
    else:
        referee_score = None if referee is None else _referee_score(referee, position, config)
        referee_margin = None if referee_score is None else parse_score(referee_score)
        margin, decided_by = (ours, "ours") if referee_margin is None else (referee_margin, "referee")
    winner = None if margin == 0 else players[BLACK if margin > 0 else WHITE].name
    return GameResult(number, players[BLACK].name, players[WHITE].name, winner, format_margin(margin), reason,
                      len(position.moves), black_score=black_score, white_score=white_score,
                      our_score=format_margin(ours), decided_by=decided_by, referee_score=referee_score)


def _lost(number: int, players: dict[int, MatchEngine], loser: int, reason: str, moves: int,
          detail: str = "") -> GameResult:
    """Return the result of a game ``loser`` lost by resignation, forfeit or timeout."""
    suffix = {"resignation": "R", "timeout": "T"}.get(reason, "F")
    return GameResult(number, players[BLACK].name, players[WHITE].name, players[-loser].name,
                      f"{SGF_COLOR[-loser]}+{suffix}", reason, moves, detail=detail)


def play_game(number: int, black: MatchEngine, white: MatchEngine, config: GameConfig,
              referee: MatchEngine | None = None) -> tuple[GameResult, GameRecord]:
    """Play game ``number`` and return its result and its record (RE and a comment set).

    ``referee`` counts the game when the players' ``final_score`` replies differ.
    Never raises for a misbehaving engine: that engine loses the game.
    """
    players = {BLACK: black, WHITE: white}
    record = GameRecord.new(config.size, config.komi, rules=config.rules,
                            black_player=black.command, white_player=white.command)
    position = Position(config.size, config.komi, superko=uses_superko(config.rules))
    try:
        for color, engine in players.items():
            _prepare(engine, color, config)
        reason = _play_moves(players, position, record, config.max_moves)
    except Forfeit as f:
        result = _lost(number, players, f.color, f.reason, len(position.moves), f.detail)
    else:
        if reason == "resignation":
            result = _lost(number, players, position.to_play, reason, len(position.moves))
        else:
            result = _scored(number, players, position, config, reason, referee)
    record.root.set("RE", result.result)
    record.root.set_comment(describe(result))
    return result, record


def describe(result: GameResult) -> str:
    """Return a multi-line account of a game: players, result, reason and every score."""
    lines = [
        f"Game {result.number}: {result.black} black, {result.white} white, {result.moves} moves",
        f"Result {result.result} ({result.reason}"
        + (f", decided by {result.decided_by}" if result.decided_by else "") + ")",
    ]
    if result.detail:
        lines.append(result.detail)
    if result.decided_by:
        lines.append(f"final_score: black engine {result.black_score}, white engine {result.white_score}, "
                     f"ours {result.our_score}"
                     + (f", referee {result.referee_score}" if result.referee_score else ""))
    return "\n".join(lines)


def save_sgf(record: GameRecord, directory: Path, number: int) -> Path:
    """Write the record as ``game-NNN.sgf`` in ``directory`` (created if needed) and return the path.

    Raises OSError if the file cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"game-{number:03d}.sgf"
    path.write_bytes(write_sgf(record))
    return path
