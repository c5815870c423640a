"""POST /api/analyze speaks KataGo's analysis-engine JSON (docs/api.md): the fields KataGo clients
send (initialPlayer, avoidMoves, allowMoves, analyzeTurns, whiteHandicapBonus, overrideSettings,
action), its error bodies, and the limits that keep an anonymous client from buying much CPU or
sending queries from another site's page."""

from __future__ import annotations

import pytest

from frontend.models import Job
from frontend.services import api

SEARCHED = pytest.mark.django_db(transaction=True)  # the task claims the query's job from a thread


def ask(client, query: dict, **extra) -> tuple[int, dict]:
    response = client.post("/api/analyze", query, content_type="application/json", **extra)
    return response.status_code, response.json()


@pytest.mark.django_db
def test_a_query_not_sent_as_json_is_refused_with_415_and_never_searched(client) -> None:
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "text/json"):
        response = client.post("/api/analyze", '{"boardXSize": 9}', content_type=content_type)
        assert response.status_code == 415
        assert response.json() == {"error": "send the query as JSON, with Content-Type: application/json"}
    assert not Job.objects.exists()


@pytest.mark.django_db
def test_nan_and_infinity_are_not_json_and_errors_name_the_field_and_echo_the_id(client) -> None:
    response = client.post("/api/analyze", '{"id": NaN, "boardXSize": 9}', content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"error": "the query is not valid JSON: NaN is not a JSON number"}
    huge = client.post("/api/analyze", '{"komi": 1' + "0" * 5000 + "}", content_type="application/json")
    assert huge.status_code == 400 and "digits" in huge.json()["error"]
    status, body = ask(client, {"id": "q7", "moves": [["B", "E5"], ["W", "E5"]], "boardXSize": 9})
    assert status == 400 and body["id"] == "q7" and body["field"] == "moves"
    assert body["error"].startswith("moves[1] (move 2): illegal move")
    status, body = ask(client, {"id": 3, "komi": "seven"})
    assert (status, body) == (400, {"error": "'komi' must be a number", "field": "komi", "id": 3})


def test_query_version_is_answered_without_a_search_and_other_actions_are_refused(client) -> None:
    status, body = ask(client, {"id": "v", "action": "query_version"})
    assert status == 200 and body["id"] == "v" and body["action"] == "query_version"
    assert body["version"].count(".") == 2
    for action in ("clear_cache", "terminate_all", "fly"):
        status, body = ask(client, {"id": "t", "action": action})
        assert status == 400 and body["field"] == "action"


def test_the_komi_defaults_by_the_rules_and_white_handicap_bonus_overrides_the_rules() -> None:
    assert api.parse({"rules": "japanese"}).position.komi == 6.5
    assert api.parse({"rules": "chinese"}).position.komi == 7.5
    handicap = {"rules": "chinese", "komi": 0.5, "initialStones": [["B", "D4"], ["B", "Q16"], ["B", "Q4"]]}
    assert api.parse(handicap).position.komi == 3.5  # N under Chinese rules
    assert api.parse({**handicap, "whiteHandicapBonus": "0"}).position.komi == 0.5
    assert api.parse({**handicap, "whiteHandicapBonus": "N-1"}).position.komi == 2.5


def test_analyze_turns_picks_the_position_after_that_many_moves() -> None:
    moves = [["B", "E5"], ["W", "C3"], ["B", "G7"]]
    job = api.parse({"boardXSize": 9, "moves": moves, "analyzeTurns": [1]})
    assert len(job.query.moves) == 1 and job.position.to_play == -1  # White to play after E5
    assert len(api.parse({"boardXSize": 9, "moves": moves, "analyzeTurns": [3]}).query.moves) == 3


@SEARCHED
def test_initial_player_says_who_moves_first_in_a_set_up_position(client) -> None:
    stones = [["B", "E5"], ["W", "C3"]]
    for player in ("B", "W"):
        status, body = ask(client, {"boardXSize": 9, "initialStones": stones, "initialPlayer": player,
                                    "maxVisits": 4})
        assert status == 200 and body["rootInfo"]["currentPlayer"] == player
    status, body = ask(client, {"boardXSize": 9, "initialStones": [["B", "E5"]], "initialPlayer": "B",
                                "maxVisits": 4})
    assert body["rootInfo"]["currentPlayer"] == "B"  # not the handicap guess, White


@SEARCHED
def test_avoided_moves_are_never_searched_and_allowed_ones_are_the_only_ones(client) -> None:
    base = {"boardXSize": 9, "moves": [["B", "E5"]], "maxVisits": 24}
    status, free = ask(client, base)
    top = [info["move"] for info in free["moveInfos"][:3]]
    status, body = ask(client, {**base, "avoidMoves": [{"player": "W", "moves": top, "untilDepth": 1}]})
    assert status == 200 and body["moveInfos"]
    assert not {info["move"] for info in body["moveInfos"]} & set(top)
    allowed = ["C3", "G7", "pass"]
    status, body = ask(client, {**base, "allowMoves": [{"player": "W", "moves": allowed, "untilDepth": 1}]})
    assert status == 200 and {info["move"] for info in body["moveInfos"]} <= set(allowed)
    status, body = ask(client, {**base, "avoidMoves": [{"player": "B", "moves": top, "untilDepth": 1}]})
    assert [info["move"] for info in body["moveInfos"][:3]] == top  # Black's filter: not at White's root


@SEARCHED
def test_win_rates_leads_and_ownership_are_reported_for_black_when_asked(client) -> None:
    base = {"boardXSize": 9, "moves": [["B", "E5"]], "maxVisits": 8, "includeOwnership": True}
    _, mover = ask(client, base)
    _, black = ask(client, {**base, "overrideSettings": {"reportAnalysisWinratesAs": "BLACK",
                                                         "wideRootNoise": 0.02, "maxTime": 8.0}})
    assert mover["rootInfo"]["currentPlayer"] == black["rootInfo"]["currentPlayer"] == "W"
    assert black["rootInfo"]["winrate"] == pytest.approx(1 - mover["rootInfo"]["winrate"], abs=1e-4)
    # one body here: its warning inside it (the stdin engine writes it on a line of its own, and
    # applies maxTime, which this API does not)
    assert black["warning"] == "overrideSettings not applied here: maxTime, wideRootNoise"
    for seen, other in zip(black["moveInfos"], mover["moveInfos"], strict=True):
        assert seen["move"] == other["move"]
        assert seen["winrate"] == pytest.approx(1 - other["winrate"], abs=1e-4)
        assert other["lcb"] <= other["winrate"]  # the mover's lower bound...
        assert seen["lcb"] == pytest.approx(1 - other["lcb"], abs=1e-4)  # ...seen from Black, as KataGo
    if mover["rootInfo"]["scoreLead"] is not None:
        assert black["rootInfo"]["scoreLead"] == -mover["rootInfo"]["scoreLead"]
    if mover["ownership"] is not None:
        assert black["ownership"] == [-v for v in mover["ownership"]]
    _, white = ask(client, {**base, "overrideSettings": {"reportAnalysisWinratesAs": "WHITE"}})
    assert white["rootInfo"]["winrate"] == mover["rootInfo"]["winrate"]  # White is to move


@SEARCHED
def test_an_address_searches_at_most_its_visit_budget_a_window(client, settings) -> None:
    settings.GOWEB_API_VISIT_BUDGET, settings.GOWEB_API_RATE_WINDOW = 10, 3600
    query = {"id": "b", "boardXSize": 9, "maxVisits": 4}
    codes = [ask(client, query, REMOTE_ADDR="10.9.9.8")[0] for _ in range(3)]
    assert codes == [200, 200, 429]
    _, body = ask(client, query, REMOTE_ADDR="10.9.9.8")
    assert body == {"id": "b", "error": "too many visits searched: at most 10 every 3600 seconds from one "
                                        "address; try later"}
    assert ask(client, query, REMOTE_ADDR="10.9.9.9")[0] == 200  # another address has its own
