"""The ownership target of counted games (analysis.train.final_owner) and its place in the samples."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.features import symmetry
from analysis.go.diagram import parse_board
from analysis.sgf import read_sgf
from analysis.train.data import PositionSampler
from analysis.train.final_owner import final_ownership
from analysis.train.games import TrainingGame

# Black's wall on column b, White's on column d, column c left as dame, and a white stone played
# into Black's side at the end: dead.  By territory: Black 7 points + 1 prisoner, White 21 + 6.5.
WALLS = [m for row in "abcdefg" for m in (f"B[b{row}]", f"W[d{row}]")] + ["B[]", "W[aa]"]
FINAL_OWNERS = parse_board("""
    X X . O O O O
    X X . O O O O
    X X . O O O O
    X X . O O O O
    X X . O O O O
    X X . O O O O
    X X . O O O O
""").ravel()


def walls_game(result: str, rules: str = "RU[Korean]") -> str:
    return f"(;GM[1]FF[4]SZ[7]KM[6.5]{rules}RE[{result}]" + "".join(f";{m}" for m in WALLS) + ")"


def test_a_counted_game_gives_the_owners_once_its_dead_stones_are_taken_off() -> None:
    owners = final_ownership(TrainingGame.from_record(read_sgf(walls_game("W+19.5"))))
    assert owners is not None and owners.dtype == np.float32
    assert owners.tolist() == FINAL_OWNERS.tolist()  # a1's dead white stone is Black's point


@pytest.mark.parametrize("sgf", [
    walls_game("W+18.5"),  # the estimate's count differs from the record's by a point
    walls_game("W+R"),  # resigned: no count to check the estimate against
    walls_game("W+19.5", rules=""),  # no rules: the count cannot be checked
    walls_game("W+19.5").replace("W[aa]", "W[ba]"),  # does not replay
])
def test_a_game_gives_no_ownership_target_unless_its_count_is_the_recorded_one(sgf: str) -> None:
    assert final_ownership(TrainingGame.from_record(read_sgf(sgf))) is None


def test_samples_carry_the_final_owners_for_the_mover_and_the_final_position_once(tmp_path: Path) -> None:
    (tmp_path / "walls.sgf").write_text(walls_game("W+19.5"))
    sampler = PositionSampler([str(tmp_path)], "golois-komi", pool_size=1, shuffle_buffer=1, seed=2,
                              board_size=7, record_ownership=True)
    batch = sampler.batch(3 * (len(WALLS) + 1))
    assert not np.isnan(batch.ownership).any()
    for owners, margin in zip(batch.ownership, batch.score, strict=True):
        mover = 1 if margin < 0 else -1  # White won by 19.5: the margin is -19.5 with Black to move
        seen = [symmetry.apply(owners.reshape(7, 7), symmetry.inverse(k)).ravel() for k in range(8)]
        assert any((s == mover * FINAL_OWNERS).all() for s in seen)
    finals = batch.moves[:, 0] == -1
    assert 2 <= finals.sum() <= 3  # one per pass through the game, the first pass starting midway
    assert (np.abs(batch.score[finals]) == 19.5).all()
    without = PositionSampler([str(tmp_path)], "golois-komi", pool_size=1, shuffle_buffer=1, seed=2,
                              board_size=7).batch(8)
    assert np.isnan(without.ownership).all() and (without.moves[:, 0] >= 0).all()


def test_the_finished_board_is_shown_final_shows_times_with_each_player_to_move(tmp_path: Path) -> None:
    (tmp_path / "walls.sgf").write_text(walls_game("W+19.5"))
    sampler = PositionSampler([str(tmp_path)], "golois-komi", pool_size=1, shuffle_buffer=1, seed=2,
                              board_size=7, record_ownership=True, final_shows=4)
    batch = sampler.batch(2 * (len(WALLS) + 4))
    finals = batch.moves[:, 0] == -1
    # two passes through the game (the first from a random move): four finished boards each, Black
    # to move first (White played last), so Black's -19.5 and White's +19.5 in turn
    assert batch.score[finals].tolist() == [-19.5, 19.5] * 4
    for owners, margin in zip(batch.ownership[finals], batch.score[finals], strict=True):
        mover = 1 if margin < 0 else -1
        seen = [symmetry.apply(owners.reshape(7, 7), symmetry.inverse(k)).ravel() for k in range(8)]
        assert any((s == mover * FINAL_OWNERS).all() for s in seen)
    with pytest.raises(ValueError, match="final_shows"):
        PositionSampler([str(tmp_path)], final_shows=0)
