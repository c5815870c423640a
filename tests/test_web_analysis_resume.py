"""Whole-game analysis carried on: a cancelled analysis resumes from its first missing position,
and an analysed SGF of this site uploaded again comes back with its analysis."""

from __future__ import annotations

import pytest
from django.test import Client

from analysis.review.report import annotate
from analysis.sgf import read_sgf, write_sgf
from frontend.models import Analysis, Game
from frontend.services import board, game_analysis, games
from tests.test_review import FavouriteEvaluator
from tests.web_helpers import make_game

pytestmark = pytest.mark.django_db

SGF = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc];W[cg];B[gg])"  # 5 moves: 6 positions


def review_game() -> Game:
    game = make_game("owner")
    game.sgf, game.kind, game.phase = SGF, Game.Kind.REVIEW, Game.Phase.FINISHED
    game.save()
    return game


def test_analysing_again_after_a_cancel_resumes_from_the_first_missing_position(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    game = review_game()
    first, _ = board.start_game_analysis(game.pk)
    game_analysis.run_chunk(first, FavouriteEvaluator(0), chunk=2)
    board.cancel_game_analysis(game.pk)
    game_analysis.run_chunk(first, FavouriteEvaluator(0), chunk=2)
    done = Analysis.objects.get(pk=first).results
    assert Analysis.objects.get(pk=first).status == "cancelled" and len(done) == 2

    again, _ = board.start_game_analysis(game.pk)
    assert again == first  # the same analysis, carried on
    started = board.started_message(again)
    assert started["results"] == done
    outcome = game_analysis.run_chunk(again, FavouriteEvaluator(0), chunk=10)
    assert (outcome.status, outcome.done) == ("done", 6)
    analysis = Analysis.objects.get(pk=again)
    assert analysis.results[:2] == done and [r["move_number"] for r in analysis.results] == list(range(6))
    assert Analysis.objects.filter(game=game).count() == 1

    deeper, _ = board.start_game_analysis(game.pk, depth="deep")  # another depth: a new analysis
    assert deeper != again and board.started_message(deeper)["results"] == []


def test_an_analysed_sgf_uploaded_again_shows_its_analysis_and_its_mistakes(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    game = review_game()
    analysis_id, _ = board.start_game_analysis(game.pk)
    game_analysis.run_chunk(analysis_id, FavouriteEvaluator(0), chunk=10)
    results = Analysis.objects.get(pk=analysis_id).results
    record = games.record_of(game)
    annotate(record, results)
    downloaded = write_sgf(record).decode()

    client = Client()
    response = client.post("/review", {"text": downloaded, "rules": "chinese"})
    assert response.status_code == 302, response.content.decode()[:500]
    upload = Game.objects.exclude(pk=game.pk).get()
    state = board.analysis_state(upload.pk)
    assert state["status"] == "done" and len(state["results"]) == 6 and state["visits"] == 4
    back = state["results"]
    assert [r["black_winrate"] for r in back] == [round(r["black_winrate"], 4) for r in results]
    assert [r["played"] for r in back] == [r["played"] for r in results]
    assert [m["move_number"] for m in state["mistakes"]] == [
        m["move_number"] for m in board.analysis_state(game.pk)["mistakes"]]

    plain = client.post("/review", {"text": SGF, "rules": "chinese"})  # an SGF without analysis
    assert plain.status_code == 302
    fresh = Game.objects.order_by("-pk").first()
    assert board.analysis_state(fresh.pk) is None and read_sgf(fresh.sgf).main_line_moves()
