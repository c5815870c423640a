"""Networks: shapes and legality masking on any board size, overfitting, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.features import FeatureContext, get_feature_set
from analysis.go.position import Position
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.presets import PRESETS, build, get_preset


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("size", [9, 19])
def test_every_preset_gives_masked_policies_and_values_on_any_size(preset: str, size: int) -> None:
    config = get_preset(preset)
    model = build(config).eval()
    pos = Position(size)
    pos.play(0)
    fs = get_feature_set(config.feature_set)
    x = torch.from_numpy(fs.extract(FeatureContext(pos)))[None].repeat(2, 1, 1, 1)
    legal = torch.from_numpy(np.append(pos.legal_points(), True))[None].repeat(2, 1)
    with torch.inference_mode():
        policy, value = model(x, legal)
    assert policy.shape == (2, config.future_moves, size * size + 1)
    assert torch.isinf(policy[:, 0, 0]).all()  # the occupied point is masked
    assert torch.isfinite(policy[:, 0, 1:]).all()
    assert torch.softmax(policy[:, 0], dim=1)[:, 0].sum() == 0
    if config.value_head:
        assert value is not None and value.shape == (2,)
    else:
        assert value is None


def test_unknown_preset_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match="golois-b6c64"):
        get_preset("alphago-b40c256")


def tiny() -> GoloisNet:
    torch.manual_seed(0)
    return GoloisNet(GoloisConfig(in_planes=39, blocks=1, channels=16, value_head=True))


def test_a_tiny_model_overfits_a_handful_of_positions() -> None:
    model = tiny()
    torch.manual_seed(1)
    x = (torch.rand(8, 39, 9, 9) > 0.5).float()
    targets = torch.tensor([3, 10, 20, 40, 41, 60, 70, 81])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(300):
        policy, _ = model(x)
        loss = torch.nn.functional.cross_entropy(policy[:, 0], targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.05


def test_checkpoint_round_trip_gives_identical_outputs(tmp_path) -> None:
    model = tiny().eval()
    x = torch.rand(3, 39, 9, 9)
    path = tmp_path / "net.pt"
    checkpoint.save(path, model, "tiny", samples=123)
    loaded, data = checkpoint.load_model(path)
    assert data["samples"] == 123 and data["config"]["channels"] == 16
    with torch.inference_mode():
        a, va = model(x)
        b, vb = loaded(x)
    assert torch.equal(a, b) and torch.equal(va, vb)


def test_bad_checkpoint_files_give_a_clear_error(tmp_path) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    with pytest.raises(checkpoint.CheckpointError, match="not a checkpoint"):
        checkpoint.load(junk)
    torch.save({"hello": 1}, tmp_path / "other.pt")
    with pytest.raises(checkpoint.CheckpointError):
        checkpoint.load(tmp_path / "other.pt")
    with pytest.raises(FileNotFoundError):
        checkpoint.load(tmp_path / "missing.pt")
    data = {"format": checkpoint.FORMAT, "preset": "tiny", "config": tiny().config.to_dict(),
            "model": {k: v for k, v in tiny().state_dict().items() if "bn" not in k}}
    torch.save(data, tmp_path / "misfit.pt")  # a config whose weights are not all there
    with pytest.raises(checkpoint.CheckpointError, match="do not fit"):
        checkpoint.load_model(tmp_path / "misfit.pt")
