"""Variations over the board websocket: the tree, branches played, analysed, saved, deleted and
promoted by the owner, and a share link's viewer exploring its own without changing the game."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator

from analysis.sgf import read_sgf, write_sgf
from analysis.sgf.tree import find, move_children
from frontend.models import Analysis, Game
from frontend.services import dispatch, variations
from goweb.asgi import application
from tests.web_helpers import (
    ORIGIN,
    connect,
    make_game,
    new_session,
    receive_until,
    thread_connection_forgotten,  # noqa: F401  (autouse: each test's end)
)

pytestmark = pytest.mark.django_db(transaction=True)

RECORD = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee](;W[cc];B[gc])(;W[gg]C[the other reply]))"



def review_game(key: str) -> Game:
    game = make_game(key)
    game.sgf, game.kind, game.phase = RECORD, Game.Kind.REVIEW, Game.Phase.FINISHED
    game.save()
    return game


def is_tree(message: dict) -> bool:
    return message["type"] == "tree"


def shown(tree: dict) -> list[str]:
    """The moves from the start to the tree's current node."""
    nodes, at, line = tree["nodes"], tree["current"], []
    while nodes[at]["parent"] is not None:
        line.append("".join(nodes[at]["move"]))
        at = nodes[at]["parent"]
    return line[::-1]


def test_the_owner_branches_analyses_deletes_and_promotes_and_the_record_keeps_it(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    key = new_session()
    game = review_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await ws.send_json_to({"type": "tree"})
        tree = await receive_until(ws, is_tree)
        assert tree["saved"] is True and len(tree["nodes"]) == 5
        e5 = tree["nodes"][tree["nodes"][0]["children"][0]]
        g3 = tree["nodes"][e5["children"][1]]
        assert g3["main"] is False and g3["comment"] == "the other reply" and g3["board"][60] == "O"
        await ws.send_json_to({"type": "branch", "node": "BE5 WC7", "moves": ["D4", "F4"]})
        tree = await receive_until(ws, is_tree)
        assert shown(tree) == ["BE5", "WC7", "BD4", "WF4"]
        await ws.send_json_to({"type": "branch", "node": "BE5 WC7", "moves": ["C7"]})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"] == "illegal move: black C7: the point is already occupied"
        await ws.send_json_to({"type": "analyze", "move_number": 0, "node": "BE5 WC7 BD4 WF4"})
        answer = await receive_until(ws, lambda m: m["type"] == "analysis")
        assert answer["node"] == "BE5 WC7 BD4 WF4" and answer["move_number"] == 4 and answer["to_play"] == "B"
        await dispatch.wait_idle()
        await ws.send_json_to({"type": "delete_branch", "node": "BE5 WG3"})
        tree = await receive_until(ws, is_tree)
        assert shown(tree) == ["BE5"]
        await ws.send_json_to({"type": "delete_branch", "node": "BE5 WC7"})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"] == "the game's own moves are not deleted: only its variations"
        await ws.send_json_to({"type": "promote_branch", "node": "BE5 WC7 BD4"})
        tree = await receive_until(ws, is_tree)
        assert tree["main_line_changed"] is True and shown(tree) == ["BE5", "WC7", "BD4"]
        await ws.disconnect()

    asyncio.run(scenario())
    game.refresh_from_db()
    record = read_sgf(game.sgf)
    assert record.main_line_moves() == [(1, 40), (-1, 20), (1, 48), (-1, 50)]
    assert b"gg" not in game.sgf.encode()
    analysed = find(record, variations.parse_node("BE5 WC7 BD4 WF4", 9))
    assert analysed.get("SBKV") is not None and "Black win rate" in analysed.comment
    c7 = find(record, variations.parse_node("BE5 WC7", 9))
    assert [n.move(9)[1] for n in move_children(c7)] == [48, 24]  # D4 promoted, G7 its variation


def test_a_share_links_viewer_explores_variations_without_changing_the_owners_game(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    key = new_session()
    game = review_game(key)
    game.share_token = "variation-test-token"
    game.save()

    async def scenario() -> None:
        viewer = WebsocketCommunicator(application, f"/ws/shared/{game.share_token}/", headers=[ORIGIN])
        assert (await viewer.connect())[0]
        await viewer.send_json_to({"type": "branch", "node": "BE5", "moves": ["D4"]})
        tree = await receive_until(viewer, is_tree)
        assert tree["saved"] is False and shown(tree) == ["BE5", "WD4"]
        await viewer.send_json_to({"type": "branch", "node": "BE5 WD4", "moves": ["F4"]})
        assert shown(await receive_until(viewer, is_tree)) == ["BE5", "WD4", "BF4"]
        await viewer.send_json_to({"type": "analyze", "move_number": 0, "node": "BE5 WD4 BF4"})
        assert (await receive_until(viewer, lambda m: m["type"] == "analysis"))["node"] == "BE5 WD4 BF4"
        await viewer.send_json_to({"type": "branch", "node": "BE5 WD4 BF4", "moves": ["pass", "C3"]})
        assert shown(await receive_until(viewer, is_tree)) == ["BE5", "WD4", "BF4", "Wpass", "BC3"]
        await viewer.send_json_to({"type": "promote_branch", "node": "BE5 WD4"})
        error = await receive_until(viewer, lambda m: m["type"] == "error")
        assert error["message"] == "this shared review is read-only: 'promote_branch' is not allowed"
        await dispatch.wait_idle()
        await viewer.disconnect()

    asyncio.run(scenario())
    game.refresh_from_db()
    assert game.sgf == RECORD  # neither D4 nor the analysis reached the owner's record


def test_a_bad_node_name_or_move_list_gets_a_clear_error() -> None:
    key = new_session()
    game = review_game(key)
    playing = make_game(key)

    async def scenario() -> None:
        ws = await connect(playing.pk, key)
        await ws.send_json_to({"type": "tree"})  # a game in play shows its tree, and takes no variation
        assert len((await receive_until(ws, is_tree))["nodes"]) == 1
        await ws.send_json_to({"type": "branch", "node": "", "moves": ["E5"]})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"].startswith("the game is still being played")
        await ws.disconnect()
        ws = await connect(game.pk, key)
        for message, text in (
            ({"type": "branch", "node": "XE5", "moves": ["D4"]}, "bad move 'XE5'"),
            ({"type": "branch", "node": "BE5 WD4", "moves": ["D4"]}, "the tree has no move 2 white D4"),
            ({"type": "branch", "node": "BE5", "moves": []}, "moves must be 1 to 60 vertices"),
            ({"type": "branch", "node": "BE5", "moves": [3]}, "moves must be 1 to 60 vertices"),
            ({"type": "analyze", "move_number": 0, "node": "BE5 WE5"}, "move 2"),
        ):
            await ws.send_json_to(message)
            error = await receive_until(ws, lambda m: m["type"] == "error")
            assert text in error["message"], error
        await ws.disconnect()

    asyncio.run(scenario())


def test_a_huge_tree_comes_cut_after_its_main_line_and_takes_no_more_variations(monkeypatch) -> None:
    key = new_session()
    game = review_game(key)
    monkeypatch.setattr(variations, "MAX_SHOWN", 3)
    message = variations.tree_message(game, read_sgf(RECORD), None, True)
    assert message["cut"] is True and [n["main"] for n in message["nodes"]] == [True] * 4
    monkeypatch.setattr(variations, "MAX_NODES", 5)  # the record has 5
    with pytest.raises(variations.VariationError, match="the most nodes it may have"):
        variations.branch(game.pk, False, None, "BE5", ["D4"])


def test_a_viewers_copy_grows_by_at_most_its_own_node_limit_and_a_deletion_makes_room(monkeypatch) -> None:
    game = review_game(new_session())
    monkeypatch.setattr(variations, "MAX_PRIVATE_NODES", 3)  # the record has 5 nodes
    _, private = variations.branch(game.pk, True, None, "BE5", ["D4", "F4"])
    _, private = variations.branch(game.pk, True, private, "BE5 WD4 BF4", ["C3"])
    with pytest.raises(variations.VariationError, match=r"your copy of this shared review has the most "
                                                        r"moves it may add \(3\): delete a variation first"):
        variations.branch(game.pk, True, private, "BE5 WD4 BF4 WC3", ["G3"])
    _, private = variations.delete_branch(game.pk, True, private, "BE5 WD4 BF4 WC3")
    _, private = variations.branch(game.pk, True, private, "BE5 WD4 BF4", ["G3"])
    assert sum(1 for _ in private.nodes()) == 8
    game.refresh_from_db()
    assert game.sgf == RECORD
    variations.branch(game.pk, False, None, "BE5", ["D4", "F4", "C3", "G3"])  # the owner's own limit


def test_a_variation_stays_within_the_records_limits_so_its_sgf_uploads_again(settings, client) -> None:
    settings.GOWEB_MAX_GAME_MOVES, settings.GOWEB_MAX_PASSES_IN_A_ROW = 5, 2
    key = new_session()
    game = review_game(key)
    too_long = "this variation cannot be played on: too large: a line of play has more than 5 moves"
    with pytest.raises(variations.VariationError, match=too_long):
        variations.branch(game.pk, False, None, "BE5", ["D4", "F4", "C3", "G3", "E3"])
    too_many_passes = "this variation cannot be played on: too large: more than 2 passes in a row"
    with pytest.raises(variations.VariationError, match=too_many_passes):
        variations.branch(game.pk, False, None, "BE5", ["pass", "pass", "pass"])
    variations.branch(game.pk, False, None, "BE5", ["D4", "F4", "pass", "pass"])  # at the limits
    game.refresh_from_db()
    assert client.post("/review", {"text": game.sgf}).status_code == 302  # the record as it now is
    uploaded = Game.objects.exclude(pk=game.pk).get()
    assert sum(1 for _ in read_sgf(uploaded.sgf).nodes()) == sum(1 for _ in read_sgf(RECORD).nodes()) + 4


def test_a_line_that_follows_the_games_moves_past_their_end_makes_a_variation_and_keeps_the_game() -> None:
    game = review_game(new_session())
    # the page sends a candidate's whole line: here it is the game's own last moves, and more
    tree, _ = variations.branch(game.pk, False, None, "BE5", ["C7", "G7", "A1"])
    assert shown(tree) == ["BE5", "WC7", "BG7", "WA1"] and not tree["nodes"][tree["current"]]["main"]
    tree, _ = variations.branch(game.pk, False, None, "", ["E5", "C7", "G7", "pass", "A1"])
    assert shown(tree) == ["BE5", "WC7", "BG7", "Wpass", "BA1"]
    game.refresh_from_db()
    record = read_sgf(game.sgf)
    assert record.main_line_moves() == read_sgf(RECORD).main_line_moves()  # the game is as it was
    assert record.fingerprint() == read_sgf(RECORD).fingerprint()  # and so is its analysis
    last = tree["nodes"][tree["nodes"][tree["current"]]["parent"]]
    assert [n["main"] for n in tree["nodes"] if n["move"] in (["W", "A1"], ["W", "pass"])] == [False, False]
    assert not last["main"]
    for node in ("BE5 WC7 BG7 Wpass", "BE5 WC7 BG7 WA1"):
        variations.delete_branch(game.pk, False, None, node)
    game.refresh_from_db()
    assert write_sgf(read_sgf(game.sgf)) == write_sgf(read_sgf(RECORD))  # both gone: the record as it was
    tree, _ = variations.branch(game.pk, False, None, "", ["E5", "C7", "G7"])  # the game's own line
    assert shown(tree) == ["BE5", "WC7", "BG7"] and tree["nodes"][tree["current"]]["main"]
    tree, _ = variations.branch(game.pk, False, None, "BE5", ["C7", "D4"])  # a variation at move 3
    assert shown(tree) == ["BE5", "WC7", "BD4"] and not tree["nodes"][tree["current"]]["main"]


def test_a_viewer_plays_on_past_the_end_in_their_own_copy() -> None:
    game = review_game(new_session())
    tree, private = variations.branch(game.pk, True, None, "BE5 WC7 BG7", ["A1"])
    assert shown(tree) == ["BE5", "WC7", "BG7", "WA1"] and not tree["nodes"][tree["current"]]["main"]
    assert private.main_line_moves() == read_sgf(RECORD).main_line_moves()
    game.refresh_from_db()
    assert game.sgf == RECORD


@pytest.mark.parametrize(("record", "node", "why"), [
    # a line through stones added mid-game: the board leaves it out, and replays would not hold it
    ("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc](;B[gg];W[gc])(;B[dd];AW[ef];W[ff];B[ge]))", "BE5 WC7 BD6 WF4",
     "move 4 white F4 follows stones added or removed during the game"),
    # a record's variation with a move on a stone: uploads keep it, the board leaves it out
    ("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc](;B[gg])(;B[cc]))", "BE5 WC7 BC7",
     "this line cannot be the game's: move 3: black C7: illegal move"),
])
def test_a_line_the_board_leaves_out_is_not_made_the_main_line(record: str, node: str, why: str) -> None:
    game = review_game(new_session())
    game.sgf = record
    game.save()
    with pytest.raises(variations.VariationError, match=why):
        variations.promote_branch(game.pk, False, None, node)
    game.refresh_from_db()
    assert game.sgf == record


def test_making_a_variation_the_main_line_stops_the_whole_game_analysis_of_the_old_one() -> None:
    game = review_game(new_session())
    other = review_game(new_session())
    running = [Analysis.objects.create(game=g, status=Analysis.Status.RUNNING, total=4, visits=8)
               for g in (game, other)]
    variations.promote_branch(game.pk, False, None, "BE5 WG3")
    assert [Analysis.objects.get(pk=a.pk).cancel_requested for a in running] == [True, False]
