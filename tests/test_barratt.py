"""Barratt & Pan cross convolutions: the X-shaped mask, its cheap band decomposition against the dense
masked kernel, the cross layer, BarrattNet and its preset."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

from analysis.features import get_feature_set
from analysis.nets.barratt import (
    BarrattConfig,
    BarrattNet,
    CrossConv2d,
    InceptionCross,
    cross_mask,
    shear,
    unshear,
)
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


def test_shearing_turns_each_diagonal_into_a_column_and_unshearing_undoes_it() -> None:
    x = torch.arange(1.0, 1 + 4 * 6).view(1, 1, 4, 6)
    sheared = shear(x)
    assert sheared.shape == (1, 1, 4, 6 + 4 - 1)
    for d in range(-3, 6):  # the diagonal j - i = d is column d + 3
        diagonal = torch.diagonal(x[0, 0], offset=d)
        column = sheared[0, 0, :, d + 3]
        assert torch.equal(column[column != 0], diagonal)
    assert (sheared != 0).sum() == x.numel()
    assert torch.equal(unshear(sheared, 6), x)
    with pytest.raises(ValueError, match="columns"):
        unshear(sheared, 5)


@pytest.mark.parametrize(("size", "width"), [(5, 1), (5, 2), (9, 3), (37, 1), (37, 5)])
def test_the_two_bands_cover_the_cross_once_the_shared_centre_in_one_band_only(size: int, width: int) -> None:
    conv = CrossConv2d(1, 1, size, width)
    points = conv.weight.shape[-1]
    assert points == cross_mask(size, width).sum()
    used = conv.band_index[conv.band_index < points]
    assert torch.equal(used.sort().values, torch.arange(points))


BOARDS = [(9, 9), (13, 13), (19, 19), (7, 11)]
KERNELS = [(5, 1), (5, 2), (9, 1), (9, 3), (37, 1), (37, 2), (37, 3)]


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize(("size", "width"), KERNELS)
def test_the_banded_cross_convolution_equals_the_dense_masked_kernel_with_its_gradients(
    board: tuple[int, int], size: int, width: int
) -> None:
    # In float32 (the training dtype) the outputs agree to float tolerance; in float64 the outputs
    # and every gradient agree to double tolerance, so the two computations are the same function
    # (float32 gradients differ by summation order only, up to 2e-5 over a 19x19 batch).
    torch.manual_seed(size * 10 + width)
    conv = CrossConv2d(3, 4, size, width)
    x = torch.randn(2, 3, *board)
    torch.testing.assert_close(conv(x), F.conv2d(x, conv.to_dense(), conv.bias, padding=size // 2))
    conv = conv.double()
    x = x.double().requires_grad_()
    cheap = conv(x)
    dense = F.conv2d(x, conv.to_dense(), conv.bias, padding=size // 2)
    torch.testing.assert_close(cheap, dense)
    upstream = torch.randn_like(dense)
    grads = torch.autograd.grad(cheap, (x, conv.weight, conv.bias), upstream)
    dense_grads = torch.autograd.grad(dense, (x, conv.weight, conv.bias), upstream)
    for got, expected in zip(grads, dense_grads, strict=True):
        torch.testing.assert_close(got, expected)


def test_the_dense_view_is_the_masked_kernel() -> None:
    torch.manual_seed(0)
    conv = CrossConv2d(3, 4, 9, width=2)
    kept = cross_mask(9, 2).bool()
    dense = conv.to_dense()
    assert dense.shape == (4, 3, 9, 9)
    assert (dense[:, :, ~kept] == 0).all() and (dense[:, :, kept] != 0).all()
    assert torch.equal(dense[:, :, kept], conv.weight)


@pytest.mark.parametrize("optimizer", ["adamw", "sgd"])
def test_masked_weights_are_zero_and_stay_zero_through_training(optimizer: str) -> None:
    torch.manual_seed(0)
    conv = CrossConv2d(3, 4, 9, width=2)
    off = cross_mask(9, 2) == 0
    assert (conv.to_dense()[:, :, off] == 0).all()
    assert (conv.to_dense()[:, :, ~off] != 0).all()
    assert conv.weight.shape == (4, 3, int((~off).sum()))  # only the cross's points are parameters
    opt = (torch.optim.AdamW(conv.parameters(), lr=0.1) if optimizer == "adamw"
           else torch.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-2))
    x = torch.randn(2, 3, 9, 9)
    for _ in range(3):
        loss = conv(x).square().mean()
        opt.zero_grad()
        loss.backward()
        assert (conv.weight.grad != 0).all()
        opt.step()
    assert (conv.to_dense()[:, :, off] == 0).all()


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
    return BarrattNet(BarrattConfig(24, blocks=2, channels=16, cross_widths=(1, 2), cross_kernel=9,
                                    cross_channels=4, cross_planes=4, **options))


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
    assert config.cross_widths == (1, 5)  # the paper's two cross branches
    model = build(config)
    assert isinstance(model, BarrattNet)
    assert sum(isinstance(m, InceptionCross) for m in model.modules()) == 2
    assert sum(isinstance(m, CrossConv2d) for m in model.modules()) == 4
    assert config.to_dict()["arch"] == "barratt"
    assert config_from_dict(config.to_dict()) == config
    assert config_from_dict(json.loads(json.dumps(config.to_dict()))) == config


@pytest.mark.parametrize("size", [9, 13, 19])
def test_the_preset_gives_one_logit_per_point_and_pass_and_a_value_on_any_board(size: int) -> None:
    config = get_preset("barratt-b6c64")
    model = build(config).eval()
    x = (torch.rand(2, config.in_planes, size, size) > 0.5).float()
    with torch.inference_mode():
        policy, value = model(x)
    assert policy.shape == (2, 1, size * size + 1) and torch.isfinite(policy).all()
    assert value is not None and value.shape == (2,) and torch.isfinite(value).all()


def test_cross_branches_must_leave_the_3x3_branch_some_planes() -> None:
    with pytest.raises(ValueError, match="no 3x3 plane"):
        InceptionCross(16, (1, 2), 9, cross_channels=4, cross_planes=8)


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
