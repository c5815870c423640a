"""Celery tasks of the web site: the bot's move, position analysis, the score estimate and
whole-game analysis.

Arguments and results are plain JSON.  Results reach the browser through the channel layer
(:mod:`frontend.services.notify`), so the same code serves Celery workers and the embedded
in-process mode (:mod:`frontend.services.dispatch`).  Networks are loaded once per process
that runs tasks (:mod:`frontend.services.engine`).

Every task is acknowledged late: a worker that dies leaves its message to the broker, which
hands it to another worker (after ``GOWEB_TASK_VISIBILITY_TIMEOUT`` with Redis).  A whole-game
analysis runs ``GOWEB_REVIEW_CHUNK`` positions per message and saves them before queueing the
rest, so a redelivered message resumes where the last saved chunk ended.

Each task goes to the queue of its kind of work (``CELERY_TASK_ROUTES``: ``play``, ``analysis``,
``review``).  Given a ``job`` (:mod:`frontend.services.jobs`), a task runs the job's newest request
and frees its slot when it ends; a job that is gone (withdrawn, or forgotten as lost) is skipped.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from celery import shared_task
from celery.signals import worker_process_init, worker_ready, worker_shutdown
from django.conf import settings
from django.db import OperationalError

from analysis.go.coords import to_gtp
from analysis.go.position import Position
from analysis.review import compare
from analysis.review.analyze import answer_query
from analysis.review.estimate import estimate
from analysis.review.query import PositionQuery
from analysis.review.timing import PartTimes, chunk_line
from frontend.heartbeat import Heartbeat
from frontend.models import Game, Job
from frontend.services import board, clock, engine, game_analysis, games, jobs, notify

chunk_log = logging.getLogger("frontend.tasks.chunks")

REPLY_ROUNDS = 8  # times one bot-move task thinks, when the game changes under it
# Tasks that survive a worker's death (acknowledged after they run, requeued when the worker
# is lost) and retry a few times when the database is briefly unreachable.
DURABLE = {
    "bind": True,
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "max_retries": 3,
}


@worker_process_init.connect
def _load_networks(**kwargs: object) -> None:
    """Load the network when a worker process starts (and choose its precision on a 19x19 batch),
    so that the first task does not wait for it."""
    engine.evaluator().evaluate([Position(19)])


@worker_process_init.connect
def _take_niceness(**kwargs: object) -> None:
    """Lower this worker's CPU priority by ``GOWEB_WORKER_NICE`` (analysis workers yield the cores
    they share to the bot's)."""
    if settings.GOWEB_WORKER_NICE > 0:
        os.nice(settings.GOWEB_WORKER_NICE)


_heartbeats: list[Heartbeat] = []  # this worker's heartbeat while it runs


@worker_ready.connect
def _start_heartbeat(**kwargs: object) -> None:
    """Start touching ``GOWEB_WORKER_HEARTBEAT_FILE`` from a thread of its own, which beats while a
    solo worker runs a long task (:mod:`frontend.heartbeat`, the compose file's health check)."""
    path = settings.GOWEB_WORKER_HEARTBEAT_FILE
    if path:
        _heartbeats.append(Heartbeat(Path(path), settings.GOWEB_WORKER_HEARTBEAT_INTERVAL).start())


@worker_shutdown.connect
def _stop_heartbeat(**kwargs: object) -> None:
    """Stop the heartbeat and remove its file: a stopped worker leaves no fresh beat behind."""
    while _heartbeats:
        _heartbeats.pop().stop()


class Withdrawn(Exception):
    """The task's job is gone: its request was withdrawn or forgotten as lost."""


@contextmanager
def _holding(job_id: int | None) -> Iterator[Job | None]:
    """Yield the claimed job (None for a task without one) and free its slot when the task ends,
    unless a database error has the task retried.  Raises Withdrawn when the job is gone."""
    if job_id is None:
        yield None
        return
    job = jobs.claim(job_id)
    if job is None:
        raise Withdrawn
    try:
        yield job
    except OperationalError:
        raise
    except BaseException:
        jobs.release(job_id)
        raise
    jobs.release(job_id)


@shared_task(**DURABLE)
def bot_move(self, game_id: int, expected_moves: int, job: int | None = None) -> dict:
    """Play the bot's move in game ``game_id`` if it still has ``expected_moves`` moves (the job's
    newest request, given one); broadcast the state.

    Returns ``{"move": GTP or "resign"}``, ``{"lost": "on time"}`` when the bot's clock ran out
    before its move was made (the game ends on time), or ``{"skipped": reason}`` when the game moved on
    meanwhile (the human undid, resigned, or another task already replied: any change of the
    record, even one that keeps the number of moves) or the job is gone.
    The game is loaded once: the record read under the lock is reused when it has not changed
    while the bot thought.  If the bot fails (not the database, whose errors are retried), the
    game's pages get an ``error`` message saying so and the exception propagates.
    """
    try:
        with _holding(job) as held:
            return _bot_move(game_id, held.payload["expected_moves"] if held else expected_moves)
    except Withdrawn:
        return {"skipped": "the request was withdrawn"}
    except OperationalError:
        raise
    except Exception as exc:
        notify.to_group(game_id, {"type": "error", "message": f"the bot could not move ({exc!r}): take "
                                  "your move back, or reload the page to ask it again"})
        raise


def _bot_move(game_id: int, expected_moves: int) -> dict:
    """Play the bot's move at ``expected_moves``; when the game changed meanwhile and the bot owes
    a move that no waiting job will make (:func:`_move_owed`), think again on the game as it is,
    up to :data:`REPLY_ROUNDS` times: the page's requests may all have found the game's bot jobs
    running, about positions undone since."""
    outcome = _reply(game_id, expected_moves)
    for _ in range(REPLY_ROUNDS - 1):
        if "skipped" not in outcome or (owed := _move_owed(game_id)) is None:
            break
        outcome = _reply(game_id, owed)
    return outcome


def _move_owed(game_id: int) -> int | None:
    """Return the number of moves of game ``game_id`` when the bot owes a move
    (:func:`frontend.services.board.current`, which a reload asks too) and no waiting bot job will
    make it, else None (a deleted game too)."""
    if Job.objects.filter(game_id=game_id, kind=Job.Kind.BOT, state=Job.State.PENDING).exists():
        return None
    try:
        return board.current(game_id).bot_expected_moves
    except Game.DoesNotExist:
        return None


def _reply(game_id: int, expected_moves: int) -> dict:
    loaded = games.load(Game.objects.get(pk=game_id))
    if len(loaded.position.moves) != expected_moves or not loaded.is_bot_turn:
        return {"skipped": "the game changed since the move was requested"}
    if clock.expired(loaded.game, time.time()):  # the queue took its time
        notify.to_group(game_id, board.current(game_id).state)
        return {"lost": "on time"}
    bot, thinking = engine.bot(game_id, loaded.game.bot_level, loaded.position.size)
    with thinking:
        seconds = clock.bot_seconds(loaded.game, loaded.to_play, expected_moves, time.time())
        decision = bot.choose(loaded.position, seconds)
    with games.locked_reload(loaded) as current:
        # any change of the record: an undo and another move keep the number of moves
        if current.game.sgf != loaded.game.sgf or not current.is_bot_turn:
            return {"skipped": "the game changed while the bot was thinking"}
        bot_color = current.game.bot_color
        if decision.move is None:
            move = "resign"
            games.resign(current, bot_color)
            played = current.game.result.endswith("+R")  # not when its time had run out first
        else:
            move = to_gtp(decision.move, current.game.size)
            played = games.play(current, bot_color, move)
        message = {**games.state(current), "bot_move": move} if played else games.state(current)
    notify.to_group(game_id, message)
    return {"move": move} if played else {"lost": "on time"}


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2)
def analyze_position(self, query: dict, reply_channel: str | None = None, job: int | None = None) -> dict:
    """Search one position and return (and send to ``reply_channel``) an ``analysis`` message.

    ``query`` is a :class:`~analysis.review.query.PositionQuery` as JSON; given a job, the job's
    newest query and reply channel are used instead (``{"skipped": reason}`` when it is gone), and
    its slot is free before the answer goes out.  If the analysis fails, ``reply_channel`` gets an
    ``error`` message and the exception propagates.
    """
    try:
        with _holding(job) as held:
            if held is not None:
                query, reply_channel = held.payload, held.reply_channel or reply_channel
            result = _analyze_position(query)
    except Withdrawn:
        return {"skipped": "the request was withdrawn"}
    except Exception as exc:
        if reply_channel:
            notify.to_channel(reply_channel, {"type": "error", "message": f"analysis failed: {exc}"})
        raise
    if reply_channel:
        notify.to_channel(reply_channel, result)
    return result


def _analyze_position(query: dict) -> dict:
    parsed = PositionQuery.from_json(query)
    search = engine.pick(parsed.network, "search", parsed.size)
    backpred = None
    if parsed.backpred and engine.zoo().names("previous", parsed.size):
        backpred = engine.network(parsed.backpred_network, "previous", parsed.size)
    # a network without a value head gives the candidates; the search's default the win rates
    policy_net = engine.network(parsed.network, size=parsed.size) if search.asked else None
    result = answer_query(parsed, engine.evaluator(search.name, size=parsed.size), policy_net, backpred)
    result["network"] = engine.pick(parsed.network, size=parsed.size).name
    return result


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2)
def estimate_position(self, query: dict, reply_channel: str, job: int | None = None) -> dict:
    """Estimate the score of one position with the network alone (no search) and return (and send
    to ``reply_channel``) an ``estimate`` message (:func:`analysis.review.estimate.estimate`).

    ``query`` is a :class:`~analysis.review.query.PositionQuery` as JSON: only its position and
    network count.  ``job`` is the slot it holds until it ends.  If the estimate fails,
    ``reply_channel`` gets an ``error`` message and the exception propagates.
    """
    try:
        with _holding(job):
            parsed = PositionQuery.from_json(query)
            name = engine.pick(parsed.network, size=parsed.size).name
            result = estimate(engine.network(name), parsed.position(), name, parsed.rules)
    except Withdrawn:
        return {"skipped": "the request was withdrawn"}
    except Exception as exc:
        notify.to_channel(reply_channel, {"type": "error", "message": f"estimate failed: {exc}"})
        raise
    message = {"type": "estimate", "move_number": parsed.move_number, "network": name, **result}
    notify.to_channel(reply_channel, message)
    return message


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2)
def compare_networks(
    self, game_id: int, names: list[str], reply_channel: str, job: int | None = None
) -> dict:
    """Compare the next-move networks ``names`` on game ``game_id`` and send ``reply_channel`` a
    ``comparison`` message (:func:`analysis.review.compare.compare_networks`, with the search's
    choices of the game's latest whole-game analysis).  ``job`` is the slot it holds until it
    ends.  A failure sends an ``error`` message and propagates.
    """
    try:
        with _holding(job):
            loaded = Game.objects.get(pk=game_id)
            networks = {name: engine.network(name) for name in names}
            result = compare.compare_networks(
                games.record_of(loaded), networks, loaded.rules, board.search_views(game_id)
            )
    except Withdrawn:
        return {"skipped": "the request was withdrawn"}
    except Exception as exc:
        notify.to_channel(reply_channel, {"type": "error", "message": f"comparison failed: {exc}"})
        raise
    message = {"type": "comparison", **result}
    notify.to_channel(reply_channel, message)
    return {"networks": names, "positions": len(result["positions"])}


@shared_task(**DURABLE)
def analyze_game(self, analysis_id: int, job: int | None = None, queued_at: float | None = None) -> dict:
    """Analyse a game's positions ``GOWEB_REVIEW_CHUNK`` at a time, each with the analysis's visits,
    streaming ``progress`` to its board.

    On a worker each message runs one chunk, then queues the next one as a new message (with the
    same job, whose slot stays taken until the analysis ends); in-process (eager) the chunks run
    one after the other.  Returns the last chunk's outcome (``status`` and ``done``).  A failure
    other than a database error marks the analysis failed, tells the board and propagates.
    ``queued_at`` is when the message was queued (``time.time()``): each chunk logs where its time
    went (:func:`_log_chunk`).
    """
    while True:
        times, began = PartTimes(), time.time()
        with times.part("claim"):
            claimed = job is None or jobs.claim(job) is not None  # a sign of life for each chunk
        if not claimed:
            return {"skipped": "the request was withdrawn"}
        try:
            review = engine.evaluator(role="review")
            outcome = game_analysis.run_chunk(analysis_id, review, settings.GOWEB_REVIEW_CHUNK, times)
        except OperationalError:
            raise
        except Exception as exc:
            game_analysis.fail(analysis_id, exc)
            if job is not None:
                jobs.release(job)
            raise
        if not outcome.more:
            with times.part("announce"):
                if job is not None:
                    jobs.release(job)
                outcome.announce()
        elif not self.request.is_eager:
            with times.part("enqueue"):
                analyze_game.apply_async(args=(analysis_id, job, time.time()))
        _log_chunk(analysis_id, outcome, times, queued_at, began)
        if not outcome.more or not self.request.is_eager:
            return outcome.as_json()
        queued_at = time.time()


def _log_chunk(
    analysis_id: int, outcome: game_analysis.ChunkOutcome, times: PartTimes, queued: float | None,
    began: float,
) -> None:
    """Log (``frontend.tasks.chunks``, INFO) one chunk's timing (:func:`analysis.review.timing.chunk_line`):
    the analysis, positions ``done`` after it, this process, when it was ``queued``, when it
    ``began`` and ``ended`` (``time.time()``), and the seconds of its ``parts``."""
    record = {"analysis": analysis_id, "done": outcome.done, "pid": os.getpid(), "queued": queued,
              "began": began, "ended": time.time(), "parts": times.as_json()}
    chunk_log.info("%s", chunk_line(record))
