"""The one inference path: the dtype chosen by the CPU's features or by measurement, symmetries,
batching, masks by target, and every architecture loading and resuming from its checkpoint."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.features import get_feature_set, symmetry
from analysis.go.coords import from_gtp
from analysis.go.position import Position
from analysis.nets import checkpoint, precision
from analysis.nets.barratt import BarrattConfig
from analysis.nets.golois import GoloisConfig
from analysis.nets.inference import Network
from analysis.nets.presets import PRESETS, build, get_preset
from analysis.train.loop import TrainConfig, train
from tests.test_train import games  # noqa: F401  (the fixture of a few training games)

CPUINFO = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2 fma {extra}\nbogomips\t: 4\n"


def tiny(arch: str = "golois", **options: object) -> torch.nn.Module:
    torch.manual_seed(0)
    if arch == "barratt":
        planes = get_feature_set("barratt").num_planes
        config = BarrattConfig(planes, 2, 8, cross_widths=(1, 2), cross_kernel=5, cross_channels=4,
                               cross_planes=2, value_head=True, **options)
    else:
        config = GoloisConfig(get_feature_set("golois").num_planes, 1, 8, value_head=True, **options)
    return build(config).eval()


def test_the_cpu_flags_tell_whether_bf16_is_native() -> None:
    assert not precision.flags_have_bf16(CPUINFO.format(extra="avx512f"))
    assert precision.flags_have_bf16(CPUINFO.format(extra="avx512_bf16"))
    assert precision.flags_have_bf16(CPUINFO.format(extra="amx_bf16 amx_tile"))
    assert not precision.flags_have_bf16("no flags here")


def test_without_bf16_instructions_the_cpu_computes_in_float32_and_times_nothing(monkeypatch) -> None:
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: False)

    def never() -> None:
        raise AssertionError("nothing should be timed")

    dtype, reason = precision.choose_dtype(torch.device("cpu"), never)
    assert dtype == torch.float32 and "no bf16 instructions" in reason


def test_with_bf16_instructions_the_faster_dtype_wins(monkeypatch) -> None:
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    cpu = torch.device("cpu")

    def bf16_is_slow() -> None:
        time.sleep(0.02 if torch.is_autocast_enabled("cpu") else 0.001)

    def bf16_is_fast() -> None:
        time.sleep(0.001 if torch.is_autocast_enabled("cpu") else 0.02)

    assert precision.choose_dtype(cpu, bf16_is_slow)[0] == torch.float32
    dtype, reason = precision.choose_dtype(cpu, bf16_is_fast)
    assert dtype == torch.bfloat16 and "timed on this machine" in reason


def bf16_faster_but_busy(start: int, calls: int) -> Callable[[], None]:
    """Return work that takes 2 ms in bfloat16 and 8 ms in float32, 30 ms more from its call
    number ``start`` for ``calls`` calls (another process on the core)."""
    count = iter(range(1000))

    def work() -> None:
        busy = start <= next(count) < start + calls
        time.sleep((0.002 if torch.is_autocast_enabled("cpu") else 0.008) + (0.03 if busy else 0.0))

    return work


def test_a_spell_of_contention_over_one_dtypes_timing_does_not_decide_the_choice(monkeypatch) -> None:
    """Workers starting together time their dtypes at once: a busy spell as long as one dtype's
    warm-up and timed calls (which once made a worker compute in float32, 1.4 times slower) slows
    both dtypes alike, and the faster one still wins."""
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: True)
    spell = precision.ROUNDS + 1
    for start in (0, 2, spell):  # from 2: every bfloat16 call, had each dtype been timed in one go
        chosen = precision.choose_dtype(torch.device("cpu"), bf16_faster_but_busy(start, spell))[0]
        assert chosen == torch.bfloat16, f"a busy spell from call {start} decided the choice"


def test_a_network_chooses_its_dtype_on_the_first_batch() -> None:
    network = Network(tiny())
    assert network.dtype is None
    network.predict([Position(9)])
    assert network.dtype in precision.candidate_dtypes(torch.device("cpu")) and network.dtype_reason
    assert network.layout in ("NCHW", "NHWC")


def timed_pairs(monkeypatch, fastest: tuple[torch.dtype, str], has_bf16: bool) -> list[tuple]:
    """Make the CPU have bf16 or not, and the timing find the pair ``fastest`` fastest; return the
    list the pairs timed will be put in."""
    monkeypatch.setattr(precision, "cpu_has_bf16", lambda: has_bf16)
    timed: list[tuple] = []

    def fake_fastest(runs: dict) -> dict:
        for run in runs.values():
            run()  # each pass runs as it would be timed
        timed.extend(runs)
        return {pair: 0.001 if pair == fastest else 0.002 for pair in runs}

    monkeypatch.setattr(precision, "fastest", fake_fastest)
    return timed


@pytest.mark.parametrize("has_bf16", [False, True])
def test_on_a_cpu_the_network_times_each_dtype_in_both_layouts_and_computes_in_the_fastest(
        monkeypatch, has_bf16: bool) -> None:
    positions = [Position(9) for _ in range(3)]
    for i, p in enumerate(positions):
        p.play(i * 5)
    reference = Network(tiny(), dtype="float32").predict(positions)
    timed = timed_pairs(monkeypatch, (torch.float32, "NHWC"), has_bf16)
    network = Network(tiny())
    chosen = network.predict(positions)
    dtypes = [torch.float32, torch.bfloat16] if has_bf16 else [torch.float32]
    assert timed == [(dtype, layout) for dtype in dtypes for layout in ("NCHW", "NHWC")]
    assert (network.dtype, network.layout) == (torch.float32, "NHWC")
    assert "float32 NHWC 1.0 ms" in network.dtype_reason
    convolutions = [m.weight for m in network.model.modules() if isinstance(m, torch.nn.Conv2d)]
    assert convolutions and all(w.is_contiguous(memory_format=torch.channels_last) for w in convolutions)
    np.testing.assert_allclose(chosen.heads, reference.heads, atol=1e-5)  # the same network, laid out anew
    np.testing.assert_allclose(chosen.value, reference.value, atol=1e-5)


def test_a_network_given_its_dtype_times_nothing_and_computes_in_nchw(monkeypatch) -> None:
    timed = timed_pairs(monkeypatch, (torch.float32, "NHWC"), True)
    network = Network(tiny(), dtype="bfloat16")
    network.predict([Position(9)])
    assert timed == []
    assert (network.dtype, network.layout, network.dtype_reason) == (torch.bfloat16, "NCHW", "given")
    timed_pairs(monkeypatch, (torch.bfloat16, "NCHW"), True)
    chosen = Network(tiny())
    chosen.predict([Position(9)])
    assert (chosen.dtype, chosen.layout) == (torch.bfloat16, "NCHW")


def test_a_layout_given_is_kept_or_chosen_from_alone_and_an_unknown_one_is_refused(monkeypatch) -> None:
    timed = timed_pairs(monkeypatch, (torch.float32, "NCHW"), False)
    fixed = Network(tiny(), dtype="float32", layout="NHWC")
    fixed.predict([Position(9)])
    assert timed == [] and fixed.layout == "NHWC"
    assert all(m.weight.is_contiguous(memory_format=torch.channels_last)
               for m in fixed.model.modules() if isinstance(m, torch.nn.Conv2d))
    only = Network(tiny(), layout="NHWC")
    only.predict([Position(9)])
    assert timed == [(torch.float32, "NHWC")] and only.layout == "NHWC"
    with pytest.raises(ValueError, match="unknown layout 'NDHW'; known: NCHW, NHWC"):
        Network(tiny(), layout="NDHW")


def test_batches_split_and_joined_give_the_same_prediction() -> None:
    positions = [Position(9) for _ in range(7)]
    for i, p in enumerate(positions):
        p.play(i * 3)
    whole = Network(tiny(), dtype="float32").predict(positions)
    split = Network(tiny(), dtype="float32", max_batch=3).predict(positions)
    np.testing.assert_allclose(split.heads, whole.heads, atol=1e-6)
    np.testing.assert_allclose(split.value, whole.value, atol=1e-6)
    assert whole.heads.shape == (7, 1, 82) and whole.value.shape == (7,)
    np.testing.assert_allclose(whole.policy.sum(axis=1), 1, atol=1e-5)


def test_eight_symmetries_average_to_a_symmetric_policy_on_a_symmetric_board() -> None:
    bagged = Network(tiny(), dtype="float32").predict([Position(9)], symmetries=8).policy[0]
    for k in symmetry.SYMMETRIES:
        np.testing.assert_allclose(bagged[symmetry.point_table(9, k)], bagged, atol=1e-6)
    single = Network(tiny(), dtype="float32").predict([Position(9)]).policy[0]
    assert not np.allclose(single[symmetry.point_table(9, 1)], single, atol=1e-6)


def test_a_back_prediction_net_only_names_the_movers_stones() -> None:
    pos = Position(9)
    for vertex in ("E5", "C3", "G7"):
        pos.play(from_gtp(vertex, 9))
    torch.manual_seed(0)
    model = build(GoloisConfig(get_feature_set("backpred").num_planes, 1, 8, "backpred", target="previous"))
    policy = Network(model, dtype="float32").predict([pos]).policy[0]
    black = [from_gtp(v, 9) for v in ("E5", "G7")]
    assert set(np.flatnonzero(policy[:-1] > 0)) == set(black)


@pytest.mark.parametrize("arch", ["golois", "barratt"])
def test_every_architecture_saves_loads_and_resumes(arch: str, tmp_path: Path, games: Path) -> None:  # noqa: F811
    model = tiny(arch)
    path = tmp_path / f"{arch}.pt"
    checkpoint.save(path, model, f"tiny-{arch}", samples=0, wall_seconds=0.0)
    loaded = Network.from_checkpoint(path, dtype="float32")
    assert loaded.config == model.config and loaded.info["preset"] == f"tiny-{arch}"
    pos = Position(9)
    pos.play(from_gtp("E5", 9))
    again = loaded.predict([pos])
    first = Network(model, dtype="float32").predict([pos])
    np.testing.assert_array_equal(again.heads, first.heads)
    train(TrainConfig(preset="ignored", data=[str(games)], run_dir=str(tmp_path / "run"), resume=str(path),
                      batch_size=8, max_samples=16, workers=0, progress=False, dtype="float32"))
    resumed = checkpoint.load(tmp_path / "run" / "last.pt")
    assert resumed["samples"] == 16 and resumed["config"]["arch"] == arch
    assert Network.from_checkpoint(tmp_path / "run" / "last.pt").config == model.config


def test_training_says_which_dtype_it_chose(tmp_path: Path, games: Path, capsys) -> None:  # noqa: F811
    train(TrainConfig(preset="golois-b4c48", data=[str(games)], run_dir=str(tmp_path / "run"), batch_size=8,
                      max_samples=8, workers=0, progress=False))
    line = next(line for line in capsys.readouterr().err.splitlines() if line.startswith("training in"))
    chosen = line.split()[2]
    assert chosen in [precision.describe(d) for d in precision.candidate_dtypes(torch.device("cpu"))]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_presets_checkpoint_saves_loads_the_same_and_resumes(preset: str, tmp_path: Path,
                                                                   games: Path) -> None:  # noqa: F811
    torch.manual_seed(0)
    model = build(get_preset(preset)).eval()
    path = tmp_path / "net.pt"
    checkpoint.save(path, model, preset)
    loaded = Network.from_checkpoint(path, dtype="float32")
    pos = Position(19)
    pos.play(from_gtp("Q16", 19))
    again, first = loaded.predict([pos]), Network(model, dtype="float32").predict([pos])
    np.testing.assert_array_equal(again.heads, first.heads)
    train(TrainConfig(preset="ignored", data=[str(games)], run_dir=str(tmp_path / "run"), resume=str(path),
                      batch_size=4, max_samples=4, workers=0, progress=False, dtype="float32"))
    assert checkpoint.load(tmp_path / "run" / "last.pt")["preset"] == preset


def test_settled_ownership_is_blacks_view_averaged_over_both_players_to_move() -> None:
    torch.manual_seed(0)
    network = Network(build(get_preset("golois-score-b6c64")), dtype="float32")
    black = Position(9)
    for move in ("C3", "G7", "C7"):
        black.play(from_gtp(move, 9))
    white = black.copy()
    white.to_play = -black.to_play
    views = network.predict([black, white]).ownership
    expected = ((views[0] * black.to_play + views[1] * white.to_play) / 2).reshape(9, 9)
    assert np.allclose(network.settled_ownership(black), expected, atol=1e-5)
    assert np.allclose(network.settled_ownership(white), expected, atol=1e-5)
    assert network.settled_ownership(white).shape == (9, 9)
    assert Network(tiny(), dtype="float32").settled_ownership(black) is None
