"""The play page's state: whether the board is settled (the page asks before a pass on an open
one) and, once the game is counted, each point's owner."""

from __future__ import annotations

import pytest

from frontend.models import Game
from frontend.services import board, games
from tests.test_bot_pass import FINISHED
from tests.web_helpers import make_game, new_session

pytestmark = pytest.mark.django_db

ROWS = [row.replace(" ", "") for row in FINISHED.strip().splitlines()]


def setup(glyph: str) -> str:
    """The SGF setup values of FINISHED's stones drawn ``glyph``."""
    letters = "abcdefghi"
    return "".join(f"[{letters[c]}{letters[r]}]" for r, row in enumerate(ROWS) for c, x in enumerate(row)
                   if x == glyph)


FINISHED_SGF = f"(;GM[1]FF[4]SZ[9]KM[0.5]RU[Chinese]AB{setup('X')}AW{setup('O')}PL[W];W[])"  # White passed


def test_the_state_says_whether_the_board_is_settled_on_the_humans_turn_only() -> None:
    game = make_game(new_session())
    assert board.current(game.pk).state["settled"] is False  # an empty board
    board.human_move(game.pk, "E5")
    assert board.current(game.pk).state["settled"] is None  # the bot's turn
    game.sgf = FINISHED_SGF
    game.save()
    state = board.current(game.pk).state
    assert state["to_play"] == "B" and state["settled"] is True and state["owners"] is None


def test_while_scoring_the_state_gives_each_points_owner_by_the_count_with_the_marked_dead_off() -> None:
    game = make_game(new_session())
    game.sgf = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])"
    game.save()
    state = board.human_move(game.pk, "pass").state
    assert state["phase"] == "scoring" and state["settled"] is None
    owners = state["owners"]
    assert len(owners) == 81 and set(owners) <= set("XO.")
    for vertex in state["dead"]:  # a stone marked dead leaves its point to the other side
        board.toggle_dead(game.pk, vertex)
    alive = board.current(game.pk).state
    assert alive["dead"] == []
    assert alive["owners"] == alive["board"]  # the stones own their points, the rest is dame
    dead = board.toggle_dead(game.pk, "C7").state  # White's one stone dead: Black's stones own all
    assert dead["dead"] == ["C7"] and dead["owners"] == "X" * 81
    game.refresh_from_db()
    assert games.counted_owners(games.load(game)) == dead["owners"]


def test_the_last_move_a_record_may_hold_starts_the_scoring_so_the_sgf_uploads_again(
    settings, client
) -> None:
    settings.GOWEB_MAX_GAME_MOVES = 3
    game = make_game(new_session())
    for color, vertex in (("B", "E5"), ("W", "C3"), ("B", "G7")):
        with games.locked(game.pk) as loaded:
            assert loaded.game.phase == Game.Phase.PLAYING
            games.play(loaded, color, vertex)
    game.refresh_from_db()
    assert game.phase == Game.Phase.SCORING and len(games.record_of(game).main_line_moves()) == 3
    with games.locked(game.pk) as loaded:
        with pytest.raises(games.GameError, match="the game is being scored"):
            games.play(loaded, "W", "D4")
        games.accept_score(loaded)
    assert client.post("/review", {"text": Game.objects.get(pk=game.pk).sgf}).status_code == 302
