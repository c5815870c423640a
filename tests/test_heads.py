"""The main net's extra heads and their targets: komi as an input, KataGo's labels turned to the
mover's side, komi jitter, the losses' masks, and the warm start from a net without them."""

from __future__ import annotations

import math
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.features import FeatureContext, get_feature_set
from analysis.go.coords import from_sgf
from analysis.go.position import Position
from analysis.nets import checkpoint
from analysis.nets.inference import Network
from analysis.nets.presets import build, get_preset
from analysis.nets.registry import default_weights
from analysis.nets.score_head import heads, name_score_head
from analysis.nets.score_head import main as score_head_main
from analysis.nets.zoo import WEIGHTS_DIR
from analysis.sgf.results import result_margin
from analysis.train.loop import TrainConfig
from analysis.train.losses import AllHeads, _head_losses, losses
from analysis.train.teacher import TeacherSampler
from analysis.train.warmstart import describe_start, transplant

MOVES = ["pd", "dp", "pq", "dd", "qk", "nc"]


@pytest.fixture
def labelled(tmp_path: Path) -> Path:
    """A month of one game (archive ``2010-01.zip``) and labels of its positions after 2 and 3 moves:
    Black wins 0.7 / leads 5.5 and owns the left half of the board."""
    folder = tmp_path / "train"
    folder.mkdir()
    body = "".join(f";{'BW'[i % 2]}[{m}]" for i, m in enumerate(MOVES))
    with zipfile.ZipFile(folder / "2010-01.zip", "w") as archive:
        archive.writestr("1.sgf", f"(;GM[1]FF[4]SZ[19]KM[6.5]RE[B+R]{body})")
    left = np.where(np.arange(361) % 19 < 9, 127, -127).astype(np.int8)
    np.savez(tmp_path / "labels.npz", month=np.array(["2010-01"] * 2), game=np.array(["1.sgf"] * 2),
             turn=np.array([2, 3], dtype=np.int16), winrate_black=np.array([0.7, 0.7], dtype=np.float16),
             score_lead_black=np.array([5.5, 5.5], dtype=np.float16), ownership_black=np.stack([left, left]))
    return tmp_path


def test_the_komi_plane_is_the_komi_from_the_movers_side() -> None:
    fs = get_feature_set("golois-komi")
    pos = Position(19, komi=7.5)
    assert fs.extract(FeatureContext(pos))[-1].max() == pytest.approx(-0.5)  # black gives the komi
    pos.play(from_sgf("pd", 19))
    assert fs.extract(FeatureContext(pos))[-1].min() == pytest.approx(0.5)  # white receives it


def test_teacher_targets_are_the_movers_and_follow_the_symmetry(labelled: Path) -> None:
    sampler = TeacherSampler(labelled / "labels.npz", labelled / "train", seed=1, komi_jitter=0.0,
                             shuffle_buffer=1)
    seen = {}
    for _ in range(20):
        batch = sampler.batch(2)
        for i in range(2):
            ours, theirs = batch.inputs[i, 0].ravel() > 0, batch.inputs[i, 1].ravel() > 0
            black_to_move = ours.sum() + theirs.sum() == 2  # labelled after 2 moves (Black) or 3 (White)
            seen[bool(black_to_move)] = (batch.value[i], batch.score[i])
            # The stones sit where the labels give the opponent the point (Black's pd, pq on the
            # right, which White owns; White's dp on the left, which Black owns), whatever the symmetry.
            assert np.all(batch.ownership[i][ours] == pytest.approx(-1.0, abs=0.01))
            assert np.all(batch.ownership[i][theirs] == pytest.approx(1.0, abs=0.01))
            assert (batch.ownership[i] > 0).sum() == (171 if black_to_move else 190)
            assert batch.moves[i, 0] >= 0 and batch.legal[i, batch.moves[i, 0]]
    assert seen[True] == pytest.approx((0.7, 5.5), abs=0.01)  # after 2 moves: Black to move
    assert seen[False] == pytest.approx((0.3, -5.5), abs=0.01)  # after 3 moves: White to move


def test_komi_jitter_moves_the_score_and_hides_the_win_rate(labelled: Path) -> None:
    sampler = TeacherSampler(labelled / "labels.npz", labelled / "train", seed=2, komi_jitter=1.0,
                             komi_range=5.0, shuffle_buffer=1)
    batch = sampler.batch(16)
    assert np.isnan(batch.value).all()
    shifts = set()
    for inputs, score in zip(batch.inputs, batch.score, strict=True):
        black_to_move = inputs[0].sum() + inputs[1].sum() == 2
        komi = inputs[-1, 0, 0] * 15 * (-1 if black_to_move else 1)
        shift = komi - 6.5
        shifts.add(round(float(shift), 1))
        expected = 5.5 - shift if black_to_move else -5.5 + shift  # more komi: more for White
        assert score == pytest.approx(expected, abs=0.02)
    assert len(shifts) > 3 and all(-5 <= s <= 5 for s in shifts)


def test_counted_results_give_blacks_margin() -> None:
    assert result_margin("B+3.5") == 3.5 and result_margin("W+0.5") == -0.5 and result_margin("0") == 0
    assert all(math.isnan(result_margin(r)) for r in ("B+R", "W+T", "B+F", "", None, "B+", "B+inf", "W+nan"))


def test_the_losses_use_only_the_targets_a_sample_has() -> None:
    torch.manual_seed(0)
    model = build(get_preset("golois-score-b6c64"))
    size = 4
    batch = {
        "inputs": torch.rand(size, 40, 9, 9), "legal": torch.ones(size, 82, dtype=torch.bool),
        "moves": torch.tensor([[3], [4], [5], [-1]]), "value": torch.tensor([1.0, math.nan, 0.0, math.nan]),
        "score": torch.full((size,), math.nan), "ownership": torch.full((size, 81), math.nan),
    }
    cfg = TrainConfig(preset="golois-score-b6c64", data=[])
    total, parts = losses(AllHeads(model), batch, cfg)
    absent = ("ownership", "score_nll", "score_bins")  # no sample has their targets: NaN, adding nothing
    assert all(torch.isnan(parts[k]) for k in absent) and torch.isfinite(total)
    assert total.item() == pytest.approx(float(parts["policy"]) + cfg.value_weight * float(parts["value"]),
                                         abs=1e-5)
    batch["score"][0] = 12.0
    batch["ownership"][1] = 1.0
    total, parts = losses(AllHeads(model), batch, cfg)
    assert all(torch.isfinite(parts[k]) for k in absent) and torch.isfinite(total)
    total.backward()
    assert model.ownership.conv2.weight.grad.abs().sum() > 0
    assert model.score.gaussian.fc2.weight.grad.abs().sum() > 0


def test_a_warm_start_keeps_the_old_nets_policy_and_adds_the_heads() -> None:
    torch.manual_seed(0)
    old = build(get_preset("golois-b6c64")).eval()
    new = build(get_preset("golois-score-b6c64")).eval()
    report = transplant(new, old.state_dict())
    assert report["widened"] == ["input.conv5.weight", "input.conv1.weight"]
    assert {name.split(".")[0] for name in report["fresh"]} == {"ownership", "score"}
    x = torch.rand(2, 39, 19, 19)
    komi = torch.full((2, 1, 19, 19), random.choice([-0.5, 0.5]))
    with torch.inference_mode():
        before, _ = old(x)
        out = new.forward_all(torch.cat([x, komi], dim=1))
    assert torch.allclose(out["policy"], before, atol=1e-5)
    assert out["ownership"].shape == (2, 361) and out["ownership"].abs().max() <= 1
    assert out["score_gaussian"].shape == (2, 2) and out["score_logits"].shape == (2, 301)


def test_a_widened_net_computes_what_the_narrow_one_did_and_its_new_weights_learn() -> None:
    torch.manual_seed(0)
    old = build(get_preset("golois-score-b6c64"))
    with torch.no_grad():  # trained batch norms are not the identity
        for module in old.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2.0)
                module.bias.uniform_(-0.5, 0.5)
    new = build(get_preset("golois-score-b6c96"))
    report = transplant(new, old.state_dict())
    assert report["fresh"] == report["dropped"] == [] and "trunk.5.conv.weight" in report["widened"]
    x = torch.rand(4, 40, 19, 19)
    for mode in (False, True):  # running statistics, then the batch's own
        old.train(mode), new.train(mode)
        with torch.no_grad():
            before, after = old.forward_all(x), new.forward_all(x)
        for head in before:
            assert torch.allclose(after[head], before[head], atol=1e-4), head
    new.train()
    out = new.forward_all(x)
    (out["policy"][:, 0].logsumexp(1).sum() + out["value"].sum()).backward()
    assert new.policy[0].conv.weight.grad[:, 64:].abs().sum() > 0
    assert new.trunk[0].conv.weight.grad[:64, 64:].abs().sum() > 0


def test_a_deepened_net_computes_what_the_shallow_one_did_and_its_new_blocks_learn() -> None:
    torch.manual_seed(0)
    old = build(get_preset("golois-score-b6c64"))
    x = torch.rand(8, 40, 19, 19)
    with torch.no_grad():  # trained batch norms: their own scale and bias, statistics of the data
        for module in old.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.weight.uniform_(-1.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
                module.momentum = None  # running statistics: the mean over the passes
        old.train()
        for _ in range(3):
            old.forward_all(x)
    new = build(get_preset("golois-score-b12c64"))
    report = transplant(new, old.state_dict())
    assert report["deepened"] == [f"trunk.{i}" for i in range(6, 12)] and report["fresh"] == []
    for mode in (False, True):  # running statistics, then the batch's own
        old.train(mode), new.train(mode)
        with torch.no_grad():
            before, after = old.forward_all(x), new.forward_all(x)
            assert (old.trunk(old.input(x)) < 0).any()  # the ReLU of a new block would cut these
        for head in before:  # the score heads' raw margins too: exact komi adds its offset after them
            assert torch.allclose(after[head], before[head], atol=1e-4), (mode, head)
    new.train()
    out = new.forward_all(x)
    (out["policy"][:, 0].logsumexp(1).sum() + out["value"].sum()).backward()
    assert all(new.trunk[i].conv.weight.grad.abs().sum() > 0 for i in range(6, 12))


def test_the_shipped_default_widened_to_b12c128_computes_exactly_what_it_does() -> None:
    shipped = checkpoint.load(default_weights(device="cpu"))
    assert shipped["preset"] == "golois-score-b12c64"  # the preset b12c128 is made to grow from
    old = build(get_preset(shipped["preset"]))
    old.load_state_dict(shipped["model"])
    new = build(get_preset("golois-score-b12c128"))
    report = transplant(new, shipped["model"])
    assert report["dropped"] == [] and report["fresh"] == [] and "trunk.11.conv.weight" in report["widened"]
    torch.manual_seed(0)
    x = torch.cat([torch.rand(6, 39, 19, 19).round(), torch.full((6, 1, 19, 19), 0.43)], dim=1)
    for mode in (False, True):  # running statistics, then the batch's own
        old.train(mode), new.train(mode)
        with torch.no_grad():
            before, after = old.forward_all(x), new.forward_all(x)
        for head in before:
            assert torch.allclose(after[head], before[head], atol=1e-4), (mode, head)


def test_the_shipped_darkforest_widened_and_deepened_to_the_papers_depth_computes_what_it_does() -> None:
    shipped = checkpoint.load(WEIGHTS_DIR / "darkforest.pt")
    assert shipped["preset"] == "darkforest-b6c64"  # the preset darkforest-b11c192 is made to grow from
    old = build(get_preset(shipped["preset"]))
    old.load_state_dict(shipped["model"])
    new = build(get_preset("darkforest-b11c192"))
    report = transplant(new, shipped["model"])
    assert report["dropped"] == [] and report["fresh"] == [] and "trunk.5.conv.weight" in report["widened"]
    assert report["deepened"] == [f"trunk.{i}" for i in range(6, 11)]
    torch.manual_seed(0)
    x = torch.rand(6, get_feature_set("darkforest").num_planes, 19, 19).round()
    for mode in (False, True):  # running statistics, then the batch's own
        old.train(mode), new.train(mode)
        with torch.no_grad():
            before, after = old.forward_all(x), new.forward_all(x)
        for head in before:  # all three moves' logits (up to about 27) and the value
            assert torch.allclose(after[head], before[head], atol=1e-3), (mode, head)


def test_a_shallower_net_names_the_trained_blocks_it_leaves_behind() -> None:
    old = build(get_preset("golois-score-b12c64"))
    new = build(get_preset("golois-score-b10c128"))
    report = transplant(new, old.state_dict())
    assert {".".join(name.split(".")[:2]) for name in report["dropped"]} == {"trunk.10", "trunk.11"}
    line = describe_start("policy.pt", report)
    assert "left behind ['trunk.10', 'trunk.11']" in line and "does not start" in line
    widened = build(get_preset("golois-score-b12c128"))
    assert "left behind" not in describe_start("policy.pt", transplant(widened, old.state_dict()))


def test_jittered_komi_stays_where_the_komi_plane_reads_it_and_spreads_evenly(labelled: Path) -> None:
    sampler = TeacherSampler(labelled / "labels.npz", labelled / "train", seed=3, komi_jitter=1.0,
                             komi_range=30.0, shuffle_buffer=1)
    batch = sampler.batch(200)
    komis = []
    for inputs, score in zip(batch.inputs, batch.score, strict=True):
        black_to_move = inputs[0].sum() + inputs[1].sum() == 2
        komi = round(float(inputs[-1, 0, 0]) * 15 * (-1 if black_to_move else 1), 1)
        assert -15 <= komi <= 15
        komis.append(komi)
        shift = komi - 6.5
        assert score == pytest.approx(5.5 - shift if black_to_move else -5.5 + shift, abs=0.02)
    # drawn from -15..15 (61 half points), not clamped there: no end collects the draws past it
    assert max(komis.count(-15.0), komis.count(15.0)) <= 12


def test_with_exact_komi_a_point_of_komi_moves_the_score_by_one_point() -> None:
    torch.manual_seed(0)
    model = build(get_preset("golois-score-b6c96"))
    with torch.no_grad():  # a trunk blind to komi: only the exact term can move the score
        model.input.conv5.weight[:, model.komi_plane] = 0
        model.input.conv1.weight[:, model.komi_plane] = 0
    network = Network(model, dtype="float32")
    black, white = Position(19, komi=6.5), Position(19, komi=6.5)
    white.play(from_sgf("pd", 19))
    for kind in ("distribution", "gaussian"):
        network.score_kind = kind
        before = network.predict([black, white]).score_mean
        for p in (black, white):
            p.komi += 3.0
        after = network.predict([black, white]).score_mean
        for p in (black, white):
            p.komi += 20.0  # past the komi plane's 15 points
        far = network.predict([black, white]).score_mean
        for p in (black, white):
            p.komi -= 23.0
        assert after - before == pytest.approx([-3.0, 3.0], abs=1e-4)  # three more points for White
        assert far - after == pytest.approx([-20.0, 20.0], abs=1e-4)


def test_a_shipped_file_names_the_score_head_its_lead_is_read_from(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = build(get_preset("golois-score-b6c96"))
    checkpoint.save(tmp_path / "plain.pt", model, "golois-score-b6c96")
    checkpoint.save(tmp_path / "state.pt", model, "golois-score-b6c96", score_head="gaussian")
    checkpoint.ship(tmp_path / "state.pt", tmp_path / "shipped.pt")  # the choice survives shipping
    position = Position(19, komi=6.5)
    position.play(from_sgf("pd", 19))

    def lead(path: Path, **options: object) -> tuple[str, float]:
        network = Network.from_checkpoint(path, dtype="float32", **options)
        return network.score_kind, float(network.predict([position]).score_mean[0])

    plain, named = lead(tmp_path / "plain.pt"), lead(tmp_path / "shipped.pt")
    assert plain[0] == "distribution" and named[0] == "gaussian"
    assert named == lead(tmp_path / "plain.pt", score_kind="gaussian") != plain  # the same weights
    assert lead(tmp_path / "shipped.pt", score_kind="distribution") == plain  # the caller's word wins
    with pytest.raises(ValueError, match="no 'ranked' score head in this network; its heads: gaussian, dis"):
        Network.from_checkpoint(tmp_path / "plain.pt", score_kind="ranked")


def test_naming_a_files_score_head_changes_the_lead_read_and_nothing_else(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch.manual_seed(0)
    path, plain = tmp_path / "net.pt", tmp_path / "policy.pt"
    checkpoint.save(path, build(get_preset("golois-score-b6c96")), "golois-score-b6c96", samples=7)
    checkpoint.save(plain, build(get_preset("golois-b4c48")), "golois-b4c48")
    before = checkpoint.load(path)
    assert heads(path) == ("distribution", ("gaussian", "distribution"))
    assert score_head_main([str(path), "gaussian"]) == 0
    assert "read from the gaussian head" in capsys.readouterr().out
    after = checkpoint.load(path)
    assert after["score_head"] == "gaussian" and after["samples"] == 7
    assert all(torch.equal(after["model"][k], v) for k, v in before["model"].items())
    assert Network.from_checkpoint(path).score_kind == "gaussian"
    name_score_head(path, "distribution")
    assert Network.from_checkpoint(path).score_kind == "distribution"
    with pytest.raises(ValueError, match="no 'gaussian' score head"):
        name_score_head(plain, "gaussian")
    assert "score_head" not in checkpoint.load(plain)
    assert score_head_main([str(plain)]) == 0 and "no score head" in capsys.readouterr().out
    assert score_head_main([str(tmp_path / "missing.pt"), "gaussian"]) == 2
    assert "missing.pt" in capsys.readouterr().err


def test_with_exact_komi_the_score_heads_learn_the_margin_on_the_board() -> None:
    margin, komi_for_mover = -2.5, 6.5  # White to move lost by 2.5 with 6.5 komi
    board = margin - komi_for_mover  # the heads' target: 9 points behind on the board
    logits = torch.full((1, 301), -30.0)
    logits[0, int(board) + 150] = 30.0
    out = {"policy": torch.zeros(1, 1, 362), "score_logits": logits,
           "score_gaussian": torch.tensor([[board / 20, math.log(1 / 20)]]),
           "score_offset": torch.tensor([komi_for_mover])}
    batch = {"value": torch.tensor([math.nan]), "score": torch.tensor([margin]),
             "ownership": torch.full((1, 361), math.nan)}
    parts: dict = {}
    _head_losses(out, batch, TrainConfig(preset="golois-score-b6c96", data=[]), parts)
    assert float(parts["score_bins"]) < 1e-6
    assert float(parts["score_nll"]) == pytest.approx(0.0, abs=0.01)  # on the mean, a spread of one point
