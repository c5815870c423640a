"""Named model presets (``<arch>-b<blocks>c<channels>``) and building models from configs."""

from __future__ import annotations

from torch import nn

from analysis.features import get_feature_set
from analysis.nets.golois import GoloisConfig, GoloisNet


def _golois(blocks: int, channels: int, **options: object) -> GoloisConfig:
    return GoloisConfig(get_feature_set("golois").num_planes, blocks, channels, "golois", **options)


PRESETS: dict[str, GoloisConfig] = {
    "golois-b6c64": _golois(6, 64, value_head=True),
    "golois-b4c48": _golois(4, 48, value_head=True),
    "golois-b10c128": _golois(10, 128, value_head=True),
    "backpred-b4c48": GoloisConfig(
        get_feature_set("backpred").num_planes, 4, 48, "backpred", target="previous"
    ),
    "darkforest-b6c64": GoloisConfig(
        get_feature_set("darkforest").num_planes, 6, 64, "darkforest", future_moves=3, value_head=True
    ),
}


def get_preset(name: str) -> GoloisConfig:
    """Return the config of preset ``name``; raises KeyError listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def build(config: GoloisConfig) -> nn.Module:
    """Return a freshly initialised model for ``config``."""
    return GoloisNet(config)
