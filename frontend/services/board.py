"""What a board websocket can do, as plain sync functions the consumer calls in a thread.

Each function takes a game id, checks the request against the game's state, changes the game if
needed and returns the JSON message(s) to send.  They raise ValueError subclasses (GameError,
IllegalMoveError, CoordinateError, ProtocolError) with a message meant for the user.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from analysis.features import FEATURE_SETS, extract
from analysis.go.coords import to_gtp
from analysis.review.compare import SearchView
from analysis.review.query import PositionQuery
from analysis.sgf import GameRecord, replay
from analysis.sgf.tree import position_after
from frontend.models import Analysis, Game
from frontend.services import depth as depths
from frontend.services import engine, game_analysis, games, jobs, variations


@dataclass(frozen=True)
class Outcome:
    """The state to broadcast after a change, the move count to give the bot if it must reply, and
    whether the game changed (:func:`current` may end it on time)."""

    state: dict
    bot_expected_moves: int | None = None
    changed: bool = True


def _outcome(loaded: games.LoadedGame, changed: bool = True) -> Outcome:
    state = games.state(loaded)
    return Outcome(state, state["move_number"] if loaded.is_bot_turn else None, changed)


def _require_play(game: Game) -> None:
    if game.kind != Game.Kind.PLAY:
        raise games.GameError("this is a review board: moves are not played against the bot here")


def current(game_id: int) -> Outcome:
    """Return the game's state (and whether the bot owes a move, e.g. after a reload), after ending
    it on time if the player on the move has run out (a page asks when its clock shows zero)."""
    game = Game.objects.get(pk=game_id)
    settled = games.settle_clock(game)
    ended_now = settled.phase != game.phase  # ended on time just now
    return _outcome(games.load(settled, editable=False), changed=ended_now)


def _change(game_id: int, action: Callable[..., object], *args: object) -> Outcome:
    """Run ``action(loaded game, *args)`` on the locked game of a played game; return the outcome."""
    with games.locked(game_id) as loaded:
        _require_play(loaded.game)
        action(loaded, *args)
        return _outcome(loaded)


def human_move(game_id: int, move: str, address: str | None = None) -> Outcome:
    """Play the human's move (a GTP vertex or ``pass``) from client ``address``.

    Raises AddressCapReached, and plays nothing, when the move leaves the bot a reply that the
    address has no room to queue (:func:`request_bot_move`): the game would wait, the bot's clock
    running, until the page was reloaded.
    """
    def play(loaded: games.LoadedGame) -> None:
        games.play(loaded, loaded.game.human_color, move)
        if loaded.is_bot_turn:
            try:
                jobs.free_address_slots(address)
            except jobs.AddressCapReached as e:
                raise jobs.AddressCapReached(f"your move was not played, as the bot could not think about "
                                             f"its reply: {e}") from None

    return _change(game_id, play)


def undo(game_id: int) -> Outcome:
    """Take back the human's last move and the bot's reply."""
    return _change(game_id, games.undo)


def resign(game_id: int) -> Outcome:
    """The human resigns."""
    return _change(game_id, lambda loaded: games.resign(loaded, loaded.game.human_color))


def pause(game_id: int) -> Outcome:
    """Pause the clock on the human's turn."""
    return _change(game_id, games.pause)


def resume(game_id: int) -> Outcome:
    """Run the paused clock again."""
    return _change(game_id, games.resume)


def toggle_dead(game_id: int, point: str) -> Outcome:
    """Toggle the life of the string at ``point`` while scoring."""
    return _change(game_id, games.toggle_dead, point)


def accept_score(game_id: int) -> Outcome:
    """End the game with the current count."""
    return _change(game_id, games.accept_score)


def _check_move_number(record_moves: int, move_number: int) -> None:
    if not 0 <= move_number <= record_moves:
        raise games.GameError(f"move_number must be between 0 and {record_moves}, got {move_number}")


def position_query(
    game_id: int,
    move_number: int | None,
    ladders: bool,
    backpred: bool,
    network: str = "",
    backpred_network: str = "",
    ownership: bool = False,
    depth: str = depths.NORMAL,
    node: str = "",
) -> PositionQuery:
    """Return the query of the position after ``move_number`` moves (None: all the game's moves),
    or with ``node`` the variation's position it names (:func:`frontend.services.variations.parse_node`,
    echoed in the answer), searched to ``depth`` (:mod:`frontend.services.depth`) with the networks
    named (empty: the defaults), with the network's ownership map when ``ownership``.  A position
    that two passes ended is counted (with the dead stones the player marked, at the end of a game
    against the bot; the playouts' estimate of a variation's).

    Raises GameError for a move number out of range or an unknown depth, UnknownNetwork for a
    network not shipped (or not for this board size), VariationError for a bad node name and
    SgfError for a line with an illegal move.
    """
    visits = depths.visits(depth)
    game = Game.objects.get(pk=game_id)
    record = games.record_of(game)
    size = record.size
    network = engine.pick(network, size=size).name
    # a back-prediction network is named only for a back prediction asked for (any other is dropped)
    asked = backpred and backpred_network
    backpred_network = engine.pick(backpred_network, "previous", size).name if asked else ""
    moves = record.main_line_moves()
    if node:
        moves = _variation_line(record, node, game.rules)
        move_number = len(moves)
    if move_number is None:
        move_number = len(moves)
    _check_move_number(len(moves), move_number)
    ended = move_number == len(moves)
    setup = record.initial_setup()
    first = replay(record, upto=0).to_play  # PL, or the first move's colour, or a handicap's White
    return PositionQuery(
        size=size,
        komi=record.komi,
        rules=game.rules,
        visits=visits,
        initial_stones=[("B", to_gtp(p, size)) for p in setup.black]
        + [("W", to_gtp(p, size)) for p in setup.white],
        moves=[(games.color_letter(c), to_gtp(p, size)) for c, p in moves[:move_number]],
        move_number=move_number,
        ladders=ladders,
        backpred=backpred,
        ownership=ownership,
        network=network,
        backpred_network=backpred_network,
        count_ended=ended,  # two passes the record plays on from are searched
        dead=games.marked_dead(game) if ended and not node else None,
        node=node,
        initial_player=games.color_letter(first),
    )


def _variation_line(record: GameRecord, node: str, rules: str) -> list[tuple[int, int]]:
    """Return the moves of the variation named ``node``, checked legal from the game's start (a line
    the record need not hold: a shared review's viewer explores a copy).  Raises VariationError,
    SgfError for an illegal move."""
    line = variations.parse_node(node, record.size)
    position_after(record, line, rules)
    return line


def feature_plane(game_id: int, move_number: int, set_name: str, plane: str, node: str = "") -> dict:
    """Return one input plane of the position after ``move_number`` moves (or of the variation's
    position ``node`` names, echoed), by name."""
    if set_name not in FEATURE_SETS:
        raise games.GameError(f"unknown feature set {set_name!r}; known: {', '.join(FEATURE_SETS)}")
    planes = FEATURE_SETS[set_name].planes
    names = [p.name for p in planes]
    if plane not in names:
        raise games.GameError(f"feature set {set_name} has no plane {plane!r}")
    game = Game.objects.get(pk=game_id)
    record = games.record_of(game)
    index = names.index(plane)
    if node:
        line = variations.parse_node(node, record.size)
        position, move_number = position_after(record, line, game.rules), len(line)
    else:
        _check_move_number(len(record.main_line_moves()), move_number)
        position = replay(record, upto=move_number, rules=game.rules)
    values = extract(position, set_name)[index]
    info = planes[index]
    return {
        "type": "features",
        "move_number": move_number,
        "set": set_name,
        "plane": plane,
        "index": index,
        "description": info.description,
        "low": info.low,
        "high": info.high,
        "values": [round(float(v), 4) for v in values.ravel()],
        **({"node": node} if node else {}),
    }


def request_comparison(
    owner: str, a: str, b: str, address: str | None = None
) -> tuple[list[str], jobs.Ticket]:
    """Ask for the comparison of two next-move networks for ``owner`` at client ``address``; return
    the networks' names and the job's ticket (it takes one of ``owner``'s position-analysis slots,
    and one of the address's: :func:`frontend.services.jobs.request`).

    Raises UnknownNetwork for a network that is not shipped, GameError for the same one twice,
    CapReached when ``owner`` has as many position analyses queued or running as allowed.
    """
    names = [engine.pick(a).name, engine.pick(b).name]
    if names[0] == names[1]:
        raise games.GameError("choose two different networks to compare")
    payload = {"networks": names}
    return names, jobs.request(owner, jobs.Kind.POSITION, payload, replace=False, address=address)


def request_estimate(
    game_id: int, owner: str, move_number: int | None, address: str | None = None
) -> tuple[dict, jobs.Ticket]:
    """Ask for the score estimate of the position after ``move_number`` moves (None: now) for
    ``owner`` at client ``address``; return the query (JSON) and the job's ticket (one of
    ``owner``'s position slots, and one of the address's).

    Raises GameError for a bad move number, CapReached over the cap.
    """
    query = position_query(game_id, move_number, ladders=False, backpred=False).to_json()
    return query, jobs.request(owner, jobs.Kind.POSITION, query, replace=False, address=address)


def search_views(game_id: int) -> list[SearchView]:
    """Return the search's view of each position (its choice and the win rates of the moves it
    searched) from the game's latest whole-game analysis (as far as it went), or an empty list
    when there is none of the game as it stands."""
    game = Game.objects.get(pk=game_id)
    latest = game_analysis.latest_of(game, games.record_of(game), with_results=True)
    return [SearchView.of_entry(entry) for entry in latest.results] if latest is not None else []


def request_analysis(
    game_id: int, owner: str, reply_channel: str, move_number: int, address: str | None = None,
    **options: object,
) -> tuple[dict, jobs.Ticket]:
    """Ask for the analysis of the position after ``move_number`` moves for ``owner`` at client
    ``address``, answered on ``reply_channel``, with the ``options`` of :func:`position_query`;
    return the query (JSON) and the job's ticket (a request replacing ``owner``'s waiting one for
    this game needs no new task).

    Raises GameError for a bad move number, UnknownNetwork for a network not shipped, CapReached
    when ``owner`` (or the address) has as many position analyses (jobs) queued or running as allowed.
    """
    query = position_query(game_id, move_number, **options).to_json()
    ticket = jobs.request(owner, jobs.Kind.POSITION, query, game_id=game_id, reply_channel=reply_channel,
                          address=address)
    return query, ticket


def request_bot_move(game_id: int, expected_moves: int, address: str | None = None) -> jobs.Ticket | None:
    """Ask for the bot's move in a game with ``expected_moves`` moves, counted against the client
    ``address`` of its player too; return the job's ticket, or None when the game already has a move
    being thought about and one waiting (that one now asks for this move).

    Raises AddressCapReached when the address has as many jobs queued or running as allowed.
    """
    payload = {"expected_moves": expected_moves}
    try:
        return jobs.request(f"game:{game_id}", jobs.Kind.BOT, payload, game_id=game_id, address=address)
    except jobs.AddressCapReached as e:
        message = f"the bot cannot start thinking yet: {e}; then reload the page"
        raise jobs.AddressCapReached(message) from None
    except jobs.CapReached:
        return None


def start_game_analysis(
    game_id: int, owner: str | None = None, depth: str = depths.NORMAL, address: str | None = None
) -> tuple[int, int | None]:
    """Create an Analysis for the game, searching each position to ``depth``
    (:mod:`frontend.services.depth`), or resume the one cancelled (or failed) part of the way
    through at that depth, from its first missing position (:func:`resumable`); and, given an
    ``owner``, the job that counts it against their cap and their client ``address``'s; return
    (analysis id, job id or None).

    Raises GameError for an unknown depth or if an analysis of the game is already running,
    CapReached when ``owner`` (or the address) has as many whole-game analyses (jobs) queued or
    running as allowed.
    """
    visits = depths.visits(depth)
    game = Game.objects.get(pk=game_id)
    key = game_analysis.record_key(game, games.record_of(game))
    with transaction.atomic():  # first, on its own: an analysis of moves since undone or added
        active = game.analyses.filter(status__in=[Analysis.Status.PENDING, Analysis.Status.RUNNING])
        outdated = list(active.exclude(record_fingerprint=key).values_list("pk", flat=True))
        cancelled = {"status": Analysis.Status.CANCELLED, "cancel_requested": True}
        Analysis.objects.filter(pk__in=outdated).update(**cancelled)
        jobs.release_game_analyses(game_id, outdated)
    with transaction.atomic():
        if active.exists():
            raise games.GameError("an analysis of this game is already running")
        analysis = resumable(game, visits)
        if analysis is None:
            analysis = Analysis.objects.create(game=game, visits=visits, record_fingerprint=key)
        else:
            analysis.status, analysis.cancel_requested, analysis.error = Analysis.Status.PENDING, False, ""
            analysis.save(update_fields=["status", "cancel_requested", "error", "updated"])
        if owner is None:
            return analysis.pk, None
        payload = {"analysis": analysis.pk}
        ticket = jobs.request(owner, jobs.Kind.GAME, payload, game_id=game_id, replace=False,
                              address=address)
        return analysis.pk, ticket.job


def resumable(game: Game, visits: int) -> Analysis | None:
    """Return the game's latest analysis at ``visits`` a position that stopped part of the way
    through (cancelled, or failed) with some positions done, if it is of the game as it stands;
    else None."""
    stopped = game.analyses.filter(
        status__in=[Analysis.Status.CANCELLED, Analysis.Status.FAILED], visits=visits
    )
    latest = stopped.exclude(results=[]).first()
    record = games.record_of(game)
    if latest is None or not game_analysis.is_current(latest, game, record):
        return None
    return latest if len(latest.results) < len(record.main_line_moves()) + 1 else None


def started_message(analysis_id: int) -> dict:
    """Return the ``analysis_started`` message of an analysis: its id and the ``results`` it has
    already (those of a resumed one; the page keeps them)."""
    analysis = Analysis.objects.get(pk=analysis_id)
    return {"type": "analysis_started", "analysis": analysis.pk, "record": analysis.record_fingerprint,
            "results": analysis.results}


def cancel_game_analysis(game_id: int) -> int:
    """Ask the running analysis to stop; return its id."""
    active = Analysis.objects.filter(
        game_id=game_id, status__in=[Analysis.Status.PENDING, Analysis.Status.RUNNING]
    ).first()
    if active is None:
        raise games.GameError("no analysis of this game is running")
    active.cancel_requested = True
    active.save(update_fields=["cancel_requested", "updated"])
    return active.pk


def analysis_state(game_id: int) -> dict | None:
    """Return the latest analysis of the game as it stands as an ``analysis_state`` message, or None
    (none, or one of moves since undone or added)."""
    game = Game.objects.get(pk=game_id)
    latest = game_analysis.latest_of(game, games.record_of(game))
    return None if latest is None else game_analysis.state_message(latest)

