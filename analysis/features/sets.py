"""The three feature sets of the seed papers."""

from __future__ import annotations

from analysis.features import back_prediction, planes  # noqa: F401  (importing them registers the planes)
from analysis.features.registry import FeatureSet

GOLOIS = FeatureSet(
    "golois",
    (
        "stones",
        "third_line",
        "ko_exists",
        "ko_point",
        "liberties_5",
        "liberties_after_6",
        "ladder_moves",
        "ladder_strings",
        "last_5_moves",
    ),
    "Cazenave 2017, section 3.2, without the three Monte-Carlo planes (playout ownership, "
    "criticality, AMAF), which cost far more than the network itself on a CPU",
)

GOLOIS_KOMI = FeatureSet(
    "golois-komi",
    (*GOLOIS.features, "komi"),
    "The golois set plus the komi from the player to move's side: the main net with score and "
    "ownership heads sees what it plays for (and so which colour it plays)",
)

DARKFOREST = FeatureSet(
    "darkforest",
    (
        "liberties_3",
        "ko_point",
        "stones",
        "history_decay",
        "opponent_rank",
        "border",
        "position_mask",
        "territory",
    ),
    "Tian & Zhu 2015, table 1, the extended set (standard set plus border, position mask, territory)",
)

BARRATT = FeatureSet(
    "barratt",
    ("stones", "legal", "liberties_after_4", "last_8_moves", "liberties_8"),
    "Barratt & Pan 2017, table 1: 24 one-hot planes",
)

BACKPRED = FeatureSet(
    "backpred",
    ("stones", "liberties_5", "ko_point"),
    "Back prediction (Tang & Kaneko), one-plane style: the current position only, no history "
    "(any earlier board state would give the previous move away)",
)

TK_ONEPLANE = FeatureSet(
    "tk-oneplane",
    ("stones_signed",),
    "Tang & Kaneko, section 3.1.1: one plane, +1 on the stones of the player to move and -1 on "
    "the opponent's (betago's one-plane encoder)",
)

TK_MULTIPLANE = FeatureSet(
    "tk-multiplane",
    ("colour_stones", "black_to_play"),
    "Tang & Kaneko, section 3.1.2: a black board, a white board and a plane saying whose turn it is",
)

TK_ONEPLANE_K1 = FeatureSet(
    "tk-oneplane-k1",
    ("stones_signed", "previous_stones_signed"),
    "Tang & Kaneko's one plane plus the board one move earlier (their k-previous-states input): the "
    "difference of the two boards is the previous move, so this measures the give-away, not skill",
)

FEATURE_SETS = {s.name: s for s in (GOLOIS, GOLOIS_KOMI, DARKFOREST, BARRATT, BACKPRED, TK_ONEPLANE,
                                    TK_MULTIPLANE, TK_ONEPLANE_K1)}


def get_feature_set(name: str) -> FeatureSet:
    """Return the feature set called ``name``; raises KeyError listing the known names."""
    try:
        return FEATURE_SETS[name]
    except KeyError:
        raise KeyError(f"unknown feature set {name!r}; known: {', '.join(FEATURE_SETS)}") from None
