"""Whole-game analysis, one chunk of positions at a time (the body of ``frontend.tasks.analyze_game``).

Each chunk starts after the results saved so far, sends one ``progress`` message per position to
the game's board, and saves its results at its end only if nobody saved meanwhile: a message
handed to two workers (a redelivery racing a slow worker) cannot store a position twice.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from analysis.mcts import Evaluator
from analysis.review.analyze import game_entry, game_positions
from analysis.review.report import ranked_mistakes, read_back
from analysis.review.timing import PartTimes
from analysis.sgf import GameRecord
from frontend.models import Analysis, Game, review_visits
from frontend.services import games, notify

Status = Analysis.Status


@dataclass(frozen=True)
class ChunkOutcome:
    """What a chunk did: the analysis's ``status`` after it, positions ``done``, whether ``more``
    remain, and the board's last message (``analysis_done`` or ``analysis_cancelled``) when the
    analysis ended: the caller frees the user's slot first, then sends it with :meth:`announce`, so
    that a user told the analysis is over may ask for the next one at once."""

    status: str
    done: int
    more: bool = False
    game_id: int | None = None
    last_message: dict | None = None

    def as_json(self) -> dict:
        """Return ``{"status", "done"}``."""
        return {"status": self.status, "done": self.done}

    def announce(self) -> None:
        """Send the last message to the game's board, if the analysis ended in this chunk."""
        if self.last_message is not None and self.game_id is not None:
            notify.to_group(self.game_id, self.last_message)


def _save(analysis_id: int, start: int, new: list[dict], status: str) -> bool:
    """Append ``new`` to the results and set ``status`` if ``start`` results are still all there are.

    Returns False (nothing saved) when another run saved results since this chunk began, or the
    analysis was cancelled outright meanwhile (a new analysis of the changed game replaced it).
    """
    with transaction.atomic():
        row = Analysis.objects.select_for_update().get(pk=analysis_id)
        if len(row.results) != start or not row.active:
            return False
        row.results = row.results + new
        row.status = status
        row.save(update_fields=["results", "status", "updated"])
    return True


def run_chunk(
    analysis_id: int, evaluator: Evaluator, chunk: int, times: PartTimes | None = None
) -> ChunkOutcome:
    """Analyse up to ``chunk`` positions after the saved ones with the analysis's search visits each.

    Raises GameError when the game's record is no longer the one the analysis began with.
    Stops early, saving what it did, when ``cancel_requested`` is set; the outcome's last message
    is then ``analysis_cancelled`` with the mistakes of the positions done, and after the last
    position ``analysis_done`` with the mistakes
    (see :meth:`ChunkOutcome.announce`).
    ``times``, when given, gets the seconds of each part: ``load`` (the analysis, the game and its
    record), ``replay`` (the positions), ``cancel_check``, ``search`` (and ``search_cpu``),
    ``broadcast`` (the ``progress`` messages) and ``save``.
    Raises Analysis.DoesNotExist, and whatever the evaluator raises.
    """
    times = PartTimes() if times is None else times
    with times.part("load"):
        analysis = Analysis.objects.select_related("game").get(pk=analysis_id)
        start = len(analysis.results)
        if not analysis.active:
            return ChunkOutcome(analysis.status, start)
        game = analysis.game
        record = games.record_of(game)
        if not is_current(analysis, game, record):
            raise games.GameError("the game changed while it was analysed: analyse it again")
        dead = games.marked_dead_points(game)
        total = len(record.main_line_moves()) + 1
        active = Analysis.objects.filter(pk=analysis_id, status__in=[Status.PENDING, Status.RUNNING])
        active.update(status=Status.RUNNING, total=total)  # never over a status another run just set
    with times.part("replay"):
        positions = game_positions(record, start, game.rules)
    new: list[dict] = []
    k = start
    while len(new) < chunk:
        with times.part("replay"):
            item = next(positions, None)
        if item is None:
            break
        with times.part("cancel_check"):
            cancelled = Analysis.objects.filter(pk=analysis_id, cancel_requested=True).exists()
        if cancelled:
            with times.part("save"):
                return _stop(analysis, game, record, start, new)
        position, next_move = item
        with times.part("search", cpu=True):
            entry = game_entry(position, next_move, k, evaluator, analysis.visits, game.rules, dead)
        new.append(entry)
        with times.part("broadcast"):
            notify.to_group(game.pk, _progress(analysis, k, total, entry))
        k += 1
    with times.part("save"):
        return _finish(analysis, game.pk, start, new, total)


def _stop(analysis: Analysis, game: Game, record: GameRecord, start: int, new: list[dict]) -> ChunkOutcome:
    """Save the ``new`` results of a chunk cancelled after them and return its outcome."""
    if not _save(analysis.pk, start, new, Status.CANCELLED):
        return ChunkOutcome("superseded", start)
    done = start + len(new)
    last = _cancelled_message(analysis.pk, analysis.record_fingerprint, game, record, done)
    return ChunkOutcome(Status.CANCELLED, done, game_id=game.pk, last_message=last)


def _progress(analysis: Analysis, k: int, total: int, entry: dict) -> dict:
    """The ``progress`` message of position ``k`` of ``total``."""
    return {"type": "progress", "analysis": analysis.pk, "record": analysis.record_fingerprint, "done": k + 1,
            "total": total, "entry": entry}


def _finish(analysis: Analysis, game_id: int, start: int, new: list[dict], total: int) -> ChunkOutcome:
    """Save the chunk's ``new`` results after the ``start`` saved ones and return its outcome."""
    done = start + len(new)
    status = Status.DONE if done == total else Status.RUNNING
    if not _save(analysis.pk, start, new, status):
        return ChunkOutcome("superseded", start)
    if status != Status.DONE:
        return ChunkOutcome(status, done, more=True)
    results = Analysis.objects.get(pk=analysis.pk).results
    finished = {"type": "analysis_done", "analysis": analysis.pk, "record": analysis.record_fingerprint,
                **ranked_mistakes(results)}
    return ChunkOutcome(status, done, game_id=game_id, last_message=finished)


def _cancelled_message(analysis_id: int, key: str, game: Game, record: GameRecord, done: int) -> dict:
    """The message that ends a cancelled analysis: ``analysis_cancelled`` with the mistakes of the
    ``done`` positions, or, when a complete analysis of the game was made before, that one's
    ``analysis_state`` (the page shows it again)."""
    kept = latest_of(game, record)
    if kept is not None and kept.pk != analysis_id:
        return state_message(kept)
    return {"type": "analysis_cancelled", "analysis": analysis_id, "record": key, "done": done,
            **ranked_mistakes(Analysis.objects.get(pk=analysis_id).results)}


def record_key(game: Game, record: GameRecord) -> str:
    """Return what an analysis of ``game`` keeps of the game it analysed (``record_fingerprint``):
    its record's :meth:`~analysis.sgf.GameRecord.fingerprint`, with the stones the player marked
    dead in a game against the bot, on which the count of its end depends, and White's handicap
    bonus under the game's rules, with which every position is searched and counted (an analysis
    made without it, before the site gave it, is another game's)."""
    key: list = [record.fingerprint()]
    if game.kind == Game.Kind.PLAY and (marked := games.marked_dead(game)):
        key.append(sorted(marked))  # an uploaded record's marks are in the record: never marked anew
    if bonus := games.handicap_bonus(game, record):
        key.append({"white_handicap_bonus": bonus})
    return key[0] if len(key) == 1 else hashlib.sha256(json.dumps(key).encode()).hexdigest()


def is_current(analysis: Analysis, game: Game, record: GameRecord) -> bool:
    """Return whether ``analysis`` analysed ``game`` (with its ``record``) as it stands: moves undone
    or played since, or dead stones marked otherwise, make it another game's.  An analysis from
    before the key was kept counts when it covers as many positions as the record has."""
    if not analysis.record_fingerprint:
        return analysis.total in (0, len(record.main_line_moves()) + 1)
    return analysis.record_fingerprint == record_key(game, record)


def latest_of(game: Game, record: GameRecord, with_results: bool = False) -> Analysis | None:
    """Return the game's latest analysis (with some results, given ``with_results``) if it is
    :func:`is_current`, else None; but when that one stopped short (cancelled or failed), the
    latest complete analysis of the game as it stands, if there is one: starting a deeper
    analysis and cancelling it does not lose the whole one made before."""
    analyses = game.analyses.exclude(results=[]) if with_results else game.analyses.all()
    latest = analyses.first()
    if latest is None or not is_current(latest, game, record):
        return None
    if latest.status in (Status.CANCELLED, Status.FAILED):
        done = game.analyses.filter(status=Status.DONE).defer("results")  # judged without their results
        complete = next((a.pk for a in done if is_current(a, game, record)), None)
        return latest if complete is None else Analysis.objects.get(pk=complete)
    return latest


def state_message(analysis: Analysis) -> dict:
    """Return ``analysis`` as an ``analysis_state`` message (docs/protocol.md): its status, results,
    mistakes and summary."""
    return {
        "type": "analysis_state",
        "analysis": analysis.pk,
        "status": analysis.status,
        "total": analysis.total,
        "visits": analysis.visits,
        "record": analysis.record_fingerprint,
        "error": analysis.error,
        "results": analysis.results,
        **ranked_mistakes(analysis.results),
    }


def restore(game: Game, record: GameRecord) -> Analysis | None:
    """Store the analysis that an uploaded ``record`` carries (this site's analysed SGF, read back:
    :func:`analysis.review.report.read_back`) as the game's analysis, and return it: done when it
    covers every position, else cancelled after the positions it has (analysing the game at its
    depth resumes it); None when the record carries none.  Raises SgfError for a record that does
    not replay (the upload form checked it)."""
    results = read_back(record, game.rules)
    if not results:
        return None
    total = len(record.main_line_moves()) + 1
    return Analysis.objects.create(
        game=game,
        status=Status.DONE if len(results) == total else Status.CANCELLED,
        total=total,
        visits=max(entry["visits"] for entry in results) or review_visits(),
        results=results,
        record_fingerprint=record_key(game, record),
    )


def abandon_before(moment: datetime) -> int:
    """Mark cancelled the analyses left queued or running by a process that ran them in-process
    and ended before ``moment`` (their threads died with it); return how many.  Their saved
    positions stay, and the game may be analysed again."""
    left = Analysis.objects.filter(status__in=[Status.PENDING, Status.RUNNING], updated__lt=moment)
    return left.update(status=Status.CANCELLED)


def stop_all(game_id: int | None = None) -> int:
    """Ask every running analysis (of the game ``game_id``, given one) to stop after its current
    position (it saves what it did and ends cancelled); return how many were asked."""
    active = Analysis.objects.filter(status__in=[Status.PENDING, Status.RUNNING])
    if game_id is not None:
        active = active.filter(game_id=game_id)
    return active.update(cancel_requested=True)


def fail(analysis_id: int, exc: Exception) -> None:
    """Mark the analysis failed with ``exc``'s message and tell its board (``analysis_failed``)."""
    Analysis.objects.filter(pk=analysis_id).update(status=Status.FAILED, error=str(exc))
    row = Analysis.objects.filter(pk=analysis_id).values("game_id", "record_fingerprint").first()
    if row is None:  # deleted with its game meanwhile: nobody to tell
        return
    failed = {"type": "analysis_failed", "analysis": analysis_id, "record": row["record_fingerprint"],
              "message": f"analysis failed: {exc}"}
    notify.to_group(row["game_id"], failed)
