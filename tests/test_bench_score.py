"""The score bench's teacher figures and a network's fit to its teacher, on a hand-made labels file
and training month."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from analysis.bench.score import (
    LATE,
    _late_game,
    _zigzag,
    games,
    review_zigzag,
    run,
    score_heads,
    teacher,
    teacher_fit,
)
from analysis.go.position import Position
from analysis.nets import checkpoint
from analysis.nets.inference import Network, Prediction
from analysis.nets.presets import build, get_preset
from analysis.nets.registry import default_weights
from analysis.review.analyze import game_positions
from analysis.sgf import read_sgf

COUNTED = b"(;GM[1]FF[4]SZ[19]KM[6.5]RE[B+3.5];B[pd];W[dp])"
RESIGNED = b"(;GM[1]FF[4]SZ[19]KM[6.5]RE[W+R];B[pd];W[dp])"


def write_labels(path: Path, rows: list[tuple[str, int, float]], winrate: float = 0.5) -> None:
    n = len(rows)
    np.savez(path, month=np.array(["2010-01"] * n), game=np.array([g for g, _, _ in rows]),
             turn=np.array([t for _, t, _ in rows], dtype=np.int16),
             winrate_black=np.full(n, winrate, dtype=np.float16),
             score_lead_black=np.array([lead for _, _, lead in rows], dtype=np.float16),
             ownership_black=np.zeros((n, 361), dtype=np.int8))


def test_teacher_figures_compare_its_lead_with_the_counted_games_margins_only(tmp_path: Path) -> None:
    months = tmp_path / "train"
    months.mkdir()
    with zipfile.ZipFile(months / "2010-01.zip", "w") as zf:
        zf.writestr("counted.sgf", COUNTED)
        zf.writestr("resigned.sgf", RESIGNED)
    labels = tmp_path / "labels.npz"
    write_labels(labels, [("counted.sgf", 48, 1.5), ("counted.sgf", 150, 2.0),
                          ("counted.sgf", 158, -1.0), ("resigned.sgf", 150, -30.0)])

    figures = teacher(labels=labels, months=months)

    assert figures["counted_games"] == 1
    assert figures["score_error"]["move_50"] == 2.0  # |1.5 - 3.5|, the label 2 moves from 50
    assert figures["score_error"]["move_150"] == 1.5  # |2.0 - 3.5| (158 is more than 4 away)
    assert figures["score_error"]["move_100"] is None
    assert figures["score_sign"] == 0.5  # +2.0 agrees with B+3.5, -1.0 does not


def test_teacher_figures_are_absent_without_the_labels(tmp_path: Path) -> None:
    assert teacher(labels=tmp_path / "missing.npz", months=tmp_path) is None


def long_game(result: str, pairs: int = 80) -> bytes:
    """A record of ``pairs`` moves each (at most 80): Black fills the top rows and White the bottom
    ones, nothing captured."""
    letters = "abcdefghijklmnopqrs"
    black = [letters[c] + letters[r] for r in range(5) for c in range(19)]
    white = [letters[c] + letters[18 - r] for r in range(5) for c in range(19)]
    body = "".join(f";B[{b}];W[{w}]" for b, w in zip(black[:pairs], white[:pairs], strict=True))
    return f"(;GM[1]FF[4]SZ[19]KM[6.5]RE[{result}]{body})".encode()


class MoverLeadsByTwo:
    """A network that gives every position to the player to move at 0.5, leading by 2 points."""

    def predict(self, positions: list[Position]) -> Prediction:
        n = len(positions)
        return Prediction(heads=np.zeros((n, 1, 362), np.float32), value_logit=np.zeros(n, np.float32),
                          score_mean=np.full(n, 2.0, np.float32))


def test_teacher_fit_compares_the_network_with_the_teacher_on_the_labelled_positions(tmp_path: Path) -> None:
    months = tmp_path / "train"
    months.mkdir()
    with zipfile.ZipFile(months / "2010-01.zip", "w") as zf:
        zf.writestr("counted.sgf", long_game("B+3.5"))
    labels = tmp_path / "labels.npz"
    # after 150 moves Black is to move (network: Black +2), after 151 White is (network: Black -2)
    write_labels(labels, [("counted.sgf", 150, 5.0), ("counted.sgf", 151, 5.0), ("counted.sgf", 400, 5.0)],
                 winrate=0.75)

    figures = teacher_fit(MoverLeadsByTwo(), 10, labels=labels, months=months)

    assert figures["lead_distance"] == 5.0  # |2 - 5| and |-2 - 5|; the label past the end is left out
    assert figures["score_sign"] == 0.5 and figures["teacher_score_sign"] == 1.0
    assert figures["value_kl"] == round(0.75 * np.log(0.75 / 0.5) + 0.25 * np.log(0.25 / 0.5), 4)


def test_teacher_fit_is_absent_without_the_labels(tmp_path: Path) -> None:
    assert teacher_fit(MoverLeadsByTwo(), 10, labels=tmp_path / "missing.npz", months=tmp_path) is None


def test_zigzag_is_the_distance_from_the_mean_of_the_two_neighbours() -> None:
    assert np.allclose(_zigzag(np.array([0.6, 0.4, 0.6, 0.4])), [0.2, 0.2])
    assert np.allclose(_zigzag(np.linspace(0.2, 0.8, 7)), 0)


def test_a_one_visit_review_shows_the_value_bagged_over_the_eight_symmetries(tmp_path: Path) -> None:
    archive = tmp_path / "games.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("game.sgf", long_game("B+3.5", pairs=15))
    network = Network.from_checkpoint(default_weights(), dtype="float32")

    figures = review_zigzag(network, 1, 1, archive)

    positions = [p for p, _ in game_positions(read_sgf(long_game("B+3.5", pairs=15)))]
    side = np.array([p.to_play for p in positions])
    value = network.predict(positions, symmetries=8).value
    bagged = _zigzag(np.where(side > 0, value, 1 - value))
    assert figures["positions"] == 29  # the 31 positions of 30 moves but the first and last
    assert figures["zigzag"] > 0.005 and figures["zigzag"] != figures["raw_zigzag"]
    assert abs(figures["zigzag"] - float(np.mean(bagged))) < 1e-3  # the review rounds to 4 places
    assert figures["bagged_zigzag"] == round(float(np.mean(bagged)), 4)


def test_each_score_head_is_measured_and_the_one_read_is_marked(tmp_path: Path) -> None:
    model = build(get_preset("golois-score-b6c96"))
    checkpoint.save(tmp_path / "plain.pt", model, "golois-score-b6c96")
    checkpoint.save(tmp_path / "named.pt", model, "golois-score-b6c96", score_head="gaussian")
    checkpoint.save(tmp_path / "policy.pt", build(get_preset("golois-b4c48")), "golois-b4c48")
    plain, named, policy = (str(tmp_path / n) for n in ("plain.pt", "named.pt", "policy.pt"))

    def heads(path: str) -> list[tuple[str, str, bool]]:
        return score_heads(Network.from_checkpoint(path), path)

    assert heads(plain) == [(f"{plain} [gaussian]", "gaussian", False),
                            (f"{plain} [distribution]", "distribution", True)]
    assert heads(named) == [(f"{named} [gaussian]", "gaussian", True),
                            (f"{named} [distribution]", "distribution", False)]
    assert heads(policy) == [(policy, "", True)]


def test_games_give_the_winner_of_counted_and_resigned_records_only(tmp_path: Path) -> None:
    archive = tmp_path / "month.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, result in (("counted", "B+3.5"), ("resigned", "W+R"), ("timed", "B+T"), ("draw", "0")):
            zf.writestr(f"{name}.sgf", f"(;GM[1]FF[4]SZ[19]KM[6.5]RE[{result}];B[pd];W[dp])".encode())
    found = [(len(positions), margin, winner) for positions, margin, winner in games(10, archive)]
    assert found == [(3, 3.5, 1), (3, None, -1), (3, None, 0), (3, 0.0, 0)]  # a game lost on time: unknown


def test_the_late_game_counts_leads_of_ten_points_for_the_loser_in_the_last_sixty_positions() -> None:
    # Black's lead over 70 positions: +12 for the first 10 (too early to count), then +12 for 20,
    # +9.5 for 20 and -3 for the last 20; White won
    black_lead = np.array([12.0] * 30 + [9.5] * 20 + [-3.0] * 20)
    resigned = _late_game(black_lead, None, -1)
    assert len(resigned["loser_ahead"]) == LATE == 60
    assert sum(resigned["loser_ahead"]) == 20 and resigned["score_error"] == []
    counted = _late_game(black_lead, -2.5, -1)  # W+2.5
    assert counted["loser_ahead"] == resigned["loser_ahead"]
    assert np.mean(counted["score_error"]) == (20 * 14.5 + 20 * 12.0 + 20 * 0.5) / 60
    assert _late_game(-black_lead, -2.5, -1)["loser_ahead"] == [False] * 60  # the winner's leads
    drawn = _late_game(black_lead, 0.0, 0)
    assert drawn == {"sign": [], "loser_ahead": [], "score_error": np.abs(black_lead[-60:]).tolist()}
    assert sum(resigned["sign"]) == 20 and resigned["sign"][-20:] == [True] * 20  # -3: White's lead


def test_the_score_bench_refuses_a_network_without_a_value_head_before_measuring_any(tmp_path: Path) -> None:
    checkpoint.save(tmp_path / "back.pt", build(get_preset("backpred-b4c48")), "backpred-b4c48")
    with pytest.raises(ValueError, match=r"no value head to measure in .*back\.pt$"):
        run(quick=True, network=[str(default_weights()), str(tmp_path / "back.pt")])
