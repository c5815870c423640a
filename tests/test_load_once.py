"""A game is parsed and replayed once per request, and a review plays forward."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from analysis.bot.player import Decision
from analysis.go.coords import from_gtp
from analysis.go.position import Position
from analysis.review import analyze
from analysis.sgf import read_sgf, replay
from frontend import tasks
from frontend.services import board, engine, games, parsed
from frontend.services.recent import Recent
from tests.web_helpers import make_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Count the web app's SGF parses (:mod:`frontend.services.parsed`, starting with none kept)
    and replays."""
    calls: Counter = Counter()
    monkeypatch.setattr(parsed, "_records", Recent(parsed.KEPT))
    for module, name in ((parsed, "read_sgf"), (games, "replay")):
        real = getattr(module, name)

        def counting(*args: object, _real=real, _name=name, **kwargs: object) -> object:
            calls[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, counting)
    return calls


def test_a_human_move_parses_and_replays_the_record_once(counted: Counter) -> None:
    game = make_game("owner")
    outcome = board.human_move(game.pk, "E5")
    assert outcome.state["moves"] == [["B", "E5"]] and outcome.bot_expected_moves == 1
    assert counted == {"read_sgf": 1, "replay": 1}


def test_the_bots_reply_reuses_its_loaded_game_under_the_lock(counted: Counter) -> None:
    game = make_game("owner")
    board.human_move(game.pk, "E5")
    counted.clear()
    assert "move" in tasks.bot_move.apply(args=(game.pk, 1)).get()
    assert counted == {"read_sgf": 1, "replay": 1}
    state = board.current(game.pk).state
    assert len(state["moves"]) == 2 and state["to_play"] == "B"


def test_a_reply_chosen_before_an_undo_and_another_move_is_not_played(monkeypatch) -> None:
    """The human undoes and plays elsewhere while the bot thinks: the number of moves is the same,
    but the reply was chosen for another position (it would land on the new stone, or play on
    where nobody asked).  With no request waiting, the task thinks again on the game as it is."""
    game = make_game("owner")
    board.human_move(game.pk, "E5")
    asked: list[str] = []

    class Meanwhile:
        def choose(self, position: Position, seconds: float | None = None) -> Decision:
            asked.append(games.board_string(position))
            if len(asked) == 1:
                board.undo(game.pk)
                board.human_move(game.pk, "C3")
                return Decision(from_gtp("C3", 9))  # a fine reply to E5, but C3 is taken now
            return Decision(from_gtp("G7", 9))

    monkeypatch.setattr(engine, "bot", lambda game_id, level, size: (Meanwhile(), threading.Lock()))
    assert tasks.bot_move.apply(args=(game.pk, 1)).get() == {"move": "G7"}
    assert board.current(game.pk).state["moves"] == [["B", "C3"], ["W", "G7"]]
    assert [glyphs.count("X") for glyphs in asked] == [1, 1] and asked[0] != asked[1]  # E5, then C3


def test_a_review_replays_once_then_plays_forward(monkeypatch: pytest.MonkeyPatch) -> None:
    record = read_sgf("(;SZ[9]KM[7]AB[aa];W[ee];B[cc];W[gg];B[cg])")
    replays = []

    def counting(*args: object, **kwargs: object) -> object:
        replays.append(kwargs.get("upto"))
        return replay(*args, **kwargs)

    monkeypatch.setattr(analyze, "replay", counting)
    positions = list(analyze.game_positions(record, start=1, rules="chinese"))
    assert replays == [1]
    assert [len(p.moves) for p, _ in positions] == [1, 2, 3, 4]
    assert [p.superko for p, _ in positions] == [True] * 4
    for k, (position, _) in enumerate(positions, start=1):
        assert position.stones().tolist() == replay(record, upto=k).stones().tolist()
