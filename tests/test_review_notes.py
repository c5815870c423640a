"""The analysed SGF read back: what annotate() and write_node() write, read_node() and read_back()
turn back into analysis entries, and each move's node says what it lost."""

from __future__ import annotations

from analysis.review.notes import read_node, without_analysis, write_node
from analysis.review.report import annotate, ranked_mistakes, read_back
from analysis.sgf import SgfNode, read_sgf, write_sgf


def entry(k: int, to_play: str, black: float, lead: float, played: str | None) -> dict:
    candidates = [{"move": "E5", "prior": 0.4, "order": 0}, {"move": "D4", "prior": 0.1234, "order": 1}]
    return {"move_number": k, "to_play": to_play, "black_winrate": black, "black_score_lead": lead,
            "visits": 16, "best": "E5", "candidates": candidates, "played": played, "played_rank": 2}


RESULTS = [entry(0, "B", 0.5, 0.5, "C3"), entry(1, "W", 0.3, -4.0, "G7"),
           {**entry(2, "B", 0.35, -3.0, None), "played_rank": None}]


def test_an_analysed_sgf_downloaded_and_uploaded_again_gives_back_its_analysis() -> None:
    record = read_sgf("(;GM[1]FF[4]SZ[9]KM[7.5]C[A club game];B[cg];W[gc])")
    annotate(record, RESULTS)
    again = read_sgf(write_sgf(record))
    back = read_back(again, rules="chinese")
    assert [e["move_number"] for e in back] == [0, 1, 2]
    assert [(e["to_play"], e["played"]) for e in back] == [("B", "C3"), ("W", "G7"), ("B", None)]
    assert [e["black_winrate"] for e in back] == [0.5, 0.3, 0.35]
    assert [e["black_score_lead"] for e in back] == [0.5, -4.0, -3.0]
    assert back[1]["winrate"] == 0.7 and back[1]["score_lead"] == 4.0
    assert back[0]["visits"] == 16 and back[0]["best"] == "E5" and back[0]["played_rank"] == 2
    assert [(c["move"], c["prior"]) for c in back[0]["candidates"]] == [("E5", 0.4), ("D4", 0.123)]  # 0.1%
    assert ranked_mistakes(back)["point_mistakes"] == ranked_mistakes(RESULTS)["point_mistakes"]
    assert without_analysis(again.root.comment) == "A club game"


def test_each_moves_node_says_the_points_and_win_rate_it_lost() -> None:
    record = read_sgf("(;GM[1]FF[4]SZ[9]KM[7.5];B[cg];W[gc])")
    annotate(record, RESULTS)
    first, second = (node for node in record.main_line() if node.has_move())
    assert "Loss of this move: 4.5 points, 20.0% win rate" in first.comment.split("\n")
    assert "Loss of this move: 1.0 points, 5.0% win rate" in second.comment.split("\n")
    annotate(record, RESULTS)  # analysed again: the lines are replaced, not added twice
    assert first.comment.count("Loss of this move") == 1


def test_a_record_this_site_did_not_analyse_reads_back_nothing() -> None:
    record = read_sgf("(;GM[1]FF[4]SZ[9]C[Black win rate is high];B[cg]C[SBKV?];W[gc])")
    assert read_back(record) == []
    node = SgfNode({"SBKV": "abc"})
    assert read_node(node) is None


def test_a_variation_nodes_analysis_is_written_and_read_back_with_its_players_comment_kept() -> None:
    node = SgfNode({"B": "ee", "C": "what if?"})
    write_node(node, {**RESULTS[1], "played_rank": None})
    write_node(node, {**RESULTS[1], "played_rank": None})
    assert node.comment.startswith("what if?\n\nBlack win rate: 30.0% (16 visits)")
    assert node.comment.count("Black win rate") == 1
    back = read_node(node)
    assert back["black_winrate"] == 0.3 and back["black_score_lead"] == -4.0 and back["to_play"] == "W"


def test_numbers_no_analysis_of_ours_could_hold_are_left_out_and_the_rest_read_back() -> None:
    huge = "9" * 5000
    record = read_sgf("(;GM[1]FF[4]SZ[9]SBKV[50]SBKS[1e308]"
                      "C[Black win rate: 50.0% (3000000000 visits)\nScore lead: B+" + "9" * 400 + ".0];"
                      f"B[ee]SBKV[60]SBKS[-2.5]C[Played E5: policy rank {huge}];"
                      "W[cc]SBKV[40]SBKS[-1e308])")
    back = read_back(record, rules="chinese")
    assert [e["black_winrate"] for e in back] == [0.5, 0.6, 0.4]
    assert [e["black_score_lead"] for e in back] == [None, -2.5, None]  # past 1,000 points: left out
    assert back[0]["visits"] == 0  # ten digits of visits: not a line of ours
    assert back[1]["played_rank"] is None
    assert not any(ranked_mistakes(back)["point_mistakes"])
