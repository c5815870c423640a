"""Game logic behind the play and review pages: create, move, undo, pass, resign, score.

The SGF text in :class:`~frontend.models.Game` is the record of the moves.  A request loads a game
once (:func:`load`, or :func:`locked` to change it): its record is parsed and replayed with the
rules engine a single time, and every function here works on that :class:`LoadedGame`, keeping its
record and position in step, so an illegal move can never be stored.  Functions that change a
game take the row locked by :func:`locked` and save it.
"""

from __future__ import annotations

import datetime
import re
import secrets
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from analysis.bot.settled import settlement
from analysis.go.coords import BLACK, WHITE, from_gtp, to_gtp, to_sgf
from analysis.go.handicap import fixed_handicap_points
from analysis.go.position import Position
from analysis.go.scoring import estimate_dead, owners_under, score
from analysis.play.clock import TimeControl
from analysis.review.analyze import game_positions
from analysis.review.ended import ended, territory_marks
from analysis.review.ended import marked_dead as ended_marks
from analysis.review.notes import without_analysis
from analysis.sgf import GameRecord, SgfLimits, replay, write_sgf
from analysis.version import NAME, version
from frontend.models import Game, other
from frontend.services import clock, parsed
from frontend.services.recent import Recent
from frontend.services.requester import Requester

GLYPHS = {BLACK: "X", WHITE: "O", 0: "."}
_GLYPH_BYTES = np.frombuffer("".join(GLYPHS[c] for c in (WHITE, 0, BLACK)).encode(), dtype=np.uint8)
COLORS = {"B": BLACK, "W": WHITE}
SGF_RULES = {  # the RU a new game's record names its rules with
    Game.Rules.CHINESE: "Chinese",
    Game.Rules.JAPANESE: "Japanese",
    Game.Rules.AGA: "AGA",
    Game.Rules.TROMP_TAYLOR: "Tromp-Taylor",
}


NO_CLOCK = TimeControl()
SETTLED_CACHE = 1024  # positions whose settledness a process keeps: a page asking its state again is free
_settled_boards: Recent[tuple[int, int, int], bool] = Recent(SETTLED_CACHE)
SHARE_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,32}")  # what new_share_token makes, in Game.share_token


class GameError(ValueError):
    """A request that the game's state does not allow (not your turn, game over...)."""


@dataclass
class LoadedGame:
    """A game row with its SGF record parsed and its current position replayed, once."""

    game: Game
    record: GameRecord
    position: Position

    @property
    def to_play(self) -> str:
        """``"B"`` or ``"W"``: whose turn it is."""
        return color_letter(self.position.to_play)

    @property
    def is_bot_turn(self) -> bool:
        """Whether the bot should move now in a played game."""
        game = self.game
        playing = game.kind == Game.Kind.PLAY and game.phase == Game.Phase.PLAYING
        return playing and self.to_play == game.bot_color


def color_letter(color: int) -> str:
    """Return ``"B"`` or ``"W"``."""
    return "B" if color == BLACK else "W"


def owned_game(game_id: int, requester: Requester) -> Game:
    """Return game ``game_id`` if ``requester`` owns it: its account for an account's game, its
    browser session for a game made without an account.

    Raises Game.DoesNotExist, or PermissionError when it belongs to someone else.
    """
    game = Game.objects.get(pk=game_id)
    if game.user_id is not None:
        if requester.user_id != game.user_id:
            raise PermissionError("this game belongs to another account")
    elif not requester.session_key or game.owner != requester.session_key:
        raise PermissionError("this game belongs to another session")
    return game


def new_share_token() -> str:
    """Return a new random share token: 22 characters of ``SHARE_TOKEN``'s alphabet."""
    return secrets.token_urlsafe(16)


def shared_game(token: str) -> Game:
    """Return the game whose review is shared with ``token``; raises Game.DoesNotExist, without asking
    the database, for a token that no share link can have (a NUL, which PostgreSQL refuses in a
    query; other bytes; too long)."""
    if not SHARE_TOKEN.fullmatch(token):
        raise Game.DoesNotExist("no such share token")
    return Game.objects.get(share_token=token)


def is_shared(game_id: int, token: str) -> bool:
    """Return whether game ``game_id`` is still shared with ``token`` (its link was not withdrawn)."""
    return Game.objects.filter(pk=game_id, share_token=token).exists()


def owned_by(requester: Requester) -> QuerySet[Game]:
    """Return the requester's games: its account's when signed in, else its session's."""
    if requester.user_id is not None:
        return Game.objects.filter(user_id=requester.user_id)
    if not requester.session_key:
        return Game.objects.none()
    return Game.objects.filter(user=None, owner=requester.session_key)


def record_limits() -> SgfLimits:
    """Return the bounds of a game's record, uploaded, pasted or grown by its variations:
    ``GOWEB_MAX_SGF_NODES``, ``GOWEB_MAX_SGF_VALUES``, ``GOWEB_MAX_GAME_MOVES``,
    ``GOWEB_MAX_PASSES_IN_A_ROW`` and ``GOWEB_MAX_SGF_POINTS``."""
    return SgfLimits(nodes=settings.GOWEB_MAX_SGF_NODES, values=settings.GOWEB_MAX_SGF_VALUES,
                     moves=settings.GOWEB_MAX_GAME_MOVES, passes_in_a_row=settings.GOWEB_MAX_PASSES_IN_A_ROW,
                     points=settings.GOWEB_MAX_SGF_POINTS)


def shown_text(text: str | None, limit: int) -> str:
    """Return a record's text (a player's name, a result) as the site stores and shows it: without
    control and format characters (bidirectional overrides, zero-width spaces, which could disguise
    it), each run of white space one space, stripped, at most ``limit`` characters."""
    kept = "".join(c for c in text or "" if unicodedata.category(c) not in ("Cc", "Cf") or c.isspace())
    return " ".join(kept.split())[:limit]


def record_of(game: Game) -> GameRecord:
    """Return the game's SGF record parsed from the row, to read only: it is shared with the other
    readers of the same text (:mod:`frontend.services.parsed`).  Raises SgfError for a bad record."""
    return parsed.record(game.pk, game.sgf)


def editable_record(game: Game) -> GameRecord:
    """Return a copy of the game's SGF record of the caller's own, to change.  Raises SgfError for a
    bad record."""
    return record_of(game).copy()


def handicap_bonus(game: Game, record: GameRecord | None = None) -> float:
    """Return the points White gets at the count for the game's handicap stones under its rules: the
    komi its positions count with less the record's (:func:`analysis.go.ruled.counted_komi`: four
    for four stones under Chinese rules, none under Japanese), Black's opening moves before White's
    first included.  ``record`` is the game's, parsed (None: parse it).  Raises SgfError for a bad
    record."""
    record = record_of(game) if record is None else record
    moves = record.main_line_moves()
    opening = next((k for k, (color, _) in enumerate(moves) if color != BLACK), len(moves))
    return replay(record, upto=opening, rules=game.rules).komi - record.komi  # the handicap is there


def load(game: Game, editable: bool = True) -> LoadedGame:
    """Return ``game`` with its record parsed and replayed under its rules (ko rule, handicap bonus):
    a record of its own when ``editable``, else the shared one, to read only (:func:`record_of`)."""
    record = editable_record(game) if editable else record_of(game)
    return LoadedGame(game, record, replay(record, rules=game.rules))


@contextmanager
def locked(game_id: int) -> Iterator[LoadedGame]:
    """Yield the game loaded from its row locked for update inside a transaction."""
    with transaction.atomic():
        yield load(Game.objects.select_for_update().get(pk=game_id))


@contextmanager
def locked_reload(loaded: LoadedGame) -> Iterator[LoadedGame]:
    """Yield ``loaded``'s game from its row locked for update inside a transaction, reusing
    ``loaded``'s parsed record and position when the stored record has not changed since."""
    with transaction.atomic():
        row = Game.objects.select_for_update().get(pk=loaded.game.pk)
        yield LoadedGame(row, loaded.record, loaded.position) if row.sgf == loaded.game.sgf else load(row)


def new_game(
    owner: str,
    *,
    size: int,
    handicap: int,
    komi: float,
    rules: str,
    bot_level: str,
    human_color: str,
    user_id: int | None = None,
    time_control: TimeControl = NO_CLOCK,
    player: str = "You",
) -> Game:
    """Create and return a game against the bot, with fixed handicap stones placed, made by the
    session ``owner`` and belonging to the account ``user_id`` when one is signed in, its clock
    (``time_control``) running for the first player.  The record names the human ``player`` (the
    account's name, when there is one) and the bot, and holds the day (``DT``) and the program
    (``AP``), as OGS's and KGS's records do.

    Raises HandicapError for a handicap that does not fit the board.
    """
    bot = f"Bot ({bot_level})"
    human = player[: Game._meta.get_field("black_player").max_length]
    black, white = (human, bot) if human_color == "B" else (bot, human)
    record = GameRecord.new(
        size, komi, handicap=handicap, rules=SGF_RULES[rules], black_player=black, white_player=white
    )
    record.root.set("DT", datetime.date.today().isoformat())
    record.root.set("AP", f"{NAME}:{version()}")
    if handicap >= 2:
        stones = fixed_handicap_points(size, handicap)
        record.root.set("AB", [to_sgf(p, size) for p in stones])
        record.root.set("PL", "W")
    if time_control.timed:
        record.root.set("TM", str(time_control.main))
        if time_control.overtime():
            record.root.set("OT", time_control.overtime())
    game = Game(
        time_system=time_control.system,
        time_main=time_control.main,
        time_period=time_control.period,
        time_periods=time_control.periods,
        owner=owner,
        user_id=user_id,
        kind=Game.Kind.PLAY,
        sgf=write_sgf(record).decode(),
        black_player=black,
        white_player=white,
        size=size,
        handicap=handicap,
        komi=komi,
        rules=rules,
        bot_level=bot_level,
        human_color=human_color,
    )
    clock.start(game, "W" if handicap >= 2 else "B", time.time())
    game.save()
    return game


def _save_record(loaded: LoadedGame) -> None:
    loaded.game.sgf = write_sgf(loaded.record).decode()
    loaded.game.save()


def play(loaded: LoadedGame, color: str, vertex: str, now: float | None = None) -> bool:
    """Play ``vertex`` (GTP, or ``pass``) for ``color`` at ``now`` (Unix time, None: now) and
    save, its time charged to ``color``'s clock; two passes start the scoring, and so does the
    last move a record may hold (:func:`record_limits`: its SGF would not upload again).  Return
    True, or False for a move made after ``color``'s time ran out: it is not played, ``color``
    loses on time.

    Raises GameError when the game is over, paused or it is not ``color``'s turn, CoordinateError
    for a bad vertex and IllegalMoveError (with the reason) for an illegal move.
    """
    game, position = loaded.game, loaded.position
    if game.phase != Game.Phase.PLAYING:
        over = game.phase == Game.Phase.FINISHED
        raise GameError("the game is over" if over else "the game is being scored")
    _require_running(game, "play")
    if loaded.to_play != color:
        raise GameError(f"it is {'black' if position.to_play == BLACK else 'white'}'s turn")
    point = from_gtp(vertex, game.size)
    if not clock.charge(game, color, time.time() if now is None else now):
        _lose_on_time(loaded, color)
        return False
    position.play(point)
    node = loaded.record.add_move(COLORS[color], point)
    for ident, value in clock.sgf_time_left(game, color).items():
        node.set(ident, value)
    most = record_limits().moves
    if ended(position) or (most is not None and len(position.moves) >= most):
        game.phase = Game.Phase.SCORING
        game.dead = [to_gtp(p, game.size) for p in sorted(estimate_dead(position))]
        clock.stop(game)
    _save_record(loaded)
    return True


def _require_running(game: Game, action: str) -> None:
    """Raise GameError if the game's clock is paused: nothing but resuming or resigning is done then."""
    if clock.paused(game):
        raise GameError(f"the game is paused: resume the clock to {action}")


def pause(loaded: LoadedGame) -> None:
    """Pause the clock on the human's turn (the player stepping away), and save.

    Raises GameError for a game without a clock, not in play, already paused, or on the bot's turn;
    a player already out of time loses on time instead.
    """
    game = loaded.game
    if not game.time_control.timed:
        raise GameError("this game has no clock to pause")
    if game.phase != Game.Phase.PLAYING:
        raise GameError("only a game in play can be paused")
    if clock.paused(game):
        raise GameError("the clock is already paused")
    if loaded.to_play != game.human_color:
        raise GameError("the clock can be paused on your turn only, not while the bot thinks")
    now = time.time()
    if not flag_if_out_of_time(loaded, now):
        clock.pause(game, now)
        game.save()


def resume(loaded: LoadedGame) -> None:
    """Run the paused clock again, and save; raises GameError if the game is not paused."""
    game = loaded.game
    if not clock.paused(game):
        raise GameError("the game is not paused")
    clock.resume(game, time.time())
    game.save()


def flag_if_out_of_time(loaded: LoadedGame, now: float | None = None) -> bool:
    """End the game on time if the player whose clock runs has run out by ``now`` (None: now);
    return whether it did."""
    game = loaded.game
    out = clock.expired(game, time.time() if now is None else now)
    if game.phase != Game.Phase.PLAYING or out is None:
        return False
    _lose_on_time(loaded, out)
    return True


def _lose_on_time(loaded: LoadedGame, color: str) -> None:
    clock.run_out(loaded.game, color)
    _finish(loaded, f"{other(color)}+T")


def settle_clock(game: Game) -> Game:
    """Return ``game`` (reloaded if it changed) after ending it on time if the player whose clock
    runs has run out: a game nobody has opened since then lists and downloads with its result."""
    if game.phase != Game.Phase.PLAYING or clock.expired(game, time.time()) is None:
        return game
    try:
        with locked(game.pk) as loaded:
            flag_if_out_of_time(loaded)
            return loaded.game
    except Game.DoesNotExist:  # deleted meanwhile
        return game


def undo(loaded: LoadedGame) -> int:
    """Take back the human's last move and the bot's reply to it; return how many moves went (0 if
    the player on the move had run out of time: the game ends on time instead).

    The human's turn, if it is on the move, is charged as a move (but earns no increment), and the
    increment its move taken back earned is taken back; the bot gets back the time its reply took;
    the human's clock runs again.
    Raises GameError when the game is finished or paused, or the human has not moved yet.
    """
    game = loaded.game
    if game.phase == Game.Phase.FINISHED:
        raise GameError("the game is finished; nothing can be undone")
    _require_running(game, "undo")
    nodes = [node for node in loaded.record.main_line() if node.has_move()]
    human = COLORS[game.human_color]
    if not any(node.move(game.size)[0] == human for node in nodes):
        raise GameError("you have no move to take back")
    now = time.time()
    if flag_if_out_of_time(loaded, now):
        return 0
    turn = clock.elapsed(game, now) if loaded.to_play == game.human_color else 0.0
    if turn:
        clock.charge(game, game.human_color, now, moved=False)
    removed = 0
    while True:
        node = nodes.pop()
        node.path()[-2].children.remove(node)
        loaded.position.undo()
        removed += 1
        if node.move(game.size)[0] == human:
            break
    game.phase = Game.Phase.PLAYING
    game.dead = []
    clock.take_back(game, game.human_color, loaded.record, turn)
    clock.restore(game, game.bot_color, loaded.record)
    clock.restart(game, game.human_color, now)
    _save_record(loaded)
    return removed


def resign(loaded: LoadedGame, color: str) -> None:
    """Record ``color``'s resignation (unless the player on the move had already run out of time:
    the game ends on time)."""
    game = loaded.game
    if game.phase == Game.Phase.FINISHED:
        raise GameError("the game is already finished")
    if not flag_if_out_of_time(loaded):
        _finish(loaded, f"{other(color)}+R")


def _finish(loaded: LoadedGame, result: str) -> None:
    """End the game with ``result`` (SGF RE), its clocks stopped, and save."""
    game = loaded.game
    game.result = result
    loaded.record.root.set("RE", result)
    game.phase = Game.Phase.FINISHED
    clock.stop(game)
    _save_record(loaded)


def toggle_dead(loaded: LoadedGame, vertex: str) -> None:
    """Mark the string at ``vertex`` dead, or alive again if it was marked dead (scoring phase)."""
    game = loaded.game
    if game.phase != Game.Phase.SCORING:
        raise GameError("dead stones can only be marked after both players pass")
    point = from_gtp(vertex, game.size)
    string = loaded.position.string(point)
    if not string:
        raise GameError(f"there is no stone at {vertex}")
    dead = {from_gtp(v, game.size) for v in game.dead}
    dead = dead - set(string) if point in dead else dead | set(string)
    game.dead = [to_gtp(p, game.size) for p in sorted(dead)]
    game.save()


def marked_dead(game: Game) -> list[str] | None:
    """Return the stones (GTP) the player marked dead in a game against the bot, while scoring or
    after its counted end, or those an uploaded record's territory marks make dead; None during
    play, after a resignation or a loss on time, and for an uploaded game without marks.

    Raises SgfError for an uploaded record's malformed marks."""
    if game.kind == Game.Kind.REVIEW:
        record = record_of(game)
        dead = ended_marks(replay(record, rules=game.rules), list(record.main_line())[-1])
        return None if dead is None else [to_gtp(p, game.size) for p in sorted(dead)]
    uncounted = game.result.endswith(("+R", "+T"))
    if game.phase == Game.Phase.PLAYING or uncounted:
        return None
    return list(game.dead)


def marked_dead_points(game: Game) -> list[int] | None:
    """Return :func:`marked_dead` as points (None stays None)."""
    marked = marked_dead(game)
    return None if marked is None else [from_gtp(v, game.size) for v in marked]


def current_score(loaded: LoadedGame) -> dict | None:
    """Return the count with the marked dead stones while scoring or after a counted end of a game
    against the bot (None otherwise)."""
    game = loaded.game
    if game.kind != Game.Kind.PLAY:
        return None
    dead = marked_dead_points(game)
    if dead is None:
        return None
    counted = score(loaded.position, game.rules, dead)
    komi = loaded.record.komi
    return {"black": counted.black, "white": counted.white, "result": counted.result(), "kind": counted.kind,
            "komi": komi, "handicap_bonus": loaded.position.komi - komi}


def accept_score(loaded: LoadedGame) -> None:
    """End the game with the current count as its result, and its territory marks (TB/TW, the
    dead stones on them) on the last node, so that the record counts alike wherever it goes."""
    game = loaded.game
    if game.phase == Game.Phase.FINISHED:
        raise GameError(f"the game is over already: {game.result}")
    counted = current_score(loaded)
    if counted is None or game.phase != Game.Phase.SCORING:
        raise GameError("there is no count to accept: both players must pass first")
    last = list(loaded.record.main_line())[-1]
    for mark, points in territory_marks(loaded.position, marked_dead_points(game)).items():
        last.set(mark, points)
    _finish(loaded, counted["result"])


def board_string(position: Position) -> str:
    """Return the board as one string of ``.XO``, row-major from the top left."""
    return _glyphs(position.stones())


def _glyphs(colors: np.ndarray) -> str:
    """Return an int8 array of colours (-1, 0, 1) as one string of ``O.X``, row-major."""
    return _GLYPH_BYTES[colors.ravel() + 1].tobytes().decode("ascii")


def counted_owners(loaded: LoadedGame) -> str | None:
    """Return the owner of every point by the count that :func:`current_score` makes (``X``,
    ``O``, ``.`` for dame and seki, the eyes of a seki too under territory rules; the marked dead
    stones' points go to the other side), row-major:
    while scoring and after a counted end of a game against the bot; None otherwise."""
    if loaded.game.kind != Game.Kind.PLAY:
        return None
    dead = marked_dead_points(loaded.game)
    return None if dead is None else _glyphs(owners_under(loaded.position, loaded.game.rules, dead))


def settled_for_the_human(loaded: LoadedGame) -> bool | None:
    """Return whether the board is settled (:mod:`analysis.bot.settled`, by its playouts), for the
    play page to ask before the human passes on an open board: on the human's turn while playing,
    else None."""
    game = loaded.game
    if game.kind != Game.Kind.PLAY or game.phase != Game.Phase.PLAYING or loaded.is_bot_turn:
        return None
    position = loaded.position
    key = (position.size, position.hash, position.to_play)
    # 200 playouts: about 40 ms on an open 19x19 board
    return _settled_boards.get(key, lambda: settlement(position).settled)


def state(loaded: LoadedGame) -> dict:
    """Return the JSON state message that the board pages render (see ``docs/protocol.md``)."""
    game, position = loaded.game, loaded.position
    size = game.size
    last = position.last_move
    return {
        "type": "state",
        "game": game.pk,
        "kind": game.kind,
        "size": size,
        "komi": game.komi,
        "rules": game.rules,
        "handicap": game.handicap,
        "human_color": game.human_color,
        "bot_level": game.bot_level,
        "phase": game.phase,
        "result": game.result,
        "to_play": loaded.to_play,
        "move_number": len(position.moves),
        "moves": [[color_letter(m.color), to_gtp(m.point, size)] for m in position.moves],
        "board": board_string(position),
        "last_move": None if last is None else to_gtp(last.point, size),
        "captures": {"B": position.prisoners(BLACK), "W": position.prisoners(WHITE)},
        "dead": game.dead,
        "score": current_score(loaded),
        "owners": counted_owners(loaded),
        "settled": settled_for_the_human(loaded),
        "clock": clock.state(game, time.time()),
    }


def timeline(record: GameRecord) -> dict:
    """Return the main line for the review page: moves, the board after each (``boards[k]``), the
    record's comments on the position after k moves (``comments[k]``, "" for none; a node without
    a move adds to the position before it), ``variations``: how many alternative lines branch
    off the main line (the review page's game tree shows them), and ``total_moves``.

    A page holds at most ``GOWEB_MAX_GAME_MOVES`` moves (a record stored before the site bounded
    them may have more: the review shows its first ones), and the replay plays one position
    forward, so a page costs time and bytes in proportion to the moves shown.
    Raises SgfError (kind ``illegal_move``, naming the move) if the record cannot be replayed.
    """
    shown = settings.GOWEB_MAX_GAME_MOVES
    boards, moves = [], []
    size = record.size
    for position, next_move in game_positions(record, copies=False):
        boards.append(board_string(position))
        if next_move is None or len(moves) == shown:
            break
        moves.append([color_letter(next_move[0]), to_gtp(next_move[1], size)])
    comments = [""] * len(boards)
    variations, total = 0, 0
    for node in record.main_line():
        total += node.has_move()
        if total <= shown and (comment := without_analysis(node.comment)):  # the players', not ours
            comments[total] = f"{comments[total]}\n\n{comment}" if comments[total] else comment
        variations += max(0, len(node.children) - 1)
    return {"size": size, "komi": record.komi, "moves": moves, "boards": boards, "comments": comments,
            "variations": variations, "total_moves": total}
