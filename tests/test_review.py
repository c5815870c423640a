"""Position and game analysis with the tree search (analysis.review, analysis.review.report), and
the network's score estimate (analysis.review.estimate)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
import torch

from analysis.go.coords import WHITE, from_gtp
from analysis.go.position import Position
from analysis.mcts import BaggedRoot, NetEvaluator
from analysis.nets.inference import Prediction
from analysis.review import networks
from analysis.review.analyze import (
    answer_query,
    game_entry,
    game_positions,
    position_analysis,
    root_judgement,
)
from analysis.review.ended import marked_dead, territory_marks
from analysis.review.estimate import SYMMETRIES, estimate
from analysis.review.query import PositionQuery
from analysis.review.report import annotate, mistakes, moves_judged, ranked_mistakes
from analysis.review.summary import CLASSES, POINT_BOUNDS, loss_class, player_summaries
from analysis.sgf import SgfNode, read_sgf, replay, write_sgf


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Run the network on one thread, as the web site's workers do (two threads crawl on a busy machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class FavouriteEvaluator:
    """A fake evaluator: the policy prefers points in index order; whoever holds ``favourite`` wins."""

    def __init__(self, favourite: int) -> None:
        self.favourite = favourite

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        n = positions[0].size ** 2 + 1
        priors = np.tile(np.linspace(1.0, 0.1, n), (len(positions), 1))
        holder = [p.color_at(self.favourite) * p.to_play for p in positions]  # 1: the mover's stone
        return priors, np.array([{1: 0.9, -1: 0.1, 0: 0.5}[h] for h in holder]), None


def test_win_rates_and_best_move_come_from_the_search() -> None:
    favourite = from_gtp("E5", 9)  # prior rank 41 of 82: only the search can find it
    evaluator = FavouriteEvaluator(favourite)
    analysis = position_analysis(Position(9), evaluator, visits=400, include_policy=True, include_search=True)
    assert analysis["visits"] == 400 and analysis["best"] == "E5"
    assert analysis["winrate"] > 0.55  # the network alone says 0.5
    assert analysis["black_winrate"] == analysis["winrate"]
    candidates = analysis["candidates"]
    assert candidates[0]["move"] == "E5" and candidates[0]["order"] == 0  # the search's best, ahead
    assert [c["order"] for c in candidates] == list(range(len(candidates)))
    assert all(c["pv"][0] == c["move"] for c in candidates)
    moves = analysis["moves"]
    assert moves[0]["move"] == "E5" and moves[0]["winrate"] > 0.8
    assert moves[0]["prior"] < candidates[-1]["prior"]
    assert sum(m["visits"] for m in moves) == 399 and len(analysis["policy"]) == 82


def test_the_root_is_judged_over_the_eight_symmetries_and_the_shared_cache_keeps_one() -> None:
    network = networks.network()
    evaluator = networks.search_evaluator()
    position = replay(read_sgf(b"(;GM[1]SZ[19]KM[6.5];B[pd];W[dp];B[pp];W[dd];B[fq];W[cn])"))

    analysis = position_analysis(position, evaluator, visits=1, include_policy=True)

    bagged, single = network.predict([position], symmetries=8), network.predict([position])
    assert np.allclose(analysis["policy"], bagged.policy[0], atol=1e-5)
    assert not np.allclose(analysis["policy"], single.policy[0], atol=1e-4)
    assert analysis["winrate"] == round(float(bagged.value[0]), 4)
    assert analysis["candidates"][0]["prior"] == round(float(bagged.policy[0].max()), 5)
    # the bot's searches share the evaluator's cache: they still get the one-orientation outputs
    priors, wins, _ = evaluator.evaluate([position])
    assert np.allclose(priors[0], single.policy[0]) and wins[0] == pytest.approx(single.value[0])


def test_a_bagged_root_answers_for_the_root_and_the_inner_evaluator_for_the_rest() -> None:
    root, other = Position(9), Position(9)
    other.play(from_gtp("E5", 9))
    judged = (np.full(82, 1 / 82, np.float32), 0.77, None)

    priors, wins, leads = BaggedRoot(FavouriteEvaluator(from_gtp("E5", 9)), root, judged).evaluate(
        [other, root, other])

    assert wins.tolist() == [0.1, 0.77, 0.1]  # White to move after E5: the favourite is Black's
    assert np.allclose(priors[1], 1 / 82) and priors[0][0] == 1.0 and leads is None


def test_unvisited_candidates_have_no_win_rate() -> None:
    analysis = position_analysis(Position(9), FavouriteEvaluator(0), visits=3)
    visited = [c for c in analysis["candidates"] if c["visits"]]
    assert len(visited) == 2 and "moves" not in analysis and "policy" not in analysis
    unvisited = analysis["candidates"][5]
    assert unvisited["winrate"] is None and unvisited["pv"] == [unvisited["move"]]


def test_candidates_are_the_searchs_moves_in_its_order_then_the_networks_unvisited_ideas() -> None:
    favourite = from_gtp("E5", 9)  # prior rank 41 of 82: outside the policy's top 10
    top10 = ["A9", "B9", "C9", "D9", "E9", "F9", "G9", "H9", "J9", "A8"]  # the policy's, best first
    for visits in (400, 5):
        analysis = position_analysis(Position(9), FavouriteEvaluator(favourite), visits, include_search=True)
        candidates = analysis["candidates"]
        visited = [c for c in candidates if c["visits"]]
        ideas = candidates[len(visited):]
        in_order = [{**m, "order": i} for i, m in enumerate(analysis["moves"][:10])]
        assert visited == in_order  # the search's 10 most visited, in its order
        assert visited[0]["move"] == analysis["best"]
        assert all(c["visits"] == 0 and c["winrate"] is None for c in ideas)
        searched = {m["move"] for m in analysis["moves"]}
        assert [c["move"] for c in ideas] == [m for m in top10 if m not in searched]
        assert [c["order"] for c in candidates] == list(range(len(candidates)))
    assert len(ideas) >= 6  # 5 visits: 4 moves visited at most, the rest of the top 10 are ideas


def test_game_entries_rank_the_played_move_and_mistakes_use_the_search() -> None:
    record = read_sgf("(;SZ[9]KM[7];B[ee];W[aa];B[cc])")
    evaluator = networks.search_evaluator()
    results = [
        game_entry(position, move, k, evaluator, visits=16, rules="chinese")
        for k, (position, move) in enumerate(game_positions(record))
    ]
    assert [r["move_number"] for r in results] == [0, 1, 2, 3]
    assert [r["played"] for r in results] == ["E5", "A9", "C7", None]
    assert all(r["visits"] == 16 and r["candidates"][0]["move"] == r["best"] for r in results[:3])
    assert results[1]["played_rank"] > 10  # nobody plays A9 on an open board
    assert 0 < results[0]["played_prior"] < 1 and "policy" not in results[0]
    worst = mistakes(results)
    assert worst and worst[0]["move_number"] == 2 and worst[0]["color"] == "W"
    assert worst[0]["best"] == results[1]["best"] and worst[0]["best"] != "A9"
    later = [(p.moves[-1].point, move) for p, move in game_positions(record, start=2)]
    assert later == [(from_gtp("A9", 9), (1, from_gtp("C7", 9))), (from_gtp("C7", 9), None)]
    annotate(record, results)
    comment = list(record.main_line())[2].comment
    assert "Black win rate" in comment and "(16 visits)" in comment and "Search's choice" in comment


def test_mistakes_leave_out_the_searchs_own_choice_and_the_pass_that_ends_the_game() -> None:
    def entry(k: int, to_play: str, black: float, played: str | None, best: str) -> dict:
        return {"move_number": k, "to_play": to_play, "black_winrate": black, "played": played,
                "best": best, "black_score_lead": 20 * (black - 0.5)}

    results = [
        entry(0, "B", 0.60, "C3", "E5"),  # Black drops 0.10 with a move the search did not choose
        entry(1, "W", 0.50, "G7", "G7"),  # White drops 0.05 with the search's own choice: noise
        entry(2, "B", 0.55, "pass", "D4"),  # Black drops 0.15 by passing early: a mistake
        entry(3, "W", 0.40, "pass", "C6"),  # White's pass ends the game: not judged
        entry(4, "B", 0.90, None, "E5"),
    ]
    assert [(m["move_number"], m["move"]) for m in mistakes(results)] == [(3, "pass"), (1, "C3")]
    assert [m["move_number"] for m in mistakes(results, by="score")] == [3, 1]


def test_each_players_summary_classes_its_moves_by_the_points_they_lost() -> None:
    def entry(k: int, to_play: str, lead: float, played: str | None, best: str, rank: int) -> dict:
        return {"move_number": k, "to_play": to_play, "black_winrate": 0.5 + lead / 40, "played": played,
                "best": best, "black_score_lead": lead, "played_rank": rank, "candidates": []}

    results = [
        entry(0, "B", 2.0, "C3", "E5", 3),  # Black loses 2 points: slack
        entry(1, "W", 0.0, "G7", "G7", 1),  # the search's own choice: 0, however the lead moved
        entry(2, "B", 1.0, "pass", "D4", 12),  # Black passes early and loses 3 points: an inaccuracy
        entry(3, "W", -2.0, "pass", "C6", 1),  # White's pass ends the game: not judged
        entry(4, "B", 8.0, None, "E5", 1),
    ]
    summary = player_summaries(moves_judged(results))
    assert summary["B"] == {"moves": 2, "measure": "points", "mean_loss": 2.5, "best": 0.0, "top": 0.5,
                            "classes": [0, 0, 1, 1, 0, 0]}
    assert summary["W"] == {"moves": 1, "measure": "points", "mean_loss": 0.0, "best": 1.0, "top": 1.0,
                            "classes": [0, 0, 0, 0, 0, 1]}
    assert CLASSES[2] == "inaccuracy"
    assert loss_class(12.0, POINT_BOUNDS) == 0 and loss_class(0.4, POINT_BOUNDS) == 5
    no_leads = [{**e, "black_score_lead": None} for e in results]  # a network without a score head
    by_winrate = player_summaries(moves_judged(no_leads))["B"]
    assert by_winrate["measure"] == "winrate" and by_winrate["mean_loss"] == pytest.approx((0.05 + 0.075) / 2)
    assert by_winrate["classes"] == [0, 0, 2, 0, 0, 0]  # 5% and 7.5% of win rate: two inaccuracies
    assert player_summaries(moves_judged(results[:1])) is None
    assert ranked_mistakes(results)["summary"] == summary
    record = read_sgf("(;SZ[9]KM[7]C[Played online];B[cg];W[gc];B[tt];W[tt])")
    annotate(record, results)
    annotate(record, results)  # analysed again: one summary, the record's own comment kept
    lines = record.root.comment.split("\n")
    assert lines[0] == "Played online" and lines.count("Played online") == 1
    assert lines[2] == ("Black: 2 moves judged, mean loss 2.50 points; 0 blunders, 0 mistakes, "
                        "1 inaccuracy, 1 slack, 0 fine, 0 good; search's choice 0%, network's top 5 50%")
    assert sum(line.startswith("White: 1 move judged") for line in lines) == 1


def test_the_reviews_territory_of_a_symmetric_position_is_symmetric() -> None:
    network = networks.network()
    judged = root_judgement(NetEvaluator(network), Position(9, 7.5), ownership=True)
    owned = np.array(judged["ownership"]).reshape(9, 9)
    assert np.allclose(owned, owned.T, atol=2e-3) and np.allclose(owned, owned[::-1], atol=2e-3)
    one_orientation = network.predict([Position(9, 7.5)]).ownership[0].reshape(9, 9)
    assert not np.allclose(one_orientation, one_orientation[::-1], atol=2e-3)


class CountingNetwork:
    """The default network, counting the positions it predicts over the 8 symmetries."""

    def __init__(self) -> None:
        self.inner = networks.network()
        self.bagged = 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def predict(self, positions: Sequence[Position], symmetries: int = 1) -> Prediction:
        self.bagged += len(positions) if symmetries == 8 else 0
        return self.inner.predict(positions, symmetries)


def test_an_analysis_predicts_its_root_over_the_symmetries_once_for_the_search_and_the_territory() -> None:
    network = CountingNetwork()
    evaluator = networks.LockedEvaluator(NetEvaluator(network))
    query = PositionQuery(size=9, komi=7.5, rules="chinese", visits=16, moves=(("B", "E5"),), ownership=True)
    answer = answer_query(query, evaluator)
    assert network.bagged == 1 and len(answer["ownership"]) == 81 and answer["score_stdev"] is not None
    judged = network.inner.predict([query.position()], symmetries=8)
    assert answer["ownership"] == [round(float(v), 3) for v in judged.ownership[0]]
    assert answer["candidates"][0]["prior"] == pytest.approx(float(judged.policy[0].max()), abs=1e-5)


def test_annotate_writes_sabakis_score_lead_beside_its_win_rate() -> None:
    record = read_sgf("(;SZ[9]KM[7];B[ee];W[cc])")
    entry = {"to_play": "B", "black_winrate": 0.5, "candidates": [], "played": "E5", "visits": 8}
    results = [
        {**entry, "move_number": 0, "black_score_lead": 2.0},
        {**entry, "move_number": 1, "to_play": "W", "black_score_lead": -3.5, "played": "C7"},
        {**entry, "move_number": 2, "black_score_lead": None, "played": None},  # no score head
    ]
    annotate(record, results)
    nodes = [record.root, *(node for node in record.main_line() if node.has_move())]
    assert [node.get("SBKS") for node in nodes] == ["2.0", "-3.5", None]
    assert all(node.get("SBKV") == "50.00" for node in nodes)
    assert "Score lead: W+3.5" in nodes[1].comment


class FixedNetwork:
    """A fake network whose every output is known: for the player to move, a 0.8 win rate, a lead
    of 4 points, and ownership +0.9 on the first point, -0.5 on the others (None: no such head)."""

    def __init__(self, heads: bool = True) -> None:
        self.heads = heads
        self.symmetries = None

    def predict(self, positions: Sequence[Position], symmetries: int = 1) -> Prediction:
        self.symmetries = symmetries
        area = positions[0].size ** 2
        owned = np.full((1, area), -0.5, dtype=np.float32)
        owned[0, 0] = 0.9
        logit = np.array([np.log(0.8 / 0.2)], dtype=np.float32)
        if not self.heads:
            return Prediction(np.zeros((1, 1, area + 1), dtype=np.float32), logit)
        return Prediction(np.zeros((1, 1, area + 1), dtype=np.float32), logit, owned,
                          np.array([4.0], dtype=np.float32), np.array([9.0], dtype=np.float32))


@pytest.mark.parametrize("mover", ["B", "W"])
def test_the_estimate_turns_the_networks_outputs_to_blacks_side(mover: str) -> None:
    position = Position(9)
    if mover == "W":
        position.play(from_gtp("E5", 9))
    network = FixedNetwork()
    result = estimate(network, position, "fixed")
    sign = 1 if mover == "B" else -1
    assert network.symmetries == SYMMETRIES == 8
    assert result["to_play"] == mover and result["message"] is None
    assert result["black_winrate"] == pytest.approx(0.8 if mover == "B" else 0.2)
    assert (result["black_score_lead"], result["score_stdev"]) == (4.0 * sign, 9.0)
    assert len(result["ownership"]) == 81
    assert result["ownership"][:2] == pytest.approx([0.9 * sign, -0.5 * sign])


# a finished 5x5 game with one dead black stone (E4) in White's area
DEAD_STONE_LEFT = """
    . X O . .
    X X O . X
    . X O O O
    X X O . O
    . X O O .
"""


@pytest.mark.parametrize(("rules", "count", "kind"),
                         [("chinese", -5.5, "area"), ("japanese", -4.5, "territory")])
def test_the_estimate_counts_the_board_as_it_stands_with_its_dead_stones_taken_off(
    rules: str, count: float, kind: str
) -> None:
    position = Position.from_diagram(DEAD_STONE_LEFT, komi=0.5)
    result = estimate(FixedNetwork(), position, "fixed", rules)
    assert (result["black_count"], result["count_kind"]) == (count, kind)  # E4 a prisoner by territory


def test_the_estimate_gives_no_count_while_only_one_side_has_stones() -> None:
    handicap = Position.from_stones(9, 0.5, False, [from_gtp("C3", 9), from_gtp("G7", 9)], [], WHITE)
    assert estimate(FixedNetwork(), handicap, "fixed", "chinese")["black_count"] is None  # not B+80.5
    handicap.play(from_gtp("E5", 9), WHITE)
    assert estimate(FixedNetwork(), handicap, "fixed", "chinese")["black_count"] == 2 - 1.5
    walls = Position.from_diagram("\n".join(["X" * 9 if row == 4 else "O" * 9 if row == 5 else "." * 9
                                               for row in range(9)]), komi=7)
    assert estimate(FixedNetwork(), walls, "fixed", "chinese")["black_count"] == 45 - 43  # settled 9x9


def test_an_estimate_without_score_and_ownership_heads_names_what_it_lacks() -> None:
    result = estimate(FixedNetwork(heads=False), Position(9), "golois")
    assert result["black_winrate"] == pytest.approx(0.8)
    assert [result[k] for k in ("black_score_lead", "score_stdev", "ownership")] == [None, None, None]
    assert result["message"] == (
        "the network golois has no score or ownership head, so this estimate has no score lead or territory"
    )


# Black's wall on column C, White's on D; White's stone at B2 is dead inside Black's area.
ENDED = """
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . . X O . . .
    . O X O . . .
    . . X O . . .
"""


def ended_position(komi: float = 0.5) -> Position:
    """Return ``ENDED`` after a pass from each side (Black passed first, so Black is to move)."""
    position = Position.from_diagram(ENDED, komi=komi)
    position.pass_move()
    position.pass_move()
    return position


def test_a_position_that_two_passes_ended_is_counted_not_searched() -> None:
    entry = game_entry(ended_position(), None, 2, FavouriteEvaluator(0), visits=50, rules="chinese")
    # area: Black 21 points (columns A-C, B2's stone dead), White 28 points + 0.5 komi
    assert entry["counted"] == {"result": "W+7.5", "kind": "area", "dead": ["B2"]}
    assert (entry["black_score_lead"], entry["score_lead"]) == (-7.5, -7.5)  # Black is to move
    assert (entry["black_winrate"], entry["winrate"]) == (0.0, 0.0)
    assert entry["visits"] == 0 and entry["best"] is None and entry["candidates"] == []


def test_the_count_takes_the_marked_dead_stones_and_the_rules_of_the_game() -> None:
    marked_alive = game_entry(ended_position(), None, 2, FavouriteEvaluator(0), 50, "chinese", dead=[])
    # B2 alive: the empty points beside it touch both colours, so Black keeps only its 7 stones
    assert marked_alive["counted"]["result"] == "W+22.5" and marked_alive["counted"]["dead"] == []
    territory = game_entry(ended_position(), None, 2, FavouriteEvaluator(0), 50, "japanese")
    # territory: Black 14 empty points + 1 dead stone, White 21 empty points + 0.5 komi
    assert territory["counted"]["result"] == "W+6.5" and territory["counted"]["kind"] == "territory"
    draw = game_entry(ended_position(komi=-7), None, 2, FavouriteEvaluator(0), 50, "chinese")
    assert draw["counted"]["result"] == "0" and draw["black_winrate"] == draw["winrate"] == 0.5


def test_territory_marks_carry_the_dead_stones_to_whoever_counts_the_record_next() -> None:
    position = ended_position()
    b2 = from_gtp("B2", 7)
    marks = territory_marks(position, [b2])
    # Black owns columns A and B (B2's dead stone among them), White columns E to G.
    assert len(marks["TB"]) == 14 and "bf" in marks["TB"] and len(marks["TW"]) == 21
    node = SgfNode(marks)
    assert marked_dead(position, node) == {b2}
    assert marked_dead(position, SgfNode()) is None  # no marks: nobody said
    assert marked_dead(position, SgfNode({"TB": [""], "TW": [""]})) is None  # empty lists, as SGF allows
    assert marked_dead(position, SgfNode({"TB": ["zz"]})) is None  # off the board: the estimate counts


def test_a_dead_stone_where_the_count_leaves_the_point_to_nobody_is_still_marked_dead() -> None:
    position = Position.from_diagram("""
        . X O . .
        X X O . .
        . X O . .
        X X O O O
        . X . O .
    """)
    c1 = from_gtp("C1", 5)  # an empty point touching both colours: nobody's once the count is made
    position.play(c1, 1)
    marks = territory_marks(position, [c1])
    assert "ce" in marks["TW"] and marked_dead(position, SgfNode(marks)) == {c1}


def test_one_pass_is_searched_and_the_api_searches_an_ended_position_as_katago_does() -> None:
    one_pass = Position.from_diagram(ENDED, komi=0.5)
    one_pass.pass_move()
    assert "counted" not in game_entry(one_pass, None, 1, FavouriteEvaluator(0), 8, "chinese")
    played_on = game_entry(ended_position(), (1, from_gtp("E4", 7)), 2, FavouriteEvaluator(0), 8, "chinese")
    assert "counted" not in played_on and played_on["visits"] == 8  # the record goes on: not the end
    moves = (("B", "pass"), ("W", "pass"))
    query = PositionQuery(size=9, komi=0.5, rules="chinese", visits=8, moves=moves, ownership=True)
    searched = answer_query(query, FavouriteEvaluator(0))
    assert "counted" not in searched and searched["visits"] == 8
    counted = answer_query(
        PositionQuery(**{**query.to_json(), "count_ended": True, "dead": ["E5"]}), FavouriteEvaluator(0)
    )
    assert counted["counted"]["dead"] == ["E5"] and counted["visits"] == 0
    assert counted["ownership"] == [0] * 81 and len(counted["policy"]) == 82  # an empty board: all dame


def test_the_analysed_sgf_says_the_count_of_the_ended_position() -> None:
    entry = game_entry(ended_position(), None, 2, FavouriteEvaluator(0), 8, "chinese")
    record = read_sgf("(;SZ[7]KM[0.5];B[];W[])")
    before = [{**entry, "move_number": k, "counted": None} for k in (0, 1)]
    annotate(record, [*before, entry])
    comment = list(record.main_line())[-1].comment
    assert "Two passes ended the game: counted W+7.5 by area" in comment
    assert "Black win rate: 0.0%" in comment and "Candidates" not in comment and "Search's" not in comment


def test_annotating_an_analysed_record_again_replaces_the_analysis_and_keeps_the_players_comments() -> None:
    record = read_sgf("(;SZ[9]KM[7];B[ee]C[a fine move];W[cc])")
    results = [{"move_number": k, "to_play": "BW"[k % 2], "black_winrate": 0.5 - 0.1 * k, "visits": 8,
                "black_score_lead": -2.0 * k, "candidates": [{"move": "E5", "prior": 0.5}], "best": "D4",
                "played": ["E5", "C7", None][k], "played_rank": 3} for k in range(3)]
    annotate(record, results)
    once = [node.comment for node in record.main_line()]
    again = read_sgf(write_sgf(record))
    annotate(again, results)
    assert [node.comment for node in again.main_line()] == once
    assert once[1].startswith("a fine move\n\nBlack win rate: 40.0% (8 visits)")
    assert once[1].count("Black win rate") == 1
    assert "Mistake: lost 10.0% and 2.0 points; best was D4" in once[1]
