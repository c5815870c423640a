"""Celery tasks of the web site: the bot's move, position analysis and whole-game analysis.

Arguments and results are plain JSON.  Results reach the browser through the channel layer
(:mod:`frontend.services.notify`), so the same code serves Celery workers and the embedded
in-process mode (:mod:`frontend.services.dispatch`).  Networks are loaded once per process
(:mod:`analysis.review.networks`), and torch uses ``GOWEB_TORCH_THREADS`` threads in it.

Every task is acknowledged late: a worker that dies leaves its message to the broker, which
hands it to another worker (after ``GOWEB_TASK_VISIBILITY_TIMEOUT`` with Redis).  A whole-game
analysis runs ``GOWEB_REVIEW_CHUNK`` positions per message and saves them before queueing the
rest, so a redelivered message resumes where the last saved chunk ended.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

import torch
from celery import shared_task
from celery.signals import worker_process_init
from django.conf import settings
from django.db import OperationalError

from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.go.coords import to_gtp
from analysis.review import analyze as review
from analysis.review import networks
from analysis.tactics import ladder
from frontend.models import Game
from frontend.services import game_analysis, games, notify

MAX_BOTS = 64
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

_bots: OrderedDict[tuple[int, str], tuple[Bot, threading.Lock]] = OrderedDict()
_bots_lock = threading.Lock()


@functools.cache
def _limit_torch_threads(threads: int) -> None:
    """Let torch use ``threads`` threads in this process (set once)."""
    torch.set_num_threads(threads)


def _evaluator() -> networks.LockedEvaluator:
    """Return this process's search evaluator."""
    _limit_torch_threads(settings.GOWEB_TORCH_THREADS)
    return networks.search_evaluator(settings.GOWEB_WEIGHTS)


@worker_process_init.connect
def _load_networks(**kwargs: object) -> None:
    """Load the network when a worker process starts (and choose its precision on a 19x19 batch),
    so that the first task does not wait for it."""
    _evaluator().evaluate([review.build_position(19, 7.5)])


def _bot(game_id: int, level: str) -> tuple[Bot, threading.Lock]:
    """Return this process's bot for a game (it keeps its win rates, to resign, and its search tree)
    and the lock to hold while it thinks.  Search levels share the process's evaluator."""
    key = (game_id, level)
    with _bots_lock:
        if key not in _bots:
            lvl = get_level(level)
            net = evaluator = None
            if lvl.kind != "rules":
                _limit_torch_threads(settings.GOWEB_TORCH_THREADS)
                net = networks.policy_net(settings.GOWEB_WEIGHTS)
            if lvl.kind == "mcts":
                evaluator = _evaluator()
            _bots[key] = (Bot(lvl, net, seed=game_id, evaluator=evaluator), threading.Lock())
            while len(_bots) > MAX_BOTS:
                _bots.popitem(last=False)
        _bots.move_to_end(key)
        return _bots[key]


@shared_task(**DURABLE)
def bot_move(self, game_id: int, expected_moves: int) -> dict:
    """Play the bot's move in game ``game_id`` if it still has ``expected_moves`` moves; broadcast the state.

    Returns ``{"move": GTP or "resign"}``, or ``{"skipped": reason}`` when the game moved on
    meanwhile (the human undid, resigned, or another task already replied).
    """
    game = Game.objects.get(pk=game_id)
    position = games.position_of(game)
    if len(position.moves) != expected_moves or not games.is_bot_turn(game):
        return {"skipped": "the game changed since the move was requested"}
    bot, thinking = _bot(game_id, game.bot_level)
    with thinking:
        decision = bot.choose(position)
    with games.locked(game_id) as game:
        if len(games.position_of(game).moves) != expected_moves or not games.is_bot_turn(game):
            return {"skipped": "the game changed while the bot was thinking"}
        if decision.move is None:
            games.resign(game, game.bot_color)
            move = "resign"
        else:
            move = to_gtp(decision.move, game.size)
            games.play(game, game.bot_color, move)
    notify.to_group(game_id, {**games.state(game), "bot_move": move})
    return {"move": move}


def _position_analysis(query: dict) -> dict:
    """Return the ``analysis`` message of :func:`analyze_position`'s query."""
    position = review.build_position(
        query["size"],
        query["komi"],
        query.get("moves", ()),
        query.get("initial_stones", ()),
        superko=query.get("superko", False),
    )
    visits = query.get("visits", settings.GOWEB_REVIEW_VISITS)
    analysis = review.analyze_position(
        position, _evaluator(), visits, include_policy=True, include_search=query.get("search", False)
    )
    result = {
        "type": "analysis",
        "move_number": query.get("move_number", len(position.moves)),
        **analysis,
        "ladders": ladder.overlay(position) if query.get("ladders", True) else None,
        "backpred": None,
    }
    if query.get("backpred", True):
        net = networks.backpred_net(settings.GOWEB_BACKPRED_WEIGHTS)
        result["backpred"] = net.heatmap(position) if net is not None and position.moves else None
    return result


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2)
def analyze_position(self, query: dict, reply_channel: str | None = None) -> dict:
    """Search one position and return (and send to ``reply_channel``) an ``analysis`` message.

    ``query``: ``size``, ``komi``, ``moves`` and ``initial_stones`` (``[colour, GTP]`` pairs),
    optional ``superko`` (bool), ``visits`` (default ``GOWEB_REVIEW_VISITS``), ``move_number``
    (echoed back), ``ladders`` and ``backpred`` (bools, default true) and ``search`` (bool: add
    every visited move as ``moves``).  If the analysis fails, ``reply_channel`` gets an ``error``
    message and the exception propagates.
    """
    try:
        result = _position_analysis(query)
    except Exception as exc:
        if reply_channel:
            notify.to_channel(reply_channel, {"type": "error", "message": f"analysis failed: {exc}"})
        raise
    if reply_channel:
        notify.to_channel(reply_channel, result)
    return result


@shared_task(**DURABLE)
def analyze_game(self, analysis_id: int) -> dict:
    """Analyse a game's positions ``GOWEB_REVIEW_CHUNK`` at a time, streaming ``progress`` to its board.

    On a worker each message runs one chunk, then queues the next one as a new message; in-process
    (eager) the chunks run one after the other.  Returns the last chunk's outcome (``status`` and
    ``done``).  A failure other than a database error marks the analysis failed, tells the board
    and propagates.
    """
    while True:
        try:
            outcome = game_analysis.run_chunk(
                analysis_id, _evaluator(), settings.GOWEB_REVIEW_VISITS, settings.GOWEB_REVIEW_CHUNK
            )
        except OperationalError:
            raise
        except Exception as exc:
            game_analysis.fail(analysis_id, exc)
            raise
        if not outcome.more:
            return outcome.as_json()
        if not self.request.is_eager:
            analyze_game.apply_async(args=(analysis_id,))
            return outcome.as_json()
