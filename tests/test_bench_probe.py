"""The value probe: its frozen trunk's features give the network's own value, and the heads it
fits learn from those features alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.bench.probe import Features, PooledValueHead, fit, log_loss, probe, trunk_features
from analysis.features import FeatureContext, get_feature_set
from analysis.go.position import Position
from analysis.nets.inference import Network
from analysis.nets.presets import build, get_preset


def _positions(count: int) -> list[Position]:
    rng = np.random.default_rng(3)
    out = []
    for _ in range(count):
        position = Position(19)
        for point in rng.choice(361, size=12, replace=False):
            position.play(int(point), position.to_play)
        out.append(position)
    return out


@pytest.fixture(scope="module")
def model() -> torch.nn.Module:
    torch.manual_seed(0)
    return build(get_preset("golois-score-b6c64")).eval()


def test_the_network_head_on_the_trunk_features_gives_the_networks_own_value(model) -> None:
    positions = _positions(6)
    planes = get_feature_set(model.config.feature_set).extract_batch([FeatureContext(p) for p in positions])
    features = trunk_features(model, planes, np.full(6, 1.0, dtype=np.float32))
    with torch.no_grad():
        logits = model.value(features.trunk.float())
    expected = Network(model, dtype="float32").predict(positions).value
    assert np.allclose(torch.sigmoid(logits).numpy(), expected, atol=2e-3)


def test_unknown_targets_are_left_out(model) -> None:
    planes = np.zeros((3, model.config.in_planes, 19, 19), dtype=np.float32)
    features = trunk_features(model, planes, np.array([1.0, np.nan, 0.0], dtype=np.float32))
    assert features.trunk.shape == (2, model.config.channels, 19, 19)
    assert features.value.tolist() == [1.0, 0.0]


def test_a_fitted_head_learns_a_target_its_features_hold() -> None:
    torch.manual_seed(1)
    trunk = torch.randn(512, 8, 5, 5)
    value = (trunk[:, 0].mean(dim=(1, 2)) > 0).float()  # the sign of one channel's mean
    data = Features(trunk.half(), value)
    head = PooledValueHead(8)
    before = log_loss(head, data)
    fit(head, data, epochs=30, lr=1e-2)
    assert before > 0.6 and log_loss(head, data) < 0.35


def test_the_probe_reports_every_head_and_the_network_head_as_it_is(model) -> None:
    torch.manual_seed(2)
    train = Features(torch.randn(64, 64, 19, 19).half(), torch.rand(64))
    validation = Features(torch.randn(32, 64, 19, 19).half(), torch.randint(0, 2, (32,)).float())
    figures = probe(model, train, validation, epochs=1)
    assert set(figures) == {"network", "refit", "fresh", "pooled"}
    assert figures["network"]["log_loss"] == round(log_loss(model.value, validation), 4)
    assert all(0 < f["log_loss"] < 5 and 0 < f["fit"] < 5 for f in figures.values())
