"""Celery tasks of the web site: the bot's move, position analysis and whole-game analysis.

Arguments and results are plain JSON.  Results reach the browser through the channel layer
(:mod:`frontend.services.notify`), so the same code serves Celery workers and the embedded
in-process mode (:mod:`frontend.services.dispatch`).  Networks are loaded once per process
(:mod:`analysis.review` caches them).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from analysis import ladder, review
from analysis.bot.levels import get_level
from analysis.bot.player import Bot
from analysis.go.coords import to_gtp
from analysis.go.sgf import read_sgf
from frontend.models import Analysis, Game
from frontend.services import games, notify

SAVE_EVERY = 10
MAX_BOTS = 64

_bots: OrderedDict[tuple[int, str], Bot] = OrderedDict()
_bots_lock = threading.Lock()


def _bot(game_id: int, level: str) -> Bot:
    """Return this process's bot for a game (it remembers its win rates, to resign)."""
    key = (game_id, level)
    with _bots_lock:
        if key not in _bots:
            lvl = get_level(level)
            net = review.policy_net(settings.GOWEB_WEIGHTS) if lvl.kind != "rules" else None
            _bots[key] = Bot(lvl, net, seed=game_id)
            while len(_bots) > MAX_BOTS:
                _bots.popitem(last=False)
        _bots.move_to_end(key)
        return _bots[key]


@shared_task(bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3)
def bot_move(self, game_id: int, expected_moves: int) -> dict:
    """Play the bot's move in game ``game_id`` if it still has ``expected_moves`` moves; broadcast the state.

    Returns ``{"move": GTP or "resign"}``, or ``{"skipped": reason}`` when the game moved on
    meanwhile (the human undid, resigned, or another task already replied).
    """
    game = Game.objects.get(pk=game_id)
    position = games.position_of(game)
    if len(position.moves) != expected_moves or not games.is_bot_turn(game):
        return {"skipped": "the game changed since the move was requested"}
    decision = _bot(game_id, game.bot_level).choose(position)
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


@shared_task(bind=True, acks_late=True, max_retries=2)
def analyze_position(self, query: dict, reply_channel: str | None = None) -> dict:
    """Analyse one position and return (and send to ``reply_channel``) an ``analysis`` message.

    ``query``: ``size``, ``komi``, ``moves`` and ``initial_stones`` (``[colour, GTP]`` pairs),
    optional ``move_number`` (echoed back), ``ladders`` and ``backpred`` (booleans).
    """
    position = review.build_position(
        query["size"], query["komi"], query.get("moves", ()), query.get("initial_stones", ())
    )
    result = {
        "type": "analysis",
        "move_number": query.get("move_number", len(position.moves)),
        **review.analyze_position(position, review.evaluator(settings.GOWEB_WEIGHTS), include_policy=True),
        "ladders": ladder.overlay(position) if query.get("ladders", True) else None,
        "backpred": None,
    }
    if query.get("backpred", True):
        net = review.backpred_net(settings.GOWEB_BACKPRED_WEIGHTS)
        result["backpred"] = net.heatmap(position) if net is not None and position.moves else None
    if reply_channel:
        notify.to_channel(reply_channel, result)
    return result


@shared_task(
    bind=True, acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=3
)
def analyze_game(self, analysis_id: int) -> dict:
    """Analyse every position of a game, streaming ``progress`` to its board group; cancellable.

    Results are saved into the Analysis as they come, so a retried or re-delivered task resumes
    where the last one stopped.  Sets ``cancel_requested`` on the row to stop it.
    """
    analysis = Analysis.objects.select_related("game").get(pk=analysis_id)
    if not analysis.active:
        return {"status": analysis.status}
    game_id = analysis.game_id
    record = read_sgf(analysis.game.sgf)
    engine = review.evaluator(settings.GOWEB_WEIGHTS)
    results = list(analysis.results)
    total = len(record.main_line_moves()) + 1
    Analysis.objects.filter(pk=analysis_id).update(status=Analysis.Status.RUNNING, total=total)
    try:
        for k, (position, next_move) in enumerate(review.game_positions(record)):
            if k < len(results):
                continue
            if Analysis.objects.filter(pk=analysis_id, cancel_requested=True).exists():
                Analysis.objects.filter(pk=analysis_id).update(
                    status=Analysis.Status.CANCELLED, results=results
                )
                notify.to_group(game_id, {"type": "analysis_cancelled", "analysis": analysis_id, "done": k})
                return {"status": Analysis.Status.CANCELLED, "done": k}
            entry = review.analyze_game_position(position, next_move, k, engine)
            results.append(entry)
            if len(results) % SAVE_EVERY == 0:
                Analysis.objects.filter(pk=analysis_id).update(results=results)
            notify.to_group(
                game_id,
                {"type": "progress", "analysis": analysis_id, "done": k + 1, "total": total, "entry": entry},
            )
    except OperationalError:
        Analysis.objects.filter(pk=analysis_id).update(results=results)
        raise
    except Exception as exc:
        Analysis.objects.filter(pk=analysis_id).update(status=Analysis.Status.FAILED, error=str(exc))
        notify.to_group(game_id, {"type": "error", "message": f"analysis failed: {exc}"})
        raise
    Analysis.objects.filter(pk=analysis_id).update(status=Analysis.Status.DONE, results=results)
    notify.to_group(
        game_id,
        {"type": "analysis_done", "analysis": analysis_id, "mistakes": review.mistakes(results)},
    )
    return {"status": Analysis.Status.DONE, "done": len(results)}
