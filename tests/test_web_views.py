"""Pages, forms, ownership, SGF upload and download, and the JSON analysis API."""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from analysis.bot.levels import LEVELS
from analysis.features import get_feature_set
from analysis.go.coords import from_gtp
from analysis.go.position import Position
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.inference import Network
from analysis.review.policy import SYMMETRIES
from analysis.sgf import read_sgf
from frontend.models import Analysis, Game
from frontend.services import api, dispatch, engine, games, strength
from tests.score_net import write_zoo

ROOT = Path(__file__).resolve().parents[1]

SGF_DIR = Path(__file__).parent / "data" / "sgf"
pytestmark = pytest.mark.django_db


def new_game(client, **fields: object):
    data = {
        "human_color": "B",
        "size": 9,
        "handicap": 0,
        "komi": 7.5,
        "rules": "chinese",
        "bot_level": "rules",
    }
    data.update(fields)
    return client.post("/new", data)


def test_new_game_creates_an_owned_game_and_its_board(client) -> None:
    response = new_game(client, size=13, handicap=3, komi=0.5, rules="japanese", human_color="W")
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/game/{game.pk}/"
    assert game.owner == client.session.session_key
    assert (game.size, game.handicap, game.rules, game.bot_color) == (13, 3, "japanese", "B")
    record = read_sgf(game.sgf)
    assert record.handicap == 3 and len(record.initial_setup().black) == 3 and record.root.get("PL") == "W"
    assert record.root.get("DT") == datetime.date.today().isoformat()
    assert record.root.get("AP") == "goweb:0.1.0"
    assert (record.root.get("PB"), record.root.get("PW")) == ("Bot (rules)", "You")
    page = client.get(f"/game/{game.pk}/")
    assert page.status_code == 200
    assert b'data-page="play"' in page.content and b"board.js" in page.content
    assert client.get("/games").content.count(f"/game/{game.pk}/sgf".encode()) == 1


@pytest.mark.parametrize(("size", "noted"), [(9, True), (13, True), (19, False)])
def test_the_board_pages_say_the_networks_learnt_from_19x19_only(client, size: int, noted: bool) -> None:
    new_game(client, size=size)
    game = Game.objects.get()
    for page in (f"/game/{game.pk}/", f"/game/{game.pk}/review"):
        content = client.get(page).content.decode()
        assert ('id="board-size-note"' in content) is noted
        assert (f"on this {size}×{size} board" in content) is noted


def test_only_the_review_page_carries_the_replay(client) -> None:
    """The play page draws from the websocket's states: the timeline is the review page's alone."""
    new_game(client)
    game = Game.objects.get()
    games.play(games.load(game), "B", "E5")
    play = client.get(f"/game/{game.pk}/")
    assert "timeline" not in play.context and b'id="timeline"' not in play.content
    review = client.get(f"/game/{game.pk}/review")
    timeline = json.loads(re.search(r'<script id="timeline" type="application/json">(.*?)</script>',
                                    review.content.decode(), re.S).group(1))
    assert timeline == review.context["timeline"]
    assert (timeline["size"], timeline["moves"], len(timeline["boards"])) == (9, [["B", "E5"]], 2)


def test_the_review_offers_three_search_depths_normal_first_chosen(client, settings) -> None:
    settings.GOWEB_REVIEW_VISITS, settings.GOWEB_API_MAX_VISITS = 200, 600
    new_game(client)
    page = client.get(f"/game/{Game.objects.get().pk}/review").content.decode()
    option = r'<option value="(\w+)" data-visits="(\d+)"( selected)?>\w+ \((\d+) visits a position\)'
    options = [(name, selected, shown) for name, visits, selected, shown in re.findall(option, page)
               if visits == shown]
    assert options == [("fast", "", "50"), ("normal", " selected", "200"), ("deep", "", "600")]  # capped


def test_new_game_form_offers_every_bot_level_whose_network_is_shipped(client) -> None:
    page = client.get("/new").content.decode()
    shipped = set(engine.zoo().names("next"))
    offered = {name for name, level in LEVELS.items() if not level.network or level.network in shipped}
    assert all(f'value="{name}"' in page for name in offered) and "mcts" in " ".join(offered)
    assert not any(f'value="{name}"' in page for name in set(LEVELS) - offered)


def test_new_game_form_rejects_bad_settings(client) -> None:
    response = new_game(client, handicap=1)
    assert response.status_code == 400 and b"the handicap must be 0 or 2 to 9" in response.content
    assert new_game(client, size=7).status_code == 400
    assert b"not one of the available choices" in new_game(client, rules="japanese\n").content
    tiny = new_game(client, komi="1e-9")  # once a 500: the record's KM was written "1e-09"
    assert tiny.status_code == 400
    assert b"komi must be a whole or half point (7.5, 6, 0.5...), not 1e-09" in tiny.content
    assert not Game.objects.exists()


def test_forms_carry_csrf_tokens(client) -> None:
    assert b"csrfmiddlewaretoken" in client.get("/new").content
    assert b"csrfmiddlewaretoken" in client.get("/review").content


def test_csrf_is_enforced_on_forms() -> None:
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    assert strict.post("/new", {"size": 9}).status_code == 403


def test_other_sessions_get_403(client, django_user_model) -> None:
    new_game(client)
    game = Game.objects.get()
    from django.test import Client

    stranger = Client()
    for url in (f"/game/{game.pk}/", f"/game/{game.pk}/review", f"/game/{game.pk}/sgf"):
        response = stranger.get(url)
        assert response.status_code == 403
        assert b"This game belongs to another session." in response.content
    assert stranger.post(f"/game/{game.pk}/delete").status_code == 403
    assert Game.objects.filter(pk=game.pk).exists()
    assert stranger.get(f"/game/{game.pk}/delete").status_code == 403
    confirm = client.get(f"/game/{game.pk}/delete")  # the list's link asks first
    assert confirm.status_code == 200 and b"Delete this game?" in confirm.content
    assert Game.objects.filter(pk=game.pk).exists()
    assert client.post(f"/game/{game.pk}/delete").status_code == 302
    assert not Game.objects.exists()
    assert stranger.get("/game/12345/").status_code == 404


def test_uploaded_names_lose_the_control_and_format_characters_that_could_disguise_them(client) -> None:
    client.post("/review", {"text": "(;SZ[9]PB[\u202eevil\u200b]PW[Lee\tSedol\n]RE[B+R\u200f];B[ee])"})
    game = Game.objects.get()
    assert (game.black_player, game.white_player, game.result) == ("evil", "Lee Sedol", "B+R")


def test_upload_sgf_file_and_paste(client) -> None:
    data = (SGF_DIR / "handicap4.sgf").read_bytes()
    response = client.post("/review", {"file": SimpleUploadedFile("h4.sgf", data)})
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/game/{game.pk}/review"
    assert (game.kind, game.size, game.handicap, game.rules, game.result) == (
        "review",
        19,
        4,
        "japanese",
        "W+12.5",
    )
    page = client.get(f"/game/{game.pk}/review")
    assert page.status_code == 200 and b'id="feature-sets"' in page.content
    assert client.post("/review", {"text": "(;SZ[9];B[ee];W[cc])"}).status_code == 302


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("not_sgf.txt", "not an SGF file"),
        ("not_sgf.png", "binary data, not an SGF file"),
        ("illegal_occupied.sgf", "move 6: illegal move: white E5: the point is already occupied"),
        ("truncated.sgf", "truncated"),
        ("collection.sgf", "holds 3 games; send one game at a time"),
    ],
)
def test_upload_errors_are_clear(client, name: str, message: str) -> None:
    response = client.post("/review", {"file": SimpleUploadedFile(name, (SGF_DIR / name).read_bytes())})
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Game.objects.exists()


# White retakes the ko at B8 after both passed: simple ko allows it, positional superko does not
KO_AFTER_PASSES = "AB[ba][ab][cb][bc][ee]AW[ca][db][cc][gg]PL[W];W[bb];B[];W[];B[cb];W[ge])"


@pytest.mark.parametrize(
    ("sgf", "message"),
    [
        ("(;GM[1]SZ[9]KM[7]" + KO_AFTER_PASSES, "move 4: illegal move: black C8"),
        ("(;GM[1]SZ[9]KM[7]" + KO_AFTER_PASSES, "add RU[Japanese] if it was played under a simple ko rule"),
        ("(;GM[1]SZ[9]KM[7]RU[Chinese]" + KO_AFTER_PASSES, "move 4: illegal move: black C8"),
        ("(;GM[1]SZ[9]KM[7];B[ee];AE[ee];W[ee])", "node 2: adds or removes stones (AB/AW/AE) after move 1"),
        ("(;GM[1]SZ[9]KM[7];B[ee];AW[cc]AB[gg];W[ge])", "after move 1: only the setup before the first move"),
        ("(;GM[1]SZ[9]KM[7];AB[cc]B[ee];W[gg])", "node 1: adds or removes stones (AB/AW/AE) beside a move"),
        ("(;GM[1]SZ[9]KM[7]AB[ee]AW[ee])", "root node: puts a black and a white stone on E5"),
        ("(;GM[1]SZ[9]KM[100000000000000000000000];B[ee])", "komi 1e+23 is out of range: at most 150"),
    ],
)
def test_uploads_the_review_could_not_replay_faithfully_are_refused(client, sgf: str, message: str) -> None:
    response = client.post("/review", {"text": sgf})
    assert response.status_code == 400 and message in response.content.decode()
    hinted = KO_AFTER_PASSES in sgf and "RU[" not in sgf  # the hint only where the record names no rules
    assert ("add RU[Japanese] if" in response.content.decode()) == hinted
    assert not Game.objects.exists()


def test_a_ko_retaken_after_passes_loads_under_japanese_rules(client) -> None:
    japanese = "(;GM[1]SZ[9]KM[7]RU[Japanese]" + KO_AFTER_PASSES
    assert client.post("/review", {"text": japanese}).status_code == 302
    game = Game.objects.get()
    assert game.rules == "japanese" and client.get(f"/game/{game.pk}/review").status_code == 200


def test_upload_size_limit_comes_from_settings(client, settings) -> None:
    settings.GOWEB_MAX_SGF_BYTES = 10
    response = client.post("/review", {"text": "(;SZ[9];B[ee];W[cc])"})
    assert response.status_code == 400 and "limit of 10 bytes" in response.content.decode()
    response = client.post("/review", {"file": SimpleUploadedFile("a.sgf", b"(;SZ[9];B[ee])")})
    assert "the limit is 10 bytes" in response.content.decode()
    assert client.post("/review", {}).status_code == 400


def test_download_sgf_with_analysis(client) -> None:
    client.post("/review", {"text": "(;SZ[9]KM[7];B[ee];W[cc])"})
    game = Game.objects.get()
    entry = {
        "to_play": "B",
        "black_winrate": 0.5,
        "candidates": [{"move": "E5", "prior": 0.4}],
        "played": "E5",
        "played_rank": 1,
    }
    results = [
        {**entry, "move_number": 0},
        {**entry, "move_number": 1, "to_play": "W", "black_winrate": 0.7, "played": "C3"},
        {**entry, "move_number": 2, "black_winrate": 0.9, "played": None, "played_rank": None},
    ]
    Analysis.objects.create(game=game, status="done", total=3, results=results)
    plain = client.get(f"/game/{game.pk}/sgf")
    assert plain["Content-Disposition"] == f'attachment; filename="game-{game.pk}.sgf"'
    assert b"SBKV" not in plain.content
    analysed = client.get(f"/game/{game.pk}/sgf?analysis=1").content.decode()
    assert "SBKV[50.00]" in analysed and "SBKV[70.00]" in analysed
    assert "Mistake: lost 20.0%" in analysed and "Black win rate: 90.0%" in analysed
    assert read_sgf(analysed).main_line_moves() == read_sgf(game.sgf).main_line_moves()


def test_a_plain_download_sends_the_stored_record_without_parsing_it(client, monkeypatch) -> None:
    from frontend.services import parsed

    client.post("/review", {"text": "(;SZ[9]KM[7];B[ee](;W[cc])(;W[gg]C[a variation]))"})
    game = Game.objects.get()
    monkeypatch.setattr(parsed, "read_sgf", lambda *args, **kwargs: pytest.fail("parsed"))
    monkeypatch.setattr(parsed, "_records", parsed.Recent(parsed.KEPT))  # nothing cached either
    assert client.get(f"/game/{game.pk}/sgf").content == game.sgf.encode()


def test_the_analysed_sgf_carries_sabakis_score_lead_when_the_analysis_has_one(client) -> None:
    client.post("/review", {"text": "(;SZ[9]KM[7];B[ee];W[cc])"})
    game = Game.objects.get()
    entry = {"to_play": "B", "black_winrate": 0.5, "candidates": [], "played": "E5", "played_rank": 1}
    results = [
        {**entry, "move_number": 0, "black_score_lead": 0.5},
        {**entry, "move_number": 1, "to_play": "W", "black_score_lead": -6.5, "played": "C3"},
        {**entry, "move_number": 2, "black_score_lead": -7.0, "played": None, "played_rank": None},
    ]
    Analysis.objects.create(game=game, status="done", total=3, results=results)
    assert b"SBKS" not in client.get(f"/game/{game.pk}/sgf").content
    analysed = read_sgf(client.get(f"/game/{game.pk}/sgf?analysis=1").content.decode())
    nodes = [analysed.root, *(node for node in analysed.main_line() if node.has_move())]
    assert [node.get("SBKS") for node in nodes] == ["0.5", "-6.5", "-7.0"]
    assert "Score lead: W+6.5" in nodes[1].comment


def test_undo_takes_back_the_bots_reply_too() -> None:
    game = games.load(games.new_game(
        "s", size=9, handicap=0, komi=7.5, rules="chinese", bot_level="rules", human_color="B"
    ))
    games.play(game, "B", "E5")
    games.play(game, "W", "C3")
    assert games.undo(game) == 2 and games.state(game)["moves"] == []
    assert games.state(games.load(Game.objects.get(pk=game.game.pk))) == games.state(game)
    games.play(game, "B", "E5")
    assert games.undo(game) == 1  # the bot had not answered yet
    with pytest.raises(games.GameError, match="no move to take back"):
        games.undo(game)
    games.play(game, "B", "E5")
    with pytest.raises(games.GameError, match="white's turn"):
        games.play(game, "B", "D4")


# ---- the JSON API -----------------------------------------------------------------

# A query that is searched holds a job (its slot of the cap) that the task claims from a thread of
# its own: the job must be committed for it, as for a worker.
SEARCHED = pytest.mark.django_db(transaction=True)


@SEARCHED
def test_api_analyze_katago_style(client) -> None:
    query = {
        "id": "q1",
        "moves": [["B", "E5"], ["W", "C3"]],
        "boardXSize": 9,
        "komi": 7,
        "rules": "chinese",
        "maxVisits": 48,  # batches of 8 under virtual loss: 23 visits can all go to new moves
        "includePolicy": True,
    }
    response = client.post("/api/analyze", query, content_type="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "q1" and body["turnNumber"] == 2 and body["isDuringSearch"] is False
    infos = body["moveInfos"]
    assert 2 <= len(infos) <= 47
    fields = {"move", "order", "prior", "visits", "winrate", "scoreLead", "scoreMean", "utility", "lcb", "pv"}
    assert all(set(info) == fields for info in infos)
    assert [info["order"] for info in infos] == list(range(len(infos)))
    visits = [info["visits"] for info in infos]
    assert visits == sorted(visits, reverse=True) and sum(visits) == 47  # the root's own visit + 47
    assert all(0 <= info["winrate"] <= 1 and info["pv"][0] == info["move"] for info in infos)
    assert all(0 <= info["lcb"] <= info["winrate"] and info["utility"] == round(2 * info["winrate"] - 1, 4)
               and info["scoreMean"] == info["scoreLead"] for info in infos)
    assert max(len(info["pv"]) for info in infos) >= 2  # the search went deeper than one move
    root = body["rootInfo"]
    scored = engine.network().info["config"].get("score_head", "")  # the default network's heads
    assert root == {"currentPlayer": "B", "winrate": root["winrate"], "visits": 48,
                    "utility": round(2 * root["winrate"] - 1, 4),
                    "scoreLead": root["scoreLead"], "scoreStdev": root["scoreStdev"]}
    assert (root["scoreLead"] is None) == (not scored)
    assert all((i["scoreLead"] is None) == (not scored) for i in infos)
    assert 0 <= root["winrate"] <= 1
    assert len(body["policy"]) == 82 and body["policy"][4 * 9 + 4] == -1  # E5 is occupied
    assert body["ladders"]["size"] == 9


@SEARCHED
def test_api_visits_are_capped_by_the_setting(client, settings) -> None:
    settings.GOWEB_API_MAX_VISITS = 5
    body = client.post(
        "/api/analyze", {"boardXSize": 9, "maxVisits": 1000}, content_type="application/json"
    ).json()
    assert body["rootInfo"]["visits"] == 5
    assert body["maxVisits"] == 5 and "maxVisits 1000 is above this server's cap" in body["warning"]


@SEARCHED
def test_api_ladder_position_shows_the_ladder(client) -> None:
    # White C3 in a ladder: black captures it by chasing it diagonally across the board.
    stones = [["B", "B3"], ["W", "C3"], ["B", "C2"], ["B", "D2"]]
    query = {"initialStones": stones, "moves": [["B", "Q16"], ["W", "Q4"]], "maxVisits": 8}
    body = client.post("/api/analyze", query, content_type="application/json").json()
    (string,) = [s for s in body["ladders"]["strings"] if s["stones"] == ["C3"]]
    assert string["status"] == "capturable" and string["color"] == "white"
    assert string["pv"][:2] == ["C4", "D3"] and len(string["pv"]) > 20  # the path to the edge
    assert string["capture_move"] == "C4" and string["saving_move"] == "C4"


@SEARCHED
def test_api_top_move_of_the_opening_is_a_corner_point(client) -> None:
    body = client.post("/api/analyze", {"maxVisits": 32}, content_type="application/json").json()
    corners = {f"{c}{r}" for c in "CDQR" for r in (3, 4, 16, 17)}
    assert body["rootInfo"]["currentPlayer"] == "B" and 0.3 < body["rootInfo"]["winrate"] < 0.7
    assert body["moveInfos"][0]["move"] in corners
    after = {"moves": [["B", "Q16"], ["W", "D4"]], "maxVisits": 32}
    body = client.post("/api/analyze", after, content_type="application/json").json()
    assert body["moveInfos"][0]["move"] in corners


@SEARCHED
def test_api_initial_stones_and_defaults(client, settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 6
    query = {"initialStones": [["B", "D4"], ["B", "Q16"]], "boardXSize": 19}
    body = client.post("/api/analyze", query, content_type="application/json").json()
    assert body["rootInfo"]["currentPlayer"] == "W" and "policy" not in body
    assert body["rootInfo"]["visits"] == 6  # maxVisits defaults to GOWEB_REVIEW_VISITS


@pytest.mark.parametrize(("rules", "superko"), [("chinese-ogs", True), ("new_zealand", True), ("bga", True),
                                                ("TrompTaylor", True), ("korean", False),
                                                ("ancient-territory", False), ("AGA\n", True)])
def test_api_takes_katagos_rule_names(rules: str, superko: bool) -> None:
    job = api.parse({"rules": rules, "boardXSize": 9, "moves": [["B", "E5"]]})
    assert job.query.rules == rules.lower() and job.position.superko is superko


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ([], "the body must be a JSON object"),
        ({"boardXSize": 40}, "'boardXSize' must be an integer between 2 and 25"),
        ({"boardXSize": 9, "boardYSize": 13}, "only square boards"),
        ({"komi": "x"}, "'komi' must be a number"),
        ({"komi": 10**400}, "'komi' must be between -150 and 150"),
        ({"rules": "chess"}, "unknown rules 'chess'"),
        ({"rules": "x" * 5000}, "unknown rules '" + "x" * 40 + "…'; known: aga"),
        ({"moves": "D4"}, "'moves' must be a list"),
        ({"moves": [["B", "D4"], ["W", "D4"]]}, "moves[1] (move 2): illegal move: white D4"),
        ({"moves": [["X", "D4"]]}, "moves[0]: invalid color"),
        ({"moves": [["B", "Z40"]]}, "moves[0]: vertex 'Z40' is off a 19x19 board"),
        ({"maxVisits": 0}, "'maxVisits' must be an integer between 1"),
        ({"initialStones": [["B", "pass"]]}, "initialStones[0]: a setup stone needs a vertex, not 'pass'"),
        ({"initialStones": [["B", "Q16"], ["W", "Q16"]]},
         "initialStones[1]: Q16 already has a stone (initialStones[0])"),
        ({"initialStones": [["B", "A2"], ["B", "B1"], ["W", "A1"]]},
         "initialStones[2]: the stones at A1 have no liberties"),
        ({"includePolicy": 1}, "'includePolicy' must be a boolean"),
        ({"analyzeTurns": [0, 1]}, "'analyzeTurns' must name one turn: send one query per turn"),
        ({"analyzeTurns": [3], "moves": [["B", "D4"]]}, "'analyzeTurns' must name turns from 0 to 1"),
        ({"avoidMoves": [{"player": "B", "moves": ["D4"], "untilDepth": 0}]},
         "'avoidMoves': untilDepth must be an integer from 1 to 1000"),
        ({"avoidMoves": [{"player": "X", "moves": ["D4"], "untilDepth": 1}]}, "'avoidMoves': player must be"),
        ({"allowMoves": [{"player": "B", "moves": ["Z99"], "untilDepth": 1}]},
         "'allowMoves': 'Z99' is not a vertex of a 19x19 board"),
        ({"allowMoves": [{"player": "B", "moves": ["D4"], "untilDepth": 1}] * 2},
         "'allowMoves' may have one entry at most"),
        ({"initialPlayer": "X"}, "'initialPlayer' must be \"B\" or \"W\""),
        ({"whiteHandicapBonus": "2N"}, "'whiteHandicapBonus' must be one of 0, N, N-1"),
        ({"overrideSettings": {"reportAnalysisWinratesAs": "ME"}},
         "'reportAnalysisWinratesAs' must be one of"),
        ({"rules": {"koRule": "SIMPLE"}}, "'rules' must be a rule set's name (an object of rules is not"),
        ({"action": "terminate", "terminateId": "q1"}, "action 'terminate' is not supported here"),
    ],
)
def test_api_rejects_bad_queries(client, query: object, message: str) -> None:
    response = client.post("/api/analyze", query, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"].startswith(message)


def test_api_answers_504_when_no_worker_replies(client, settings, monkeypatch) -> None:
    async def nobody_runs_it(task: object, *args: object) -> None:
        return None

    monkeypatch.setattr(dispatch, "submit", nobody_runs_it)
    settings.GOWEB_API_TIMEOUT = 0.1
    response = client.post("/api/analyze", {"boardXSize": 9}, content_type="application/json")
    assert response.status_code == 504
    late = "no analysis came back in time; try fewer visits or later"
    assert response.json() == {"id": None, "error": late}


@SEARCHED
def test_api_bad_json_method_and_rate_limit(client, settings) -> None:
    assert client.post("/api/analyze", "{oops", content_type="application/json").status_code == 400
    assert client.get("/api/analyze").status_code == 405
    settings.GOWEB_API_RATE_LIMIT = 2
    settings.GOWEB_API_RATE_WINDOW = 3600
    query = {"boardXSize": 9, "maxVisits": 2}
    codes = [
        client.post(
            "/api/analyze", query, content_type="application/json", REMOTE_ADDR="10.9.9.9"
        ).status_code
        for _ in range(3)
    ]
    assert codes == [200, 200, 429]


def test_api_lists_the_shipped_networks_with_their_figures(client) -> None:
    body = client.get("/api/networks").json()
    names = [n["name"] for n in body["networks"]]
    assert "golois" in names and body["default"]["next"] == "golois-score"
    default = body["networks"][names.index("golois-score")]
    assert default["file"] == "policy.pt"  # the default weights everything else loads
    golois = body["networks"][names.index("golois")]
    assert golois["role"] == "next" and golois["file"] == "golois.pt" and "Cazenave" in golois["paper"]
    assert 0.4 < golois["validation"]["top1"] < 1 and "58.5%" in golois["paper_figure"]


def test_api_networks_shows_what_each_role_and_level_uses_on_the_sites_device(client, settings) -> None:
    settings.GOWEB_DEVICE = "cpu"
    choices = client.get("/api/networks").json()["choices"]
    assert choices["device"] == "cpu" and choices["board_size"] == 19
    assert set(choices["roles"]) == {"next", "search", "review", "previous"}
    review = choices["roles"]["review"]
    assert review["name"] == "golois-score" and review["device"] == "cpu" and "default" in review["reason"]
    assert choices["roles"]["previous"]["name"] == "backpred"
    levels = choices["levels"]
    assert levels["rules"] is None and levels["policy"]["role"] == "next"
    assert levels["mcts-2s"]["role"] == "search" and levels["mcts-2s"]["name"] == "golois-score"
    assert levels["darkforest-2s"]["name"] == "darkforest"


def test_the_site_picks_the_default_of_its_device_kind(client, settings, tmp_path: Path) -> None:
    for name in ("golois.pt", "policy.pt"):
        (tmp_path / name).symlink_to(ROOT / "weights" / name)
    networks = [{"name": "golois", "file": "golois.pt", "role": "next", "value_head": True},
                {"name": "golois-score", "file": "policy.pt", "role": "next", "value_head": True}]
    write_zoo(tmp_path, {"cpu": "golois", "cuda": "golois-score"}, networks)
    settings.GOWEB_WEIGHTS_DIR = str(tmp_path)
    for kind, name in (("cpu", "golois"), ("cuda", "golois-score")):
        settings.GOWEB_DEVICE = kind
        body = client.get("/api/networks").json()
        assert body["default"]["next"] == name and body["choices"]["roles"]["search"]["name"] == name
        reason = body["choices"]["levels"]["mcts-50"]["reason"]
        assert reason == f"the next default (the search has none of its own) on {kind}"
        assert engine.pick(None, "review").name == name



def test_the_networks_load_on_the_sites_device_and_an_unknown_device_is_refused(settings) -> None:
    settings.GOWEB_DEVICE = "cpu"
    assert engine.network().device.type == "cpu" and engine.evaluator().inner.network.device.type == "cpu"
    env = {**os.environ, "GOWEB_DEVICE": "tpu"}
    refused = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=120)
    assert refused.returncode != 0 and "GOWEB_DEVICE='tpu': use one of auto, cpu, cuda" in refused.stderr


@SEARCHED
def test_a_network_without_a_value_head_gives_the_candidates_and_the_searchs_default_the_win_rates(
    client, settings, tmp_path: Path
) -> None:
    (tmp_path / "policy.pt").symlink_to(ROOT / "weights" / "policy.pt")
    torch.manual_seed(0)
    planes = get_feature_set("golois").num_planes
    checkpoint.save(tmp_path / "bare.pt", GoloisNet(GoloisConfig(planes, 1, 8, value_head=False)), "tiny")
    write_zoo(tmp_path, "golois-score", [
        {"name": "golois-score", "file": "policy.pt", "role": "next", "value_head": True},
        {"name": "bare", "file": "bare.pt", "role": "next"},
    ])
    settings.GOWEB_WEIGHTS_DIR = str(tmp_path)
    query = {"boardXSize": 9, "maxVisits": 8, "network": "bare", "moves": [["B", "E5"]],
             "includePolicy": True}
    body = client.post("/api/analyze", query, content_type="application/json").json()
    assert body["network"] == "bare" and body["rootInfo"]["visits"] == 8
    assert 0 < body["rootInfo"]["winrate"] < 1
    position = Position(9, 7.5)
    position.play(from_gtp("E5", 9))
    nets = [Network.from_checkpoint(tmp_path / name, dtype="float32") for name in ("bare.pt", "policy.pt")]
    policies = [net.predict([position], SYMMETRIES).policy[0] for net in nets]  # as the site shows it
    legal = np.array(body["policy"]) >= 0
    gaps = [np.abs(np.array(body["policy"])[legal] - policy[legal]).max() for policy in policies]
    assert gaps[0] < 1e-3 < 1e-2 < gaps[1]  # the bare net's policy, not the default's
    assert engine.pick("bare", "search", 9).name == "golois-score"  # the searcher: the search's default


@SEARCHED
def test_api_analyzes_with_the_network_named_and_refuses_an_unknown_one(client) -> None:
    query = {"boardXSize": 9, "maxVisits": 4, "network": "golois", "moves": [["B", "E5"]]}
    body = client.post("/api/analyze", query, content_type="application/json").json()
    assert body["network"] == "golois" and body["rootInfo"]["visits"] == 4
    default = client.post("/api/analyze", {"boardXSize": 9, "maxVisits": 2}, content_type="application/json")
    assert default.json()["network"] == engine.pick(None).name
    bad = client.post("/api/analyze", {"network": "alphago"}, content_type="application/json")
    assert bad.status_code == 400
    message = bad.json()["error"]
    assert message.startswith("unknown next-move network 'alphago'; known: ") and "golois" in message


def test_a_small_boards_review_offers_only_networks_that_read_it(client) -> None:
    def backpred_menu(sgf: str) -> str:
        location = client.post("/review", {"text": sgf})["Location"]
        page = client.get(location).content.decode()
        return page.split('id="backpred-network"')[1].split("</select>")[0]

    small = backpred_menu("(;GM[1]FF[4]SZ[9];B[ee])")
    assert "backpred" in small and "tk-cnn1" not in small
    assert "tk-cnn1" in backpred_menu("(;GM[1]FF[4]SZ[19];B[pd])")


@SEARCHED
def test_the_api_searches_a_position_two_passes_ended_as_katagos_engine_does(client) -> None:
    query = {"id": "end", "moves": [["B", "E5"], ["W", "pass"], ["B", "pass"]], "boardXSize": 9,
             "boardYSize": 9, "komi": 7, "rules": "chinese", "maxVisits": 8}
    answer = client.post("/api/analyze", json.dumps(query), content_type="application/json").json()
    assert answer["rootInfo"]["visits"] == 8 and answer["moveInfos"] and "counted" not in answer


def test_the_review_shows_the_players_comments_not_an_earlier_analysis_of_this_site(client) -> None:
    comment = "Nice shape\n\nBlack win rate: 51.2% (200 visits)\nSearch's choice: D4"
    analysed = f"(;SZ[9]KM[7];B[ee]C[{comment}];W[cc])"
    assert client.post("/review", {"text": analysed}).status_code == 302
    timeline = client.get(f"/game/{Game.objects.get().pk}/review").context["timeline"]
    assert timeline["comments"] == ["", "Nice shape", ""] and timeline["variations"] == 0


def test_each_level_says_how_strong_it_measured_against_gnugo_level_10(client) -> None:
    page = client.get("/new").content.decode()
    policy = strength.records()["policy"]  # docs/matches, read with the networks the levels play with
    assert f"policy ({policy.word}): the policy network" in page
    assert escape(policy.describe()) in page
    assert policy.todays is not None  # it says whether today's network played them
    assert "rules (easy): " in page
    played = client.get(new_game(client, bot_level="mcts-2s")["Location"]).content.decode()
    assert re.search(r"bot: mcts-2s, <span id=\"bot-strength\">very hard: won \d+ of \d+ games", played)
