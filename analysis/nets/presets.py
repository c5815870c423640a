"""Named model presets (``<arch>-b<blocks>c<channels>``) and building models from configs."""

from __future__ import annotations

from torch import nn

from analysis.features import get_feature_set
from analysis.nets.barratt import BarrattConfig, BarrattNet
from analysis.nets.base import NetConfig
from analysis.nets.capsule import TangKanekoCapsuleConfig, TangKanekoCapsuleNet
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.tang_kaneko import TangKanekoCNN, TangKanekoCNNConfig

Config = NetConfig
ARCHITECTURES: dict[str, tuple[type[NetConfig], type[nn.Module]]] = {
    "golois": (GoloisConfig, GoloisNet),
    "barratt": (BarrattConfig, BarrattNet),
    "tk-cnn": (TangKanekoCNNConfig, TangKanekoCNN),
    "tk-capsule": (TangKanekoCapsuleConfig, TangKanekoCapsuleNet),
}


def _golois(blocks: int, channels: int, **options: object) -> GoloisConfig:
    return GoloisConfig(get_feature_set("golois").num_planes, blocks, channels, "golois", **options)


def _golois_score(blocks: int, channels: int, exact_komi: bool = False) -> GoloisConfig:
    return GoloisConfig(get_feature_set("golois-komi").num_planes, blocks, channels, "golois-komi",
                        value_head=True, ownership_head=True, score_head="both", exact_komi=exact_komi)


PRESETS: dict[str, Config] = {
    "golois-b6c64": _golois(6, 64, value_head=True),
    "golois-b4c48": _golois(4, 48, value_head=True),
    "golois-b10c128": _golois(10, 128, value_head=True),
    # the main net with KataGo's extra heads: komi as an input, ownership and both score heads
    "golois-score-b6c64": _golois_score(6, 64),
    # as wide as the KataGo teacher (b6c96), warm-started from b6c64 by widening; its score heads
    # predict the margin on the board and add the komi exactly (so b6c64's score heads, which
    # learnt the final margin, start one komi off and relearn)
    "golois-score-b6c96": _golois_score(6, 96, exact_komi=True),
    # twice as deep (receptive field 31 points instead of 19), warm-started from b6c64 with the
    # six new blocks as the identity (analysis/train/warmstart.py); exact komi as b6c96, so its
    # score heads too start one komi off and relearn
    "golois-score-b12c64": _golois_score(12, 64, exact_komi=True),
    # sizes for a GPU (issue 33): the score net at golois-b10c128's size (1.7M parameters, a 26 MiB
    # training state), and at the Golois paper's 20 blocks of 256 filters (12.2M parameters: a
    # reference point for the step's speed; its 186 MiB state is more than one call of a lent GPU
    # machine can bring back, 8 files of 16 MiB)
    "golois-score-b10c128": _golois_score(10, 128, exact_komi=True),
    # the default (b12c64) widened to 128 channels: --init-from weights/policy.pt starts it computing
    # exactly what the default does (every block kept), where b10c128 would leave two blocks behind
    "golois-score-b12c128": _golois_score(12, 128, exact_komi=True),
    "golois-score-b20c256": _golois_score(20, 256, exact_komi=True),
    "backpred-b4c48": GoloisConfig(
        get_feature_set("backpred").num_planes, 4, 48, "backpred", target="previous"
    ),
    "darkforest-b6c64": GoloisConfig(
        get_feature_set("darkforest").num_planes, 6, 64, "darkforest", future_moves=3, value_head=True
    ),
    # darkforest at the paper's depth (Tian & Zhu: 12 layers, of 384 filters): the input layer and 11
    # blocks of 192 filters, half the paper's width so that a training state comes back from one call
    # of a lent GPU machine (3.8M parameters, a 46 MiB state with AdamW in 3 parts);
    # --init-from weights/darkforest.pt starts it computing what the shipped b6c64 does (widened and
    # deepened, analysis/train/warmstart.py)
    "darkforest-b11c192": GoloisConfig(
        get_feature_set("darkforest").num_planes, 11, 192, "darkforest", future_moves=3, value_head=True
    ),
    "barratt-b6c64": BarrattConfig(get_feature_set("barratt").num_planes, 6, 64, value_head=True),
    # Tang & Kaneko's back-prediction nets: their CNN on one plane and on three, their capsule net,
    # and the CNN given the board one move earlier too (their k-previous-states input, k = 1)
    "tk-cnn1": TangKanekoCNNConfig(get_feature_set("tk-oneplane").num_planes, 4, 32),
    "tk-cnn3": TangKanekoCNNConfig(get_feature_set("tk-multiplane").num_planes, 4, 32, "tk-multiplane",
                                   colour_outputs=True),
    "tk-capsule": TangKanekoCapsuleConfig(get_feature_set("tk-oneplane").num_planes, 1, 256),
    "tk-cnn1-k1": TangKanekoCNNConfig(get_feature_set("tk-oneplane-k1").num_planes, 4, 32, "tk-oneplane-k1"),
}


def get_preset(name: str) -> Config:
    """Return the config of preset ``name``; raises KeyError listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None


def config_from_dict(data: dict) -> Config:
    """Return the config saved as ``data`` (``config.to_dict()``): its ``arch`` field names the
    class, and a dict without one is a GoloisConfig.

    Raises ValueError for an unknown arch, TypeError for fields the class does not have.
    """
    fields = dict(data)
    arch = fields.pop("arch", "golois")
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {arch!r}; known: {', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[arch][0](**fields)


def build(config: Config) -> nn.Module:
    """Return a freshly initialised model for ``config`` (its ``arch`` picks the class)."""
    return ARCHITECTURES[config.arch][1](config)
