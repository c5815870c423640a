"""The training pipeline: samples and targets, symmetry, bad records, schedule, resume, evaluate."""

from __future__ import annotations

import gc
import json
import math
import multiprocessing
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.features import get_feature_set, symmetry
from analysis.go.coords import BLACK, WHITE, from_sgf
from analysis.nets import checkpoint, precision
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.sgf.results import result_value
from analysis.train import precise_bn
from analysis.train.__main__ import main as train_main
from analysis.train.__main__ import parser as train_parser
from analysis.train.averaging import WeightAverage
from analysis.train.batch import Batch
from analysis.train.data import PositionSampler, fixed_positions
from analysis.train.evaluate import evaluate
from analysis.train.loop import TrainConfig, planes, train, training_dtype
from analysis.train.losses import losses
from analysis.train.precise_bn import SILENT, VAR_FLOOR, Calibration
from analysis.train.schedule import PlateauHalving, warmup_factor
from analysis.train.ship_average import main as ship_average_main
from analysis.train.ship_average import ship_average

ROOT = Path(__file__).resolve().parents[1]
MOVES = ["pd", "dp", "pq", "dd", "qk", "nc", "pf", "pb", "qc", "kc", "fq", "cn", "jp", "qo"]


def game(result: str, moves: list[str] = MOVES) -> str:
    body = "".join(f";{'BW'[i % 2]}[{m}]" for i, m in enumerate(moves))
    return f"(;GM[1]FF[4]SZ[19]KM[6.5]RE[{result}]BR[9d]WR[9d]{body})"


@pytest.fixture
def games(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "a.sgf").write_text(game("B+R"))
    (folder / "b.sgf").write_text(game("W+3.5", MOVES[::-1]))
    (folder / "c.sgf").write_text(game("B+T"))
    (folder / "broken.sgf").write_text("(;GM[1]SZ[19];B[pd];W[pd])")  # W plays on an occupied point
    (folder / "junk.sgf").write_text("this is not an SGF file")
    return folder


def test_results_give_values_for_the_player_to_move() -> None:
    assert result_value("B+R", BLACK) == 1.0 and result_value("B+R", WHITE) == 0.0
    assert result_value("W+0.5", WHITE) == 1.0
    assert result_value("0", BLACK) == 0.5
    for unknown in ("B+T", "W+F", "?", "", None, "Void"):
        assert math.isnan(result_value(unknown, BLACK))


def test_targets_are_the_moves_actually_played_and_symmetry_keeps_them_consistent(games: Path) -> None:
    sampler = PositionSampler([str(games)], "golois", future_moves=2, pool_size=3, shuffle_buffer=1, seed=3)
    batch = sampler.batch(64)
    played = {from_sgf(m, 19) for m in MOVES}
    for i in range(64):
        move = int(batch.moves[i, 0])
        # Undo the unknown symmetry: exactly one of the 8 maps the target back to a played point
        # where the input shows an empty, legal point.
        ok = False
        for k in range(8):
            original = int(symmetry.point_table(19, symmetry.inverse(k))[move])
            back = symmetry.apply(batch.inputs[i], symmetry.inverse(k))
            if original in played and back[2].ravel()[original] == 1 and batch.legal[i, move]:
                ok = True
        assert ok, i
        assert batch.inputs[i, 2].ravel()[move] == 1  # empty in the transformed input too
        assert batch.inputs[i, 0].ravel()[move] == 0 and batch.inputs[i, 1].ravel()[move] == 0
    values = set(batch.value[~np.isnan(batch.value)].tolist())
    assert values <= {0.0, 1.0} and np.isnan(batch.value).any()  # B+T games carry no value
    assert sampler.stats.read.games_skipped >= 1  # junk.sgf
    assert sampler.stats.games_unplayable >= 1  # broken.sgf, counted, not silently dropped


def test_value_rate_keeps_the_value_target_on_that_fraction_of_positions(games: Path) -> None:
    def known(rate: float) -> float:
        sampler = PositionSampler([str(games)], "golois", pool_size=3, shuffle_buffer=1, seed=3,
                                  value_rate=rate)
        return float(np.mean(~np.isnan(sampler.batch(400).value)))

    everything = known(1.0)
    assert 0.5 < everything < 0.9  # the B+T game has no value target
    assert 0.15 * everything < known(0.25) < 0.35 * everything
    with pytest.raises(ValueError):
        PositionSampler([str(games)], value_rate=0.0)


def test_paired_samples_are_followed_by_the_position_their_move_led_to(games: Path) -> None:
    sampler = PositionSampler([str(games)], "golois", pool_size=3, shuffle_buffer=1, seed=5, paired=True)
    batch = sampler.batch(64)
    firsts = np.flatnonzero(batch.pair >= 0)
    assert len(firsts) >= 16  # most samples come in pairs: the games are 14 moves long
    for i in firsts:
        j = batch.pair[i]
        assert j == i + 1 and batch.pair[j] == -1
        ours, theirs = batch.inputs[i, 0].sum(), batch.inputs[i, 1].sum()
        # The record's games capture nothing: after the move, the mover's stones are one more and
        # they are the next player's opponent's (whatever symmetry each sample is shown under).
        assert batch.inputs[j, 1].sum() == ours + 1 and batch.inputs[j, 0].sum() == theirs
    unpaired = PositionSampler([str(games)], "golois", pool_size=3, shuffle_buffer=1, seed=5).batch(64)
    assert (unpaired.pair == -1).all()


def test_concatenated_batches_keep_their_pairs_on_their_rows(games: Path) -> None:
    paired = PositionSampler([str(games)], "golois", pool_size=3, shuffle_buffer=1, seed=5, paired=True)
    a, b = paired.batch(10), paired.batch(6)
    both = Batch.concatenate([a, b])
    assert both.pair.tolist() == a.pair.tolist() + [p + 10 if p >= 0 else -1 for p in b.pair.tolist()]


class _FixedValues(torch.nn.Module):
    """A stand-in network whose win logits are given: only its value matters to the pairs' loss."""

    def __init__(self, logits: list[float]) -> None:
        super().__init__()
        self.logits = torch.tensor(logits)

    def forward(self, x: torch.Tensor, legal: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"policy": torch.zeros(len(x), 1, 362), "value": self.logits}


def test_the_consistency_loss_is_the_squared_gap_of_a_pairs_win_chances_from_one(games: Path) -> None:
    batch = PositionSampler([str(games)], "golois", pool_size=1, shuffle_buffer=1, seed=5,
                            value_rate=0.01).batch(4)
    batch.pair[:] = [1, -1, 3, -1]
    tensors = batch.tensors()
    tensors["value"][:] = float("nan")  # no result targets: the pairs' loss alone
    cfg = TrainConfig(preset="golois-b4c48", data=[], consistency_weight=2.0)
    agree = math.log(0.7 / 0.3)  # 0.7 for the mover and 0.3 for the next one: they agree
    total, parts = losses(_FixedValues([agree, -agree, agree, -agree]), tensors, cfg)
    assert float(parts["consistency"]) == pytest.approx(0.0, abs=1e-6)
    # 0.7 and 0.7: each believes it is ahead, a gap of 0.4 on both pairs.
    total, parts = losses(_FixedValues([agree, agree, agree, agree]), tensors, cfg)
    assert float(parts["consistency"]) == pytest.approx(0.16, abs=1e-5)
    assert total.item() == pytest.approx(float(parts["policy"]) + 2.0 * 0.16, abs=1e-4)
    # Centered: the same edge for every mover is free; only the gap that varies costs.
    centered = TrainConfig(preset="golois-b4c48", data=[], consistency_weight=2.0, consistency_centered=True)
    _, parts = losses(_FixedValues([agree, agree, agree, agree]), tensors, centered)
    assert float(parts["consistency"]) == 0.0
    _, parts = losses(_FixedValues([agree, agree, agree, -agree]), tensors, centered)
    assert float(parts["consistency"]) == pytest.approx(0.04, abs=1e-5)  # gaps 0.4 and 0: 0.2 either side


def test_the_value_loss_counts_value_weight_times_and_the_command_line_sets_it(games: Path) -> None:
    sampler = PositionSampler([str(games)], "golois", pool_size=1, shuffle_buffer=1, seed=5, value_rate=1.0)
    tensors = sampler.batch(4).tensors()
    logits = [0.3, -0.2, 1.0, -1.5]

    def weighted(weight: float) -> tuple:
        cfg = TrainConfig(preset="golois-b4c48", data=[], value_weight=weight)
        return losses(_FixedValues(logits), tensors, cfg)

    plain, heavy = weighted(1.0), weighted(1.5)
    value = float(plain[1]["value"])
    assert value == pytest.approx(float(heavy[1]["value"])) and value > 0
    assert heavy[0].item() - plain[0].item() == pytest.approx(0.5 * value, abs=1e-5)
    args = train_parser().parse_args(["--data", "x", "--value-weight", "1.5"])
    assert args.value_weight == 1.5
    assert train_parser().parse_args(["--data", "x"]).value_weight == TrainConfig.value_weight


def test_precise_bn_gives_the_evaluation_mode_net_its_batch_statistics(games: Path, monkeypatch) -> None:
    monkeypatch.setattr(precise_bn, "VAR_FLOOR", 0.0)  # the floor has its own test, below
    torch.manual_seed(0)
    config = GoloisConfig(get_feature_set("golois").num_planes, 2, 16, value_head=True)
    model = GoloisNet(config)
    samples = fixed_positions([str(games)], 3, seed=5)
    calibration = Calibration(planes(samples, config), batch=len(samples))  # one batch: the same statistics
    with torch.no_grad():
        for norm in (m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)):
            norm.running_mean.fill_(3.0)  # lagging far behind, as a fast-moving layer's can
            norm.momentum = 0.25
    x = calibration.inputs
    with torch.no_grad():
        batch_stats = model.train()(x)[0]
        model.eval()
        assert not torch.allclose(model(x)[0], batch_stats, atol=1e-3)
        calibration.apply(model)
        assert not model.training  # the mode and the momentum stay as they were
        # the same but for the running variance's n / (n - 1) over 3 x 361 points a channel
        assert torch.allclose(model(x)[0], batch_stats, atol=5e-3)
    assert all(m.momentum == 0.25 for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d))


@pytest.mark.parametrize("wakes", [0.0, 0.003], ids=["never", "faintly"])
def test_precise_bn_keeps_a_channel_the_positions_never_or_faintly_wake_from_blowing_up(
        games: Path, wakes: float) -> None:
    torch.manual_seed(0)
    config = GoloisConfig(get_feature_set("golois").num_planes, 2, 16, value_head=True)
    model = GoloisNet(config)
    calibration = Calibration(planes(fixed_positions([str(games)], 3, seed=5), config))
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    silent = norms[1]  # the first residual block's
    with torch.no_grad():
        silent.weight[0] = 1.0
        silent.bias[0] = 0.0
    mute = torch.tensor([wakes] + [1.0] * 15)[:, None, None]
    hook = silent.register_forward_pre_hook(lambda m, args: (args[0] * mute,))
    calibration.apply(model)  # channel 0 never wakes on the calibration positions, or 0.003 times as much
    hook.remove()
    floor = VAR_FLOOR * float(silent.running_var.median())
    assert float(silent.running_var[0]) == pytest.approx(floor)
    assert float(silent.running_var[1:].min()) > SILENT * float(silent.running_var.median())  # untouched
    with torch.no_grad():  # a position that wakes it: multiplied by 1 / sqrt(floor), not 1 / sqrt(eps)
        woken = float(silent.eval()(torch.ones(1, 16, 19, 19))[0, 0].max())
    mean = float(silent.running_mean[0])  # 0 when never woken
    assert woken == pytest.approx((1 - mean) / (floor + silent.eps) ** 0.5, rel=1e-4)
    assert woken < 0.1 / silent.eps**0.5


@pytest.mark.parametrize("shipped", sorted(p.name for p in (ROOT / "weights").glob("*.pt")))
def test_no_shipped_network_has_a_silent_batch_norm_channel(shipped: str) -> None:
    model, _ = checkpoint.load_model(ROOT / "weights" / shipped)
    assert precise_bn.floor_silent_channels(model) == 0  # a position waking one would blow up


def test_fixed_positions_are_deterministic_and_report_the_next_move(games: Path) -> None:
    a = fixed_positions([str(games)], 10, seed=5)
    b = fixed_positions([str(games)], 10, seed=5)
    assert [(len(e.position.moves), e.move) for e in a] == [(len(e.position.moves), e.move) for e in b]
    for e in a:
        assert e.position.is_legal(e.move) and e.mask[e.move]
        assert e.previous == (e.position.last_move.point if e.position.last_move else -1)
    for e in fixed_positions([str(games)], 10, seed=5, target="previous"):
        assert e.move == e.previous >= 0
        assert e.mask[e.move] and e.position.color_at(e.move) == -e.position.to_play


def test_plateau_halving_halves_only_on_a_plateau() -> None:
    s = PlateauHalving(rate=0.1, step_samples=10, window=4, patience=4)
    for i in range(200):
        s.observe(5.0 - i * 0.02, 10)  # steadily improving
    assert s.rate == 0.1
    for _ in range(200):
        s.observe(1.0, 10)  # flat
    assert s.rate < 0.1
    again = PlateauHalving.from_state(s.state_dict())
    assert again == s
    again.restart(0.01)
    for _ in range(4):
        again.observe(1.0, 10)  # flat, but within the patience after a manual step
    assert again.rate == 0.01
    for _ in range(20):
        again.observe(1.0, 10)
    assert again.rate < 0.01


def test_a_warmup_ramps_the_rate_over_a_runs_first_samples_and_a_resumed_run_goes_on_with_it(
        tmp_path: Path, games: Path) -> None:
    assert [warmup_factor(n, 64) for n in (16, 32, 64, 128)] == [0.25, 0.5, 1.0, 1.0]
    assert warmup_factor(16, 0) == 1.0
    first = replace(short_run(tmp_path, games, "first", None, 32), warmup_samples=64)
    train(first)
    state = checkpoint.load(tmp_path / "first" / "last.pt")
    # the rate of the step that brought the count to 32 of the 64
    assert state["optimizer"]["param_groups"][0]["lr"] == pytest.approx(first.lr * 0.5)
    train(short_run(tmp_path, games, "on", str(tmp_path / "first" / "last.pt"), 48))  # its state keeps it
    resumed = checkpoint.load(tmp_path / "on" / "last.pt")
    assert resumed["optimizer"]["param_groups"][0]["lr"] == pytest.approx(first.lr * 0.75)
    assert resumed["schedule"]["rate"] == first.lr  # the plateau schedule's own rate is untouched


def short_run(tmp_path: Path, games: Path, name: str, resume: str | None, samples: int) -> TrainConfig:
    return TrainConfig(preset="golois-b4c48", data=[str(games)], run_dir=str(tmp_path / name), resume=resume,
                       batch_size=16, max_samples=samples, workers=0, progress=False, seed=11)


def test_training_resumes_from_its_checkpoint_exactly(tmp_path: Path, games: Path) -> None:
    train(short_run(tmp_path, games, "first", None, 32))
    first = checkpoint.load(tmp_path / "first" / "last.pt")
    assert first["samples"] == 32 and first["dtype"] in ("float32", "bfloat16")
    train(short_run(tmp_path, games, "a", str(tmp_path / "first" / "last.pt"), 64))
    train(short_run(tmp_path, games, "b", str(tmp_path / "first" / "last.pt"), 64))
    a = checkpoint.load(tmp_path / "a" / "last.pt")
    b = checkpoint.load(tmp_path / "b" / "last.pt")
    assert a["samples"] == b["samples"] == 64
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    assert a["optimizer"]["state"].keys() == first["optimizer"]["state"].keys()


def _tiny_golois() -> GoloisNet:
    """A one-block, 8-filter Golois net with a value head: enough for choosing a dtype."""
    return GoloisNet(GoloisConfig(get_feature_set("golois").num_planes, 1, 8, value_head=True))


def test_a_resumed_run_trains_in_its_states_dtype_on_the_same_kind_of_device(capsys) -> None:
    model = _tiny_golois()
    cfg = TrainConfig(preset="golois-b4c48", data=[])
    saved = {"dtype": "float32", "device_type": "cpu"}
    assert training_dtype(model, {}, cfg, saved) == torch.float32  # no timing on the (empty) batch
    assert "the resumed state's own" in capsys.readouterr().err
    forced = replace(cfg, dtype="bfloat16")
    assert training_dtype(model, {}, forced, saved) == torch.bfloat16


def test_a_bf16_state_resumed_on_a_cpu_without_bf16_instructions_trains_in_float32(
        monkeypatch, capsys) -> None:
    model = _tiny_golois()
    cfg = TrainConfig(preset="golois-b4c48", data=[])
    saved = {"dtype": "bfloat16", "device_type": "cpu"}
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    assert training_dtype(model, {}, cfg, saved) == torch.float32
    err = capsys.readouterr().err
    assert "no bf16 instructions" in err and "bfloat16 would be emulated" in err
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert training_dtype(model, {}, cfg, saved) == torch.bfloat16
    assert "the resumed state's own" in capsys.readouterr().err


def test_a_forced_bf16_on_a_cpu_without_bf16_instructions_is_kept_with_a_warning(
        monkeypatch, capsys) -> None:
    model = _tiny_golois()
    cfg = TrainConfig(preset="golois-b4c48", data=[], dtype="bfloat16")
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)
    assert training_dtype(model, {}, cfg, None) == torch.bfloat16
    assert "warning: this cpu has no native bfloat16" in capsys.readouterr().err
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    assert training_dtype(model, {}, cfg, None) == torch.bfloat16
    assert "warning" not in capsys.readouterr().err


def test_the_weight_average_moves_a_fraction_of_the_way_to_each_step_and_keeps_the_model() -> None:
    net = torch.nn.Linear(2, 1)
    with torch.no_grad():
        net.weight.fill_(1.0)
        net.bias.fill_(0.0)
    average = WeightAverage(net, decay=0.75)
    with torch.no_grad():
        net.weight.fill_(5.0)
    average.update(net)  # 1 + 0.25 * (5 - 1)
    average.update(net)  # 2 + 0.25 * (5 - 2)
    averaged = average.averaged(net)
    assert torch.allclose(averaged.weight, torch.full((1, 2), 2.75))
    assert torch.equal(net.weight, torch.full((1, 2), 5.0))
    with pytest.raises(ValueError):
        WeightAverage(net, decay=1.0)


def test_a_run_with_an_average_saves_it_and_a_resumed_run_continues_it(tmp_path: Path, games: Path) -> None:
    first = replace(short_run(tmp_path, games, "first", None, 32), average_decay=0.5)
    train(first)
    state = checkpoint.load(tmp_path / "first" / "last.pt")
    saved = checkpoint.load(tmp_path / "first" / "average.pt")
    assert saved["samples"] == 32 and saved["average_decay"] == 0.5
    for name, value in state["average"]["params"].items():
        assert torch.equal(saved["model"][name], value), name
    assert any(not torch.equal(state["model"][n], v) for n, v in state["average"]["params"].items())
    resumed = short_run(tmp_path, games, "next", str(tmp_path / "first" / "last.pt"), 48)
    train(replace(resumed, average_decay=0.5))
    later = checkpoint.load(tmp_path / "next" / "last.pt")
    # the run's one further step (16 samples) moves the saved average half way to its weights
    for name, value in later["average"]["params"].items():
        expected = 0.5 * state["average"]["params"][name] + 0.5 * later["model"][name]
        assert torch.allclose(value, expected), name


def test_ship_average_rebuilds_the_runs_average_from_its_training_state(tmp_path: Path, games: Path) -> None:
    train(replace(short_run(tmp_path, games, "first", None, 32), average_decay=0.5))
    shipped = ship_average(tmp_path / "first" / "last.pt", tmp_path / "shipped.pt", [str(games)])
    saved = checkpoint.load(tmp_path / "first" / "average.pt")  # what the run itself wrote
    assert shipped["samples"] == 32 and shipped["preset"] == "golois-b4c48"
    assert not {"optimizer", "schedule", "average", "rng"} & set(shipped)
    assert shipped["model"].keys() == saved["model"].keys()
    for name, value in saved["model"].items():  # parameters and recomputed batch-norm statistics
        assert torch.allclose(shipped["model"][name].float(), value.float(), atol=1e-6), name


def test_ship_average_refuses_a_state_without_an_average(tmp_path: Path, games: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    train(short_run(tmp_path, games, "first", None, 16))
    state = str(tmp_path / "first" / "last.pt")
    target = tmp_path / "shipped.pt"
    with pytest.raises(ValueError, match="no moving average"):
        ship_average(state, target, [str(games)])
    assert ship_average_main([state, str(target), "--data", str(games)]) == 2
    assert "no moving average" in capsys.readouterr().err and not target.exists()
    assert ship_average_main([str(tmp_path / "missing.pt"), str(target), "--data", str(games)]) == 2
    assert "missing.pt" in capsys.readouterr().err and not target.exists()


def test_ship_average_refuses_a_score_head_the_network_lacks(tmp_path: Path, games: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    train(replace(short_run(tmp_path, games, "first", None, 16), average_decay=0.5))
    state, target = str(tmp_path / "first" / "last.pt"), tmp_path / "shipped.pt"
    with pytest.raises(ValueError, match="no 'gaussian' score head"):
        ship_average(state, target, [str(games)], score_head="gaussian")  # golois-b4c48 has none
    assert ship_average_main([state, str(target), "--data", str(games), "--score-head", "gaussian"]) == 2
    assert "no 'gaussian' score head" in capsys.readouterr().err and not target.exists()


def test_ship_average_refuses_a_misfit_average_and_will_not_overwrite_the_state(tmp_path: Path,
                                                                              games: Path) -> None:
    train(replace(short_run(tmp_path, games, "first", None, 16), average_decay=0.5))
    state_path = tmp_path / "first" / "last.pt"
    with pytest.raises(ValueError, match="the training state itself"):
        ship_average(state_path, state_path, [str(games)])
    assert "average" in checkpoint.load(state_path)  # untouched
    state = checkpoint.load(state_path)
    name = next(iter(state["average"]["params"]))
    state["average"]["params"][name] = torch.zeros(3)  # a tensor of another shape
    torch.save(state, tmp_path / "misfit.pt")
    with pytest.raises(checkpoint.CheckpointError, match="does not fit"):
        ship_average(tmp_path / "misfit.pt", tmp_path / "shipped.pt", [str(games)])
    assert not (tmp_path / "shipped.pt").exists()


def test_a_new_run_from_another_nets_weights_averages_from_those_weights(tmp_path: Path, games: Path) -> None:
    train(short_run(tmp_path, games, "first", None, 32))
    start = checkpoint.load(tmp_path / "first" / "last.pt")["model"]
    started = replace(short_run(tmp_path, games, "next", None, 16),
                      init_from=str(tmp_path / "first" / "last.pt"), average_decay=0.5)
    train(started)
    later = checkpoint.load(tmp_path / "next" / "last.pt")
    assert later["samples"] == 16
    for name, value in later["average"]["params"].items():  # one step: half way from the start
        assert torch.allclose(value, 0.5 * start[name] + 0.5 * later["model"][name]), name


def test_evaluate_gives_the_numbers_computed_by_hand_for_a_fixed_net(tmp_path: Path, games: Path) -> None:
    # A net whose every weight is zero outputs equal logits for all legal moves and a 0.5 value:
    # the policy loss is log(legal moves), and a move is top-k when fewer than k legal moves
    # come before it in index order (ties count against the target).
    net = GoloisNet(GoloisConfig(in_planes=39, blocks=1, channels=8, value_head=True))
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
    path = tmp_path / "zero.pt"
    checkpoint.save(path, net, "zero")
    result = evaluate([str(games)], str(path), max_positions=10, symmetries=1)
    samples = fixed_positions([str(games)], 10, seed=2024)
    loss, top1, top5, value_loss, valued = 0.0, 0, 0, 0.0, 0
    for e in samples:
        legal = np.flatnonzero(np.append(e.position.legal_points(), True))
        loss += math.log(len(legal))
        before = int((legal < e.move).sum())
        top1 += before < 1
        top5 += before < 5
        if not math.isnan(e.value):
            value_loss += math.log(2)
            valued += 1
    assert result["positions"] == len(samples) == 3
    assert result["policy_loss"] == pytest.approx(loss / 3, rel=1e-5)
    assert result["top1"] == pytest.approx(top1 / 3)
    assert result["top5"] == pytest.approx(top5 / 3)
    assert result["value_log_loss"] == pytest.approx(value_loss / valued, rel=1e-5)
    bagged = evaluate([str(games)], str(path), max_positions=10, symmetries=8)
    assert bagged["policy_loss"] == pytest.approx(loss / 3, rel=1e-5)  # uniform stays uniform


def test_evaluate_command_reports_json_in_the_precision_asked_and_rejects_bad_weights(
    tmp_path: Path, games: Path
) -> None:
    net = GoloisNet(GoloisConfig(in_planes=39, blocks=1, channels=8))
    checkpoint.save(tmp_path / "n.pt", net, "n")
    run = [sys.executable, "-m", "analysis.train.evaluate", str(games), "--max-positions", "5"]
    out = subprocess.run([*run, "--weights", str(tmp_path / "n.pt"), "--json", "--dtype", "float32"],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    reported = json.loads(out.stdout)
    assert reported["positions"] == 3 and reported["dtype"] == "float32"
    bad = subprocess.run([*run, "--weights", str(tmp_path / "missing.pt")], capture_output=True, text=True,
                         cwd=ROOT)
    assert bad.returncode == 2 and "missing.pt" in bad.stderr


def test_torchrun_trains_with_two_cpu_processes_on_gloo(tmp_path: Path, games: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29517",
           "-m", "analysis.train", "--preset", "golois-b4c48", "--data", str(games), "--run-dir",
           str(tmp_path / "ddp"), "--batch-size", "8", "--max-samples", "32", "--workers", "0", "--quiet",
           "--device", "cpu", "--ddp-backend", "gloo"]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    saved = checkpoint.load(tmp_path / "ddp" / "last.pt")
    assert saved["samples"] == 32  # two ranks of 8 per step, two steps
    assert [place["seed"] for place in saved["stream"]] == [0, 7919]  # each rank's stream, to go on from


def rank_processes(parent: int) -> dict[int, int]:
    """The torchrun ranks among the descendants of process ``parent``: pid by RANK."""
    ranks, todo = {}, [parent]
    while todo:
        pid = todo.pop()
        for task in Path(f"/proc/{pid}/task").glob("*"):
            todo += [int(c) for c in (task / "children").read_text().split()]
        if pid == parent:
            continue
        env = dict(e.split("=", 1) for e in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in e)
        if "RANK" in env and "python" in Path(f"/proc/{pid}/cmdline").read_text():
            ranks[int(env["RANK"])] = pid
    return ranks


def test_a_signal_to_one_torchrun_rank_stops_every_rank_cleanly_with_the_state_saved(tmp_path: Path,
                                                                                    games: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-port", "29521",
           "-m", "analysis.train", "--preset", "golois-b4c48", "--data", str(games), "--run-dir",
           str(tmp_path / "ddp"), "--batch-size", "8", "--workers", "0", "--device", "cpu",
           "--ddp-backend", "gloo"]
    run = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    try:
        seen = ""
        while "samples " not in seen:  # rank 0's first progress line: both ranks are in the loop
            char = run.stderr.read(1)
            assert char, f"the run ended early: {seen[-2000:]}"
            seen += char
        os.kill(rank_processes(run.pid)[1], signal.SIGTERM)  # the other rank's clock runs on
        assert run.wait(timeout=120) == 0, run.stderr.read()[-2000:]
    finally:
        run.kill()
    saved = checkpoint.load(tmp_path / "ddp" / "last.pt")
    assert saved["samples"] > 0 and len(saved["stream"]) == 2


def test_sigterm_to_the_whole_process_group_stops_a_run_with_loader_processes_cleanly(tmp_path: Path,
                                                                                      games: Path) -> None:
    """``timeout`` and batch systems signal the run's whole process group: the run stops cleanly and
    saves, and its loader processes leave the signal to it, since it still reads from them while
    it validates.  (A signal to the run's process alone: the torchrun test above.)"""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "analysis.train", "--preset", "golois-b4c48", "--data", str(games),
           "--validation", str(games), "--validation-positions", "8", "--run-dir", str(tmp_path / "run"),
           "--batch-size", "8", "--workers", "2"]
    run = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        seen = ""
        while "samples " not in seen:  # the first progress line: the loop and its workers are running
            char = run.stderr.read(1)
            assert char, f"the run ended early: {seen[-2000:]}"
            seen += char
        os.killpg(run.pid, signal.SIGTERM)
        assert run.wait(timeout=120) == 0, run.stderr.read()[-2000:]
    finally:
        run.kill()
    assert checkpoint.load(tmp_path / "run" / "last.pt")["samples"] > 0


def test_a_run_ends_its_loader_processes_as_it_returns(tmp_path: Path, games: Path) -> None:
    """The loader's worker processes end when :func:`train` returns, not at a later garbage
    collection: once, a loop that held a reference to itself kept them running, and a run stopped
    by a SIGTERM to its process group then hung at exit (the test above)."""
    before = set(multiprocessing.active_children())
    gc.disable()  # only reference counting frees the loop: what a cycle would keep alive stays
    try:
        train(replace(short_run(tmp_path, games, "run", None, 32), workers=2))
        assert set(multiprocessing.active_children()) - before == set()
    finally:
        gc.enable()
        gc.collect()  # a loop in a cycle is freed here, so that its workers end with the test


def test_back_prediction_samples_target_the_previous_move_among_the_opponents_stones(games: Path) -> None:
    sampler = PositionSampler([str(games)], "backpred", pool_size=3, shuffle_buffer=1, seed=4,
                              target="previous")
    batch = sampler.batch(48)
    known = batch.moves[:, 0] >= 0
    assert known.sum() > 30
    for i in np.flatnonzero(known):
        move = int(batch.moves[i, 0])
        assert batch.legal[i, move]
        assert batch.inputs[i, 1].ravel()[move] == 1  # "their stones": the player who just moved
    assert (batch.moves[~known, 0] == -1).all()  # the first position of a game has no previous move


def test_manage_py_train_is_the_same_command() -> None:
    done = subprocess.run([sys.executable, "manage.py", "train", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0
    assert "--preset" in done.stdout and "--resume" in done.stdout


def test_restart_lr_without_resume_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train_main(["--data", "games", "--restart-lr", "0.001"])
    assert exit_info.value.code == 2
    assert "--restart-lr needs --resume" in capsys.readouterr().err


def test_validation_examples_see_the_features_training_saw(games: Path) -> None:
    # The games are 9d against 9d: darkforest's rank planes stay "unknown" (zero) in training,
    # so they must in validation too (they were all ones there once, and the net's accuracy fell
    # from 35% to 12%).
    fs = get_feature_set("darkforest")
    rank_planes = [i for i, p in enumerate(fs.planes) if p.name.startswith("opponent rank")]
    example = fixed_positions([str(games)], 1, seed=3)[0]
    assert len(rank_planes) == 9 and not fs.extract(example.context())[rank_planes].any()
    sampled = PositionSampler([str(games)], "darkforest", pool_size=2, shuffle_buffer=1, seed=3).batch(4)
    assert not sampled.inputs[:, rank_planes].any()


def test_a_run_in_nhwc_memory_trains_and_saves_weights_that_load(tmp_path: Path, games: Path) -> None:
    train(replace(short_run(tmp_path, games, "nhwc", None, 32), channels_last=True))
    model, state = checkpoint.load_model(tmp_path / "nhwc" / "last.pt")
    policy = model.eval()(torch.zeros(1, model.config.in_planes, 19, 19))[0]
    assert state["samples"] == 32 and torch.isfinite(policy).all()
