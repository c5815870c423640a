"""Barratt & Pan cross convolutions: the X-shaped mask, the cross layer, BarrattNet and its preset."""

from __future__ import annotations

import pytest
import torch

from analysis.features import get_feature_set
from analysis.nets.barratt import BarrattConfig, BarrattNet, CrossConv2d, cross_mask
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.presets import build, config_from_dict, get_preset


def test_cross_masks_are_the_papers_figure_2() -> None:
    width1 = torch.tensor([[1, 0, 0, 0, 1],
                           [0, 1, 0, 1, 0],
                           [0, 0, 1, 0, 0],
                           [0, 1, 0, 1, 0],
                           [1, 0, 0, 0, 1]]).float()
    width2 = torch.tensor([[1, 1, 0, 1, 1],
                           [1, 1, 1, 1, 1],
                           [0, 1, 1, 1, 0],
                           [1, 1, 1, 1, 1],
                           [1, 1, 0, 1, 1]]).float()
    assert torch.equal(cross_mask(5, 1), width1)
    assert torch.equal(cross_mask(5, 2), width2)


@pytest.mark.parametrize(("size", "width"), [(4, 1), (5, 0), (5, 3), (1, 1)])
def test_cross_masks_outside_the_papers_range_are_refused(size: int, width: int) -> None:
    with pytest.raises(ValueError, match="cross"):
        cross_mask(size, width)


@pytest.mark.parametrize("optimizer", ["adamw", "sgd"])
def test_masked_weights_are_zero_and_stay_zero_through_training(optimizer: str) -> None:
    torch.manual_seed(0)
    conv = CrossConv2d(3, 4, 9, width=2)
    off = cross_mask(9, 2) == 0
    assert (conv.weight[:, :, off] == 0).all()
    assert (conv.weight[:, :, ~off] != 0).all()
    opt = (torch.optim.AdamW(conv.parameters(), lr=0.1) if optimizer == "adamw"
           else torch.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-2))
    x = torch.randn(2, 3, 9, 9)
    for _ in range(3):
        loss = conv(x).square().mean()
        opt.zero_grad()
        loss.backward()
        assert (conv.weight.grad[:, :, off] == 0).all()
        assert conv.weight.grad[:, :, ~off].abs().sum() > 0
        opt.step()
    assert (conv.weight[:, :, off] == 0).all()


def test_a_cross_convolution_sees_the_diagonals_only() -> None:
    conv = CrossConv2d(1, 1, 9, width=1)
    with torch.no_grad():
        conv.weight.fill_(1.0)
        conv.bias.zero_()
    x = torch.zeros(1, 1, 9, 9)
    x[0, 0, 4, 4] = 1.0
    assert torch.equal(conv(x)[0, 0], cross_mask(9, 1))


def tiny(**options: object) -> BarrattNet:
    torch.manual_seed(0)
    return BarrattNet(BarrattConfig(24, blocks=2, channels=16, cross_kernel=9, cross_channels=4, **options))


@pytest.mark.parametrize("size", [9, 19])
@pytest.mark.parametrize("future_moves", [1, 3])
def test_shapes_and_legality_masking_on_any_board_size(size: int, future_moves: int) -> None:
    model = tiny(future_moves=future_moves, value_head=True).eval()
    x = torch.rand(2, 24, size, size)
    legal = torch.ones(2, size * size + 1, dtype=torch.bool)
    legal[0, 5] = legal[1, -1] = False
    with torch.inference_mode():
        policy, value = model(x, legal)
    assert policy.shape == (2, future_moves, size * size + 1)
    assert value is not None and value.shape == (2,)
    assert torch.isinf(policy[0, 0, 5]) and torch.isinf(policy[1, 0, -1])
    assert torch.isfinite(policy[:, 0]).sum() == 2 * (size * size + 1) - 2
    assert torch.isfinite(policy[:, 1:]).all()


def test_the_preset_builds_and_its_config_round_trips() -> None:
    config = get_preset("barratt-b6c64")
    assert isinstance(config, BarrattConfig) and config.value_head
    assert config.in_planes == get_feature_set("barratt").num_planes == 24
    model = build(config)
    assert isinstance(model, BarrattNet)
    assert sum(isinstance(m, CrossConv2d) for m in model.modules()) == 2
    assert config.to_dict()["arch"] == "barratt"
    assert config_from_dict(config.to_dict()) == config


def test_configs_without_arch_are_golois_and_unknown_archs_are_refused() -> None:
    golois = get_preset("golois-b6c64")
    assert isinstance(golois, GoloisConfig)
    assert config_from_dict(golois.to_dict()) == golois
    assert isinstance(build(golois), GoloisNet)
    with pytest.raises(ValueError, match="unknown architecture"):
        config_from_dict({**golois.to_dict(), "arch": "alphago"})


def test_a_tiny_barratt_net_overfits_a_handful_of_positions() -> None:
    model = tiny()
    torch.manual_seed(1)
    x = (torch.rand(8, 24, 9, 9) > 0.5).float()
    targets = torch.tensor([3, 10, 20, 40, 41, 60, 70, 81])
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(300):
        policy, _ = model(x)
        loss = torch.nn.functional.cross_entropy(policy[:, 0], targets)
        if loss.item() < 0.05:
            break
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.05
