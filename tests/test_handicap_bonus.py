"""White's handicap bonus: the komi a position counts with, under the rules' table (KataGo's)."""

from __future__ import annotations

import re

import pytest

from analysis.go.coords import WHITE
from analysis.go.position import Position
from analysis.go.ruled import counted_komi, handicap_stones
from analysis.go.rules import default_komi, white_handicap_bonus
from analysis.go.scoring import score
from analysis.gtp.engine import GtpEngine
from analysis.review.analyze import game_positions
from analysis.review.ended import counted_analysis
from analysis.review.query import PositionQuery
from analysis.sgf import read_sgf, replay
from frontend.services import game_analysis, games
from tests.web_helpers import make_game

# Two handicap stones (E7, E3); Black fills column E, White column F; Black passes twice, so White
# plays 9 stones to Black's 7 moves and the game ends on two passes.  A-E is Black's (45 points by
# area, 36 by territory), F-J White's (36 and 27).
WALLS = ("(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]AB[ec][eg]"
         ";W[fa];B[ea];W[fb];B[eb];W[fc];B[ed];W[fd];B[ee];W[fe];B[ef];W[ff];B[eh];W[fg];B[ei];W[fh]"
         ";B[];W[fi];B[];W[])")


@pytest.mark.parametrize(("rules", "stones", "bonus"), [
    ("chinese", 4, 4), ("Chinese-OGS", 3, 3), ("chinese_kgs", 9, 9),
    ("aga", 4, 3), ("AGA", 2, 1), ("bga", 5, 4), ("french", 2, 1), ("aga-button", 3, 2),
    ("tromp-taylor", 4, 0), ("nz", 4, 0), ("ing", 4, 0), ("stone-scoring", 4, 0),
    ("japanese", 4, 0), ("korean", 9, 0), ("chinese", 0, 0), ("aga", 0, 0), ("made-up", 4, 0),
])
def test_whites_handicap_bonus_follows_katagos_rules_table(rules: str, stones: int, bonus: int) -> None:
    assert white_handicap_bonus(rules, stones) == bonus


@pytest.mark.parametrize(("rules", "komi"), [("chinese", 7.5), ("Japanese", 6.5), ("korean", 6.5),
                                             ("aga", 7.5), ("aga-button", 7.0), ("tromp-taylor", 7.5)])
def test_the_usual_even_komi_is_katagos_by_rules(rules: str, komi: float) -> None:
    assert default_komi(rules) == komi


def test_the_gtp_engine_and_the_new_game_form_start_from_the_usual_komi() -> None:
    from frontend.forms import NewGameForm

    assert (GtpEngine(rules="chinese").komi, GtpEngine(rules="japanese").komi) == (7.5, 6.5)
    proposed = NewGameForm().komi_defaults()
    assert proposed["even"] == {"chinese": 7.5, "japanese": 6.5, "aga": 7.5, "tromp-taylor": 7.5}
    assert proposed["handicap"] == 0.5


@pytest.mark.parametrize(("diagram", "stones"), [
    ("""
     . . . . .
     . X . X .
     . . . . .
     . X . X .
     . . . . .
     """, 4),
    ("""
     . . . . .
     . . . . .
     . . X . .
     . . . . .
     . . . . .
     """, 0),  # one stone is an even game (no komi), not a handicap
    ("""
     . . . . .
     . X . X .
     . . . . .
     . X . O .
     . . . . .
     """, 0),  # a set-up position, not a handicap
    ("""
     . . . . .
     . . . . .
     . . . . .
     . . . . .
     . . . . .
     """, 0),
])
def test_the_handicap_is_the_black_stones_set_up_before_the_first_move(diagram: str, stones: int) -> None:
    position = Position.from_diagram(diagram, komi=0.5, to_play=WHITE)
    assert handicap_stones(position) == stones
    position.play(0)  # moves after the setup are not handicap stones
    position.play(1)
    assert handicap_stones(position) == stones
    opening = Position(9)
    opening.play(0)
    opening.setup(black=[5])  # stones set up after a move are not a handicap either
    assert handicap_stones(opening) == 0


@pytest.mark.parametrize(("rules", "counted", "margin"), [
    ("chinese", 2.5, 6.5), ("aga", 1.5, 7.5), ("tromp-taylor", 0.5, 8.5), ("japanese", 0.5, 8.5),
])
def test_the_count_of_a_handicap_game_gives_white_the_rules_bonus(rules: str, counted: float,
                                                                  margin: float) -> None:
    record = read_sgf(WALLS)
    position = replay(record, rules=rules)
    assert record.komi == 0.5 and position.komi == counted
    assert score(position, rules).margin == margin
    assert replay(record).komi == 0.5  # without rules: the record's komi, as training reads records


@pytest.mark.parametrize(("rules", "scoring"),
                         [("chinese", "area"), ("aga", "area"), ("japanese", "territory")])
def test_positions_built_under_rules_carry_their_scoring_for_the_search(rules: str, scoring: str) -> None:
    record = read_sgf(WALLS)
    query = PositionQuery(size=9, komi=0.5, rules=rules, visits=1, moves=(("B", "E5"),))
    engine = GtpEngine(rules=rules if rules != "aga" else "chinese", size=9)
    assert replay(record, rules=rules).scoring == query.position().scoring == scoring
    assert replay(record, rules=rules).copy().scoring == scoring and replay(record).scoring == "area"
    assert engine.position.scoring == ("territory" if rules == "japanese" else "area")


def test_an_even_game_counts_with_its_komi_under_every_rules() -> None:
    record = read_sgf("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")
    assert {replay(record, rules=rules).komi for rules in ("chinese", "aga", "japanese")} == {7.5}


@pytest.mark.parametrize(("rules", "komi"), [("chinese", 2.5), ("aga", 1.5), ("japanese", 0.5)])
def test_an_analysis_query_counts_and_searches_with_the_bonus(rules: str, komi: float) -> None:
    query = PositionQuery(size=9, komi=0.5, rules=rules, visits=1,
                          initial_stones=(("B", "C3"), ("B", "G7")), moves=(("W", "E5"),))
    assert query.position().komi == komi == counted_komi(0.5, rules, query.position())


def test_gtp_counts_the_handicap_bonus_and_writes_the_games_own_komi(tmp_path) -> None:
    engine = GtpEngine(rules="chinese", size=9)
    for line in ("komi 0.5", "fixed_handicap 2"):
        assert engine.respond(line).startswith("=")
    assert engine.position.komi == 2.5
    # two stones alone: Black owns the board, 81 points by area less 0.5 komi and 2 for the handicap
    assert engine.respond("final_score") == "= B+78.5\n\n"
    assert engine.respond("komi 1.5").startswith("=") and engine.position.komi == 3.5
    path = tmp_path / "game.sgf"
    assert engine.respond(f"printsgf {path}").startswith("=")
    saved = read_sgf(path.read_bytes())
    assert saved.komi == 1.5 and saved.handicap == 2
    engine.respond("clear_board")
    assert engine.position.komi == 1.5
    assert engine.respond(f"loadsgf {path}") == "= white\n\n" and engine.position.komi == 3.5
    japanese = GtpEngine(rules="japanese", size=9)
    for line in ("komi 0.5", "fixed_handicap 2"):
        japanese.respond(line)
    assert japanese.position.komi == 0.5 and japanese.respond("final_score") == "= B+78.5\n\n"


def test_blacks_moves_before_whites_first_are_a_handicap_as_katago_assumes() -> None:
    engine = GtpEngine(rules="chinese", size=9)
    komis = []
    lines = ("komi 0.5", "play B C3", "play B G7", "play B pass", "play B C7", "play W E5", "undo", "undo")
    for line in lines:
        assert engine.respond(line).startswith("="), line
        komis.append(engine.position.komi)
    assert komis == [0.5, 0.5, 2.5, 2.5, 3.5, 3.5, 3.5, 2.5]
    record = read_sgf("(;GM[1]FF[4]SZ[9]KM[0.5];B[cc];B[gg];W[ee];B[ec])")
    assert [p.komi for p, _ in game_positions(record, rules="chinese")] == [0.5, 0.5, 2.5, 2.5, 2.5]
    assert replay(record, rules="chinese").komi == 2.5 and replay(record, 1, rules="chinese").komi == 0.5
    even = read_sgf("(;GM[1]FF[4]SZ[9]KM[7.5];B[cc];W[gg];B[ee])")
    assert {p.komi for p, _ in game_positions(even, rules="chinese")} == {7.5}


@pytest.mark.django_db
@pytest.mark.parametrize(("rules", "white"), [("chinese", 2.5), ("japanese", 0.5)])
def test_a_handicap_game_against_the_bot_is_counted_with_whites_bonus(rules: str, white: float) -> None:
    game = make_game("someone", handicap=2, komi=0.5, rules=rules)
    loaded = games.load(game)
    games.play(loaded, "W", "pass")
    games.play(loaded, "B", "pass")
    loaded.game.dead = []
    counted = games.current_score(loaded)
    assert counted["white"] == white and counted["result"] == "B+78.5"  # the same margin either way
    assert (counted["komi"], counted["handicap_bonus"]) == (0.5, white - 0.5)
    assert games.handicap_bonus(game) == white - 0.5


@pytest.mark.django_db
@pytest.mark.parametrize(("rules", "note"),
                         [("chinese", "White +4 for the handicap at the count"), ("japanese", None)])
def test_the_board_pages_tell_whites_handicap_bonus(client, rules: str, note: str | None) -> None:
    client.post("/new", {"human_color": "B", "size": 9, "handicap": 4, "komi": 0.5, "rules": rules,
                         "bot_level": "rules"})
    game = games.Game.objects.get()
    for page in (f"/game/{game.pk}/", f"/game/{game.pk}/review"):
        content = client.get(page).content.decode()
        assert ('id="handicap-bonus"' in content) is (note is not None)
        assert note is None or note in content
        assert "· handicap 4" in content  # both headers name the handicap


HANDICAP_UPLOAD = "(;FF[4]GM[1]SZ[9]{ru}HA[2]KM[0.5]AB[cc][gg];W[ee];B[ce];W[eg];B[gc];W[ec];B[cg];W[];B[])"


@pytest.mark.django_db
@pytest.mark.parametrize(("ru", "stored", "bonus", "result"), [
    ("RU[Chinese]", "chinese", 2, "counted W+0.5 by area"),
    ("", "chinese", 2, "counted W+0.5 by area"),
    ("RU[AGA]", "aga", 1, "counted B+0.5 by area"),
    ("RU[BGA]", "aga", 1, "counted B+0.5 by area"),
    ("RU[NZ]", "tromp-taylor", 0, "counted B+1.5 by area"),
    ("RU[Tromp-Taylor]", "tromp-taylor", 0, "counted B+1.5 by area"),
    ("RU[Japanese]", "japanese", 0, "counted W+0.5 by territory"),
])
def test_an_uploaded_handicap_game_keeps_what_its_rules_give_white(
    client, ru: str, stored: str, bonus: int, result: str
) -> None:
    assert client.post("/review", {"text": HANDICAP_UPLOAD.format(ru=ru)}).status_code == 302
    game = games.Game.objects.get()
    assert game.rules == stored and games.handicap_bonus(game) == bonus
    loaded = games.load(game)
    count = counted_analysis(loaded.position, game.rules, dead=[])
    assert f"counted {count['counted']['result']} by {count['counted']['kind']}" == result


@pytest.mark.django_db
def test_a_new_aga_game_names_its_rules_in_the_record_and_gives_white_one_point_less(client) -> None:
    client.post("/new", {"human_color": "B", "size": 9, "handicap": 3, "komi": 0.5, "rules": "aga",
                         "bot_level": "rules"})
    game = games.Game.objects.get()
    assert read_sgf(game.sgf).rules == "AGA" and games.handicap_bonus(game) == 2
    text = " ".join(re.sub(r"<[^>]+>", "", client.get(f"/game/{game.pk}/").content.decode()).split())
    assert "AGA (area) · komi 0.5 · handicap 3 (White +2 for the handicap at the count)" in text


@pytest.mark.django_db
@pytest.mark.parametrize(("ru", "bonus"), [("RU[Chinese]", 2), ("RU[Japanese]", 0)])
def test_an_analysis_is_keyed_to_the_bonus_it_was_searched_with(client, ru: str, bonus: int) -> None:
    sgf = f"(;GM[1]FF[4]SZ[9]KM[0.5]{ru};B[cc];B[gg];W[ee];B[ec])"  # two opening Black moves
    assert client.post("/review", {"text": sgf}).status_code == 302
    game = games.Game.objects.get()
    record = games.record_of(game)
    assert games.handicap_bonus(game, record) == bonus
    assert (game_analysis.record_key(game, record) == record.fingerprint()) is (bonus == 0)
