"""The one position query: the ko rule follows the rules, the query crosses the broker as JSON,
and the board's and the API's queries are the same kind of value."""

from __future__ import annotations

import json

import pytest

from analysis.go.coords import BLACK, WHITE
from analysis.review.query import PositionQuery
from frontend.models import Game
from frontend.services import board
from tests.web_helpers import make_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("rules", "superko"),
    [("chinese", True), ("tromp-taylor", True), ("aga", True), ("japanese", False), ("Korean", False)],
)
def test_the_ko_rule_follows_the_rules(rules: str, superko: bool) -> None:
    query = PositionQuery(size=9, komi=7.5, rules=rules, visits=8, moves=[["B", "E5"]])
    assert query.superko is superko and query.position().superko is superko


def test_a_query_survives_the_trip_through_json() -> None:
    query = PositionQuery(size=13, komi=6.5, rules="japanese", visits=50, initial_stones=[["B", "D4"]],
                          moves=[["W", "K10"], ["B", "pass"]], backpred=True, search_moves=True)
    again = PositionQuery.from_json(json.loads(json.dumps(query.to_json())))
    assert again == query and again.move_number == 2
    position = again.position()
    assert len(position.moves) == 2 and position.to_play == WHITE


def test_a_query_from_another_version_is_read_with_its_known_fields(caplog) -> None:
    newer = {**PositionQuery(size=9, komi=7.5, rules="chinese", visits=8).to_json(), "future_option": 3}
    assert PositionQuery.from_json(newer) == PositionQuery(size=9, komi=7.5, rules="chinese", visits=8)
    assert "future_option are unknown to this version" in caplog.text
    older = {"size": 9, "komi": 7.5, "rules": "chinese", "visits": 8, "moves": [["B", "E5"]]}
    assert PositionQuery.from_json(older).move_number == 1 and not PositionQuery.from_json(older).count_ended
    with pytest.raises(TypeError, match="visits"):
        PositionQuery.from_json({"size": 9, "komi": 7.5, "rules": "chinese"})


def test_setup_stones_alone_give_white_the_move() -> None:
    stones = [["B", "D4"], ["B", "Q16"]]
    query = PositionQuery(size=19, komi=0.5, rules="chinese", visits=1, initial_stones=stones)
    assert query.position().to_play == WHITE


@pytest.mark.parametrize(
    ("stones", "moves", "message"),
    [
        ([], ["D4"], "moves[0] must be a [colour, vertex] pair"),
        ([["B", "Z9"]], [], "initialStones[0]: vertex 'Z9'"),
        ([["B", "E5"], ["B", "E5"]], [], "initialStones[1]: E5 already has a stone (initialStones[0])"),
        ([["W", "A1"], ["B", "A2"], ["B", "B1"]], [], "initialStones[0]: the stones at A1 have no liberties"),
        ([["W", "A1"], ["W", "A2"], ["B", "A3"], ["B", "B2"], ["B", "B1"]], [],
         "initialStones[1]: the stones at A2 have no liberties"),  # the string's first stone from the top
        ([], [["B", "E5"], ["W", "E5"]], "moves[1] (move 2): illegal move"),
    ],
)
def test_a_bad_query_names_the_offending_item(stones: list, moves: list, message: str) -> None:
    with pytest.raises(ValueError) as error:
        query = PositionQuery(size=9, komi=7.5, rules="chinese", visits=1, initial_stones=stones, moves=moves)
        query.position()
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(("rules", "superko"), [("chinese", True), ("japanese", False)])
def test_the_board_analyses_a_position_under_its_games_ko_rule(rules: str, superko: bool, settings) -> None:
    game = make_game("owner", rules=rules)
    board.human_move(game.pk, "E5")
    query = board.position_query(game.pk, 1, ladders=True, backpred=False)
    assert query.rules == rules and query.position().superko is superko
    assert query.moves == (("B", "E5"),) and query.visits == settings.GOWEB_REVIEW_VISITS


@pytest.mark.parametrize(
    ("sgf", "first"),
    [
        ("(;SZ[13]KM[6.5]AB[dd][jj][dj]AW[jd][gg]PL[W];W[gj];B[jg])", "W"),  # PL says
        ("(;SZ[13]KM[6.5]AB[dd][jj]AW[jd][gg];W[gj];B[jg])", "W"),  # the first move says
        ("(;SZ[13]KM[6.5]AB[dd][jj]AW[jd][gg];B[gj];W[jg])", "B"),
        ("(;SZ[13]KM[0.5]HA[2]AB[dd][jj];W[gj])", "W"),  # a handicap
    ],
)
def test_the_board_analyses_a_set_up_start_for_the_player_the_record_names(sgf: str, first: str) -> None:
    game = make_game("owner")
    game.sgf, game.kind = sgf, Game.Kind.REVIEW
    game.save()
    query = board.position_query(game.pk, 0, ladders=False, backpred=False)
    assert query.moves == () and query.initial_player == first
    assert query.position().to_play == (BLACK if first == "B" else WHITE)
