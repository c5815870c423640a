"""Whole-game analysis in chunks: resuming after the saved results, and refusing a stale save."""

from __future__ import annotations

import logging

import pytest
from django.utils import timezone

from analysis.review.report import mistakes
from analysis.review.timing import read_chunks
from analysis.sgf import write_sgf
from frontend import tasks
from frontend.models import Analysis, Game, Job
from frontend.services import board, game_analysis, games
from tests.test_review import FavouriteEvaluator
from tests.web_helpers import make_game

pytestmark = pytest.mark.django_db

SGF = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gc];W[cg];B[gg])"  # 5 moves: 6 positions


def review_analysis(results: list[dict] | None = None) -> Analysis:
    game = make_game("owner")
    game.sgf, game.kind = SGF, Game.Kind.REVIEW
    game.save()
    return Analysis.objects.create(game=game, results=results or [], visits=4)


def test_chunks_resume_after_the_saved_results_until_done() -> None:
    analysis = review_analysis()
    evaluator = FavouriteEvaluator(0)
    outcomes = []
    while not outcomes or outcomes[-1].more:
        outcomes.append(game_analysis.run_chunk(analysis.pk, evaluator, chunk=4))
    assert [(o.status, o.done, o.more) for o in outcomes] == [("running", 4, True), ("done", 6, False)]
    analysis.refresh_from_db()
    assert analysis.status == "done" and analysis.total == 6
    assert [r["move_number"] for r in analysis.results] == [0, 1, 2, 3, 4, 5]
    assert [r["played"] for r in analysis.results] == ["E5", "C7", "G7", "C3", "G3", None]
    assert game_analysis.run_chunk(analysis.pk, evaluator, 4).as_json() == {"status": "done", "done": 6}


def test_a_chunk_that_lost_the_race_saves_nothing(monkeypatch) -> None:
    analysis = review_analysis()
    analyze = game_analysis.game_entry

    def meanwhile_another_worker_saves(*args: object, **kwargs: object) -> dict:
        entry = analyze(*args, **kwargs)
        Analysis.objects.filter(pk=analysis.pk).update(results=[{**entry, "by": "the other worker"}])
        return entry

    monkeypatch.setattr(game_analysis, "game_entry", meanwhile_another_worker_saves)
    outcome = game_analysis.run_chunk(analysis.pk, FavouriteEvaluator(0), chunk=3)
    assert (outcome.status, outcome.done, outcome.more) == ("superseded", 0, False)
    analysis.refresh_from_db()
    assert [r["by"] for r in analysis.results] == ["the other worker"]


def test_cancelling_saves_the_positions_done() -> None:
    analysis = review_analysis()
    game_analysis.run_chunk(analysis.pk, FavouriteEvaluator(0), chunk=2)
    Analysis.objects.filter(pk=analysis.pk).update(cancel_requested=True)
    outcome = game_analysis.run_chunk(analysis.pk, FavouriteEvaluator(0), chunk=2)
    assert (outcome.status, outcome.done, outcome.more) == ("cancelled", 2, False)
    analysis.refresh_from_db()
    assert analysis.status == "cancelled" and len(analysis.results) == 2
    message = outcome.last_message  # the mistakes of the positions done, as after a reload
    assert message["type"] == "analysis_cancelled" and message["done"] == 2
    assert message["mistakes"] == mistakes(analysis.results, len(analysis.results))
    assert message["point_mistakes"] == mistakes(analysis.results, len(analysis.results), by="score")


def test_a_deeper_analysis_cancelled_leaves_the_complete_one_made_before() -> None:
    complete = review_analysis()
    while game_analysis.run_chunk(complete.pk, FavouriteEvaluator(0), chunk=6).more:
        pass
    deeper = Analysis.objects.create(game=complete.game, results=[], visits=16)
    game_analysis.run_chunk(deeper.pk, FavouriteEvaluator(0), chunk=2)
    Analysis.objects.filter(pk=deeper.pk).update(cancel_requested=True)
    outcome = game_analysis.run_chunk(deeper.pk, FavouriteEvaluator(0), chunk=2)
    assert outcome.status == "cancelled"
    message = outcome.last_message  # the page shows the complete analysis again
    assert message["type"] == "analysis_state" and message["analysis"] == complete.pk
    assert message["status"] == "done" and len(message["results"]) == 6 and message["summary"]
    assert board.analysis_state(complete.game.pk) == message  # and so does a reload, and the SGF
    game = complete.game
    assert game_analysis.latest_of(game, games.record_of(game), with_results=True) == complete


def test_the_end_of_a_counted_game_against_the_bot_is_counted_with_the_players_dead_stones() -> None:
    game = make_game("owner")
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[];W[])"
    game.phase, game.dead, game.result = Game.Phase.FINISHED, ["C7"], "B+73.5"
    game.save()
    analysis = Analysis.objects.get(pk=board.start_game_analysis(game.pk)[0])
    Analysis.objects.filter(pk=analysis.pk).update(visits=4)
    game_analysis.run_chunk(analysis.pk, FavouriteEvaluator(0), chunk=5)
    analysis.refresh_from_db()
    *searched, end = analysis.results
    assert end["counted"] == {"result": "B+73.5", "kind": "area", "dead": ["C7"]}  # the game's own result
    assert end["black_winrate"] == 1.0 and end["visits"] == 0
    assert all("counted" not in r and r["visits"] == 4 for r in searched)  # one pass is not the end
    query = board.position_query(game.pk, None, ladders=False, backpred=False)
    assert query.count_ended and query.dead == ("C7",)
    middle = board.position_query(game.pk, 3, ladders=False, backpred=False)
    assert middle.dead is None and not middle.count_ended
    assert board.analysis_state(game.pk) is not None
    Game.objects.filter(pk=game.pk).update(dead=[])  # other marks, another count: another game
    assert board.analysis_state(game.pk) is None


def test_an_uploaded_games_dead_stones_are_estimated_not_taken_from_marks() -> None:
    game = review_analysis().game
    game.phase, game.dead = Game.Phase.FINISHED, ["C7"]  # uploads have no marks: stray data is not one
    assert games.marked_dead(game) is None
    game.kind = Game.Kind.PLAY
    assert games.marked_dead(game) == ["C7"]


def test_a_counted_games_record_carries_its_dead_stones_to_its_review_as_territory_marks() -> None:
    game = make_game("owner")
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[];W[])"
    game.phase, game.dead = Game.Phase.SCORING, ["C7"]
    game.save()
    board.accept_score(game.pk)
    game.refresh_from_db()
    assert game.result == "B+73.5" and "TB[" in game.sgf and "cc" in game.sgf.split("TB")[1]
    upload = make_game("owner")
    upload.sgf, upload.kind, upload.dead = game.sgf, Game.Kind.REVIEW, []
    upload.save()
    assert games.marked_dead(upload) == ["C7"]
    query = board.position_query(upload.pk, None, ladders=False, backpred=False)
    assert query.count_ended and query.dead == ("C7",)
    analysis = Analysis.objects.get(pk=board.start_game_analysis(upload.pk)[0])
    Analysis.objects.filter(pk=analysis.pk).update(visits=4)
    game_analysis.run_chunk(analysis.pk, FavouriteEvaluator(0), chunk=5)
    analysis.refresh_from_db()
    assert analysis.results[-1]["counted"]["result"] == "B+73.5"  # as the record's RE says


def test_analyses_left_running_by_an_earlier_process_are_cancelled_with_their_positions_kept() -> None:
    left = review_analysis([{"move_number": 0}])
    Analysis.objects.filter(pk=left.pk).update(status=Analysis.Status.RUNNING)
    moment = timezone.now()
    fresh = review_analysis()  # queued by this process, after it started
    assert game_analysis.abandon_before(moment) == 1
    left.refresh_from_db()
    fresh.refresh_from_db()
    assert (left.status, len(left.results)) == ("cancelled", 1) and fresh.status == "pending"
    assert game_analysis.stop_all() == 1  # at exit: the running ones are asked to stop
    fresh.refresh_from_db()
    assert fresh.cancel_requested


def test_an_analysis_belongs_to_the_record_it_analysed_and_stops_when_the_game_changes(settings) -> None:
    settings.GOWEB_MAX_GAME_ANALYSES = 1
    game = make_game("owner")
    board.human_move(game.pk, "E5")
    games.play(games.load(Game.objects.get(pk=game.pk)), "W", "C3")
    analysis_id, _ = board.start_game_analysis(game.pk, "session:o")
    game_analysis.run_chunk(analysis_id, FavouriteEvaluator(0), chunk=2)  # 2 of the 3 positions
    assert board.analysis_state(game.pk)["results"] and board.search_views(game.pk)
    board.undo(game.pk)
    board.human_move(game.pk, "D6")  # as many moves, another game
    with pytest.raises(games.GameError, match="the game changed while it was analysed: analyse it again"):
        game_analysis.run_chunk(analysis_id, FavouriteEvaluator(0), chunk=2)
    assert board.analysis_state(game.pk) is None and board.search_views(game.pk) == []
    board.undo(game.pk)
    board.human_move(game.pk, "D6")
    # while the outdated one still reads as running and holds the user's one slot
    running = board.start_game_analysis(game.pk, "session:o")[0]
    assert Analysis.objects.get(pk=analysis_id).status == "cancelled"
    assert [job.payload for job in Job.objects.all()] == [{"analysis": running}]
    Analysis.objects.filter(pk=running).delete()
    board.undo(game.pk)
    board.human_move(game.pk, "E5")  # back to the analysed moves, with a comment: still the same game
    games.play(games.load(Game.objects.get(pk=game.pk)), "W", "C3")
    record = games.record_of(Game.objects.get(pk=game.pk))
    record.root.set_comment("a comment added since")
    Game.objects.filter(pk=game.pk).update(sgf=write_sgf(record).decode())
    assert len(board.analysis_state(game.pk)["results"]) == 2


def test_a_failed_analysis_tells_its_board_which_analysis_of_which_record_failed(monkeypatch) -> None:
    analysis = review_analysis()
    Analysis.objects.filter(pk=analysis.pk).update(record_fingerprint="f" * 64)
    heard: list[tuple[int, dict]] = []
    monkeypatch.setattr(game_analysis.notify, "to_group", lambda game_id, m: heard.append((game_id, m)))
    game_analysis.fail(analysis.pk, RuntimeError("the network failed"))
    failed = {"type": "analysis_failed", "analysis": analysis.pk, "record": "f" * 64,
              "message": "analysis failed: the network failed"}
    assert heard == [(analysis.game_id, failed)]
    assert board.analysis_state(analysis.game_id) is None  # that record is not the game's


def test_an_analysis_that_failed_after_its_game_was_deleted_has_nobody_to_tell() -> None:
    analysis = review_analysis()
    analysis.game.delete()
    game_analysis.fail(analysis.pk, RuntimeError("the network failed"))  # no Analysis.DoesNotExist


def test_each_chunk_logs_where_its_time_went(settings, caplog) -> None:
    settings.GOWEB_REVIEW_CHUNK = 4
    analysis = review_analysis()
    with caplog.at_level(logging.INFO, logger="frontend.tasks.chunks"):
        tasks.analyze_game.apply(args=(analysis.pk, None, 100.0))
    chunks = read_chunks(record.getMessage() for record in caplog.records)
    assert [c["done"] for c in chunks] == [4, 6]
    assert chunks[0]["queued"] == 100.0 and chunks[0]["ended"] <= chunks[1]["queued"] <= chunks[1]["began"]
    assert all(c["began"] <= c["ended"] for c in chunks)
    parts = {"claim", "load", "replay", "cancel_check", "search", "search_cpu", "broadcast", "save"}
    assert set(chunks[0]["parts"]) == parts and set(chunks[1]["parts"]) == parts | {"announce"}
    assert all(c["parts"]["search"] > 0 for c in chunks)
