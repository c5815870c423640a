"""Packed game archives (python -m analysis.train.pack): the samplers read them for the same samples."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from analysis.sgf import read_sgf
from analysis.train import ladder_set
from analysis.train.data import PositionSampler, fixed_positions
from analysis.train.example_sampler import ExampleSampler
from analysis.train.final_owner import final_ownership
from analysis.train.games import TrainingGame, game_id
from analysis.train.pack import main as pack_main
from analysis.train.pack import pack
from analysis.train.packed import PackedArchive
from analysis.train.teacher import TeacherSampler
from tests.test_final_ownership import walls_game
from tests.test_heads import labelled  # noqa: F401  (a month of one game, and its labels)
from tests.test_train import MOVES, game

BATCH_ARRAYS = ("inputs", "legal", "moves", "value", "previous", "score", "ownership", "pair")


@pytest.fixture
def month(tmp_path: Path) -> Path:
    """A month's zip: games with every kind of result, a counted one whose owners are known, a
    game with setup stones, one that does not replay, and junk."""
    path = tmp_path / "2010-02.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.sgf", game("B+R"))
        archive.writestr("b.sgf", game("W+3.5", MOVES[::-1]))
        archive.writestr("c.sgf", game("B+T"))
        archive.writestr("d.sgf", game("0", MOVES[3:]).replace("RE[0]", "RE[0]AB[aa][ss]AW[as]"))
        archive.writestr("e.sgf", game("W+R", [*MOVES[:5], "pd", *MOVES[5:]]))  # W plays on pd
        archive.writestr("f.sgf", "not an SGF file")
    return path


Sampler = PositionSampler | TeacherSampler | ExampleSampler


def assert_same_batches(a: Sampler, b: Sampler, batches: int, size: int) -> None:
    """Assert that ``a`` and ``b`` give the same next ``batches`` batches of ``size``, array by array."""
    for _ in range(batches):
        x, y = a.batch(size), b.batch(size)
        for name in BATCH_ARRAYS:
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=name)


@pytest.mark.parametrize("paired", [False, True])
def test_the_packed_sampler_gives_the_sgf_samplers_positions_and_targets(month: Path, tmp_path: Path,
                                                                         paired: bool) -> None:
    packed = tmp_path / "month.pack.npz"
    report = pack([str(month)], packed)
    assert report.games == 5 and report.moves == 14 + 14 + 14 + 11 + 15
    options = {"feature_set": "golois-komi", "future_moves": 2, "pool_size": 3, "shuffle_buffer": 2,
               "seed": 7, "value_rate": 0.8, "paired": paired}
    assert_same_batches(PositionSampler([str(month)], **options), PositionSampler([str(packed)], **options),
                        batches=6, size=24)


def test_the_packed_sampler_gives_a_counted_games_final_owners(tmp_path: Path) -> None:
    (tmp_path / "walls.sgf").write_text(walls_game("W+19.5"))
    pack([str(tmp_path / "walls.sgf")], tmp_path / "walls.pack.npz")
    options = {"feature_set": "golois-komi", "pool_size": 1, "shuffle_buffer": 1, "seed": 2, "board_size": 7,
               "record_ownership": True}
    sgf = PositionSampler([str(tmp_path / "walls.sgf")], **options)
    packed = PositionSampler([str(tmp_path / "walls.pack.npz")], **options)
    assert_same_batches(sgf, packed, batches=2, size=20)
    stored = PackedArchive.open(tmp_path / "walls.pack.npz").game(0).final_owner()
    expected = final_ownership(TrainingGame.from_record(read_sgf(walls_game("W+19.5"))))
    assert stored is not None and np.array_equal(stored, expected)


def test_packed_games_keep_size_komi_rules_result_setup_and_id(month: Path, tmp_path: Path) -> None:
    pack([str(month)], tmp_path / "m.pack.npz")
    archive = PackedArchive.open(tmp_path / "m.pack.npz")
    d = archive.game(archive.index_of("2010-02:d.sgf"))
    assert (d.size, d.komi, d.rules, d.result) == (19, 6.5, None, "0")
    assert sorted(d.black) == [0, 360] and d.white == (18 * 19,)
    assert d.moves[0] == (1, 3 + 3 * 19) and d.moves[1][0] == -1  # B[dd] first, then White
    assert archive.game(archive.index_of("2010-02:c.sgf")).result == "B+T"
    assert archive.index_of("2010-02:f.sgf") is None  # junk is not a game


def test_fixed_positions_are_the_same_from_the_packed_archive(month: Path, tmp_path: Path) -> None:
    pack([str(month)], tmp_path / "m.pack.npz")
    sgf = fixed_positions([str(month)], 10, seed=3)
    packed = fixed_positions([str(tmp_path / "m.pack.npz")], 10, seed=3)
    assert len(sgf) == len(packed) == 4  # e.sgf cannot be replayed to its chosen move or is skipped
    for a, b in zip(sgf, packed, strict=True):
        assert (a.move, a.previous, a.later) == (b.move, b.previous, b.later)
        assert np.array_equal(a.position.stones(), b.position.stones())
        assert a.value == b.value or (np.isnan(a.value) and np.isnan(b.value))


def test_packed_teacher_labels_on_levels_give_the_same_samples(labelled: Path, tmp_path: Path) -> None:  # noqa: F811
    packed = tmp_path / "taught.pack.npz"
    report = pack([str(labelled / "train")], packed, teacher=labelled / "labels.npz", teacher_levels=9)
    assert report.teacher_positions == 2 and report.teacher_max_error == 0.0  # +-1 are levels
    options = {"seed": 3, "komi_jitter": 0.5, "shuffle_buffer": 2}
    sgf = TeacherSampler(labelled / "labels.npz", labelled / "train", **options)
    from_pack = TeacherSampler(packed, "unused", **options)
    for _ in range(4):
        x, y = sgf.batch(3), from_pack.batch(3)
        for name in BATCH_ARRAYS:
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=name)


def test_the_teacher_ownership_rounding_is_measured(labelled: Path, tmp_path: Path) -> None:  # noqa: F811
    labels = dict(np.load(labelled / "labels.npz"))
    owner = labels["ownership_black"]
    labels["ownership_black"] = (np.sign(owner) * (np.abs(owner) // 3)).astype(np.int8)  # +-42: off levels
    np.savez(tmp_path / "odd.npz", **labels)
    report = pack([str(labelled / "train")], tmp_path / "odd.pack.npz", teacher=tmp_path / "odd.npz",
                  teacher_levels=5)
    # 42/127 = 0.331 rounds to the level 0.5: a change of 0.169 on every point
    assert report.teacher_max_error == pytest.approx(0.5 - 42 / 127, abs=1e-4)
    assert report.teacher_rmse == pytest.approx(0.5 - 42 / 127, abs=1e-4)
    own = PackedArchive.open(tmp_path / "odd.pack.npz").teacher_labels()[("2010-01", "1.sgf")].ownership
    assert set(np.unique(own).tolist()) == {-0.5, 0.5}


def test_game_ids_name_the_archive_and_the_member() -> None:
    assert game_id("/data/tygem/train/2010-01.zip:330593677.sgf") == "2010-01:330593677.sgf"
    assert game_id("/data/kgs/2004.tar.gz:x/y.sgf") == "2004:x/y.sgf"
    assert game_id("/data/games/one.sgf") == "one.sgf"


def test_the_pack_command_refuses_bad_input_with_a_reason(tmp_path: Path, month: Path, capsys) -> None:
    assert pack_main([str(tmp_path / "missing.zip"), "--out", str(tmp_path / "x.pack.npz")]) == 2
    assert "missing.zip" in capsys.readouterr().err
    assert pack_main([str(month), "--out", str(tmp_path / "x.npz")]) == 2
    assert ".pack.npz" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert pack_main([str(tmp_path / "empty"), "--out", str(tmp_path / "x.pack.npz")]) == 2
    assert "no SGF games" in capsys.readouterr().err
    assert not (tmp_path / "x.pack.npz").exists()


def test_a_file_that_is_not_a_packed_archive_is_refused(tmp_path: Path) -> None:
    np.savez(tmp_path / "other.pack.npz", moves=np.zeros(3))
    with pytest.raises(ValueError, match="not a packed archive"):
        PackedArchive.open(tmp_path / "other.pack.npz")
    (tmp_path / "junk.pack.npz").write_bytes(b"junk")
    with pytest.raises(ValueError, match="not a packed archive"):
        PackedArchive.open(tmp_path / "junk.pack.npz")


def test_the_ladder_set_is_the_same_from_the_packed_archive(tmp_path: Path) -> None:
    from tests.test_tang_kaneko import LADDER_MOVES, LADDER_START, sgf_game

    folder = tmp_path / "games"
    folder.mkdir()
    for i in range(12):
        (folder / f"game{i}.sgf").write_text(sgf_game(9, LADDER_MOVES, LADDER_START))
    pack([str(folder)], tmp_path / "ladders.pack.npz")
    sgf = ladder_set.build([str(folder)], board_size=9)
    packed = ladder_set.build([str(tmp_path / "ladders.pack.npz")], board_size=9)
    assert packed.games == sgf.games and sum(packed.games.values()) == 12
    for split in ladder_set.SPLITS:
        moves = [[(m.point, m.kind) for m in found.moves[split]] for found in (sgf, packed)]
        assert moves[0] == moves[1]
