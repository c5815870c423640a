"""The players' comments of the review board's game tree, written by the game's owner over the
board websocket (``comment``), and the tree's changes told to the owner's other sockets."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator

from analysis.review.notes import read_node
from analysis.sgf import read_sgf
from analysis.sgf.tree import find
from frontend.models import Game
from frontend.services import variations
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

OURS = "Black win rate: 55.0% (200 visits)\nSearch's choice: D4"
RECORD = ("(;GM[1]FF[4]SZ[9]KM[7.5]C[before the game];B[ee]C[the centre];C[a node without a move]"
          f"(;W[cc];B[gc])(;W[gg]SBKV[55.00]C[the other reply\n\n{OURS}]))")


def review_game(key: str, sgf: str = RECORD) -> Game:
    game = make_game(key)
    game.sgf, game.kind, game.phase = sgf, Game.Kind.REVIEW, Game.Phase.FINISHED
    game.save()
    return game


def is_tree(message: dict) -> bool:
    return message["type"] == "tree"


def comment_of(tree: dict, name: str) -> str:
    """The comment the tree message gives the node named ``name``."""
    at = 0
    for word in name.split():
        at = next(c for c in tree["nodes"][at]["children"] if "".join(tree["nodes"][c]["move"]) == word)
    return tree["nodes"][at]["comment"]


def node_of(game: Game, name: str):
    game.refresh_from_db()
    return find(read_sgf(game.sgf), variations.parse_node(name, 9))


def test_the_tree_gives_each_main_line_node_the_comment_the_page_shows_there() -> None:
    game = review_game(new_session())
    tree, _ = variations.show(game.pk, False, None)
    assert comment_of(tree, "") == "before the game"
    assert comment_of(tree, "BE5") == "the centre\n\na node without a move"  # as the timeline joins them
    assert comment_of(tree, "BE5 WC7") == ""
    assert comment_of(tree, "BE5 WG3") == "the other reply"  # a variation's: without our analysis


def test_the_owner_edits_a_main_line_comment_and_the_tree_and_record_have_the_new_one() -> None:
    key = new_session()
    game = review_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await ws.send_json_to({"type": "comment", "node": "BE5", "comment": "  a better move: C3\r\nor D4 "})
        tree = await receive_until(ws, is_tree)
        assert tree["current"] is None and tree["saved"] is True  # the page stays where it is
        assert comment_of(tree, "BE5") == "a better move: C3\nor D4"
        await ws.disconnect()

    asyncio.run(scenario())
    e5 = node_of(game, "BE5")
    assert e5.comment == "a better move: C3\nor D4"
    assert e5.children[0].comment is None  # the node without a move gave its comment up to the new one


def test_a_variations_comment_is_replaced_and_the_sites_analysis_lines_are_kept_below_it() -> None:
    game = review_game(new_session())
    tree, _ = variations.set_comment(game.pk, False, None, "BE5 WG3", "White should tenuki")
    assert comment_of(tree, "BE5 WG3") == "White should tenuki"
    g3 = node_of(game, "BE5 WG3")
    assert g3.comment == f"White should tenuki\n\n{OURS}"
    assert read_node(g3)["black_winrate"] == 0.55 and read_node(g3)["best"] == "D4"
    variations.set_comment(game.pk, False, None, "BE5 WG3", "")  # removed: only our lines stay
    assert node_of(game, "BE5 WG3").comment == OURS


def test_the_starts_comment_replaces_those_of_the_nodes_before_the_first_move() -> None:
    sgf = "(;GM[1]FF[4]SZ[9]KM[7.5]C[the root];C[setup note]AB[aa];B[ee])"
    game = review_game(new_session(), sgf)
    assert comment_of(variations.show(game.pk, False, None)[0], "") == "the root\n\nsetup note"
    tree, _ = variations.set_comment(game.pk, False, None, "", "one note")
    assert comment_of(tree, "") == "one note"
    game.refresh_from_db()
    root = read_sgf(game.sgf).root
    assert root.comment == "one note" and root.children[0].comment is None


def test_a_comment_of_more_than_10000_characters_is_refused_and_the_record_kept() -> None:
    key = new_session()
    game = review_game(key)

    async def scenario() -> None:
        ws = await connect(game.pk, key)
        await ws.send_json_to({"type": "comment", "node": "BE5", "comment": "x" * 10_001})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"] == "a comment may have at most 10000 characters: this one has 10001"
        await ws.send_json_to({"type": "comment", "node": "BE5"})
        error = await receive_until(ws, lambda m: m["type"] == "error")
        assert error["message"] == "comment: missing field 'comment'"
        await ws.disconnect()

    asyncio.run(scenario())
    game.refresh_from_db()
    assert game.sgf == RECORD
    variations.set_comment(game.pk, False, None, "BE5", "x" * 10_000)  # at the limit
    assert node_of(game, "BE5").comment == "x" * 10_000


def test_a_comment_that_would_make_the_record_too_big_to_upload_again_is_refused(settings) -> None:
    game = review_game(new_session())
    settings.GOWEB_MAX_SGF_BYTES = len(RECORD.encode()) + 100
    with pytest.raises(variations.VariationError, match="more than an upload may be"):
        variations.set_comment(game.pk, False, None, "BE5 WC7", "y" * 200)
    game.refresh_from_db()
    assert game.sgf == RECORD
    variations.set_comment(game.pk, False, None, "BE5", "shorter")  # a shorter one is always taken


def test_a_comment_on_a_node_the_tree_lacks_or_a_game_in_play_gets_a_clear_error() -> None:
    key = new_session()
    game = review_game(key)
    with pytest.raises(variations.VariationError, match="the tree has no move 2 white D4"):
        variations.set_comment(game.pk, False, None, "BE5 WD4", "here")
    with pytest.raises(variations.VariationError, match="the game is still being played"):
        variations.set_comment(make_game(key).pk, False, None, "", "here")


def test_a_share_links_viewer_may_not_edit_a_comment() -> None:
    game = review_game(new_session())
    game.share_token = "comment-test-token"
    game.save()

    async def scenario() -> None:
        viewer = WebsocketCommunicator(application, f"/ws/shared/{game.share_token}/", headers=[ORIGIN])
        assert (await viewer.connect())[0]
        await viewer.send_json_to({"type": "comment", "node": "BE5", "comment": "mine"})
        error = await receive_until(viewer, lambda m: m["type"] == "error")
        assert error["message"] == "this shared review is read-only: 'comment' is not allowed"
        await viewer.disconnect()

    asyncio.run(scenario())
    with pytest.raises(variations.VariationError, match="read-only"):
        variations.set_comment(game.pk, True, None, "BE5", "mine")  # and the service says so too
    game.refresh_from_db()
    assert game.sgf == RECORD


def test_the_owners_other_tabs_are_told_the_tree_changed_and_a_viewer_and_the_changer_are_not() -> None:
    key = new_session()
    game = review_game(key)
    game.share_token = "tree-changed-token"
    game.save()

    async def scenario() -> None:
        changer, other = await connect(game.pk, key), await connect(game.pk, key)
        viewer = WebsocketCommunicator(application, f"/ws/shared/{game.share_token}/", headers=[ORIGIN])
        assert (await viewer.connect())[0]
        for ws in (changer, other, viewer):
            await receive_until(ws, lambda m: m["type"] == "state")
        changes = [
            ({"type": "branch", "node": "BE5", "moves": ["D4"]}, False),
            ({"type": "comment", "node": "BE5 WD4", "comment": "new"}, False),
            ({"type": "delete_branch", "node": "BE5 WD4"}, False),
            ({"type": "promote_branch", "node": "BE5 WG3"}, True),
        ]
        for message, main_line_changed in changes:
            await changer.send_json_to(message)
            await receive_until(changer, is_tree)
            told = await receive_until(other, lambda m: m["type"] == "tree_changed")
            assert told == {"type": "tree_changed", "main_line_changed": main_line_changed}
        await changer.send_json_to({"type": "tree"})  # only a look: nobody is told
        await receive_until(changer, is_tree)
        await viewer.send_json_to({"type": "branch", "node": "BE5", "moves": ["D4"]})  # its own copy
        await receive_until(viewer, is_tree)
        for ws in (changer, other, viewer):
            assert await ws.receive_nothing(timeout=0.3)
            await ws.disconnect()

    asyncio.run(scenario())
