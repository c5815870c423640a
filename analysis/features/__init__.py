"""Input features: a registry of documented planes and the seed papers' feature sets."""

from __future__ import annotations

import numpy as np

from analysis.features.context import FeatureContext
from analysis.features.registry import REGISTRY, Feature, FeatureSet, Plane
from analysis.features.sets import BARRATT, DARKFOREST, FEATURE_SETS, GOLOIS, get_feature_set
from analysis.go.position import Position
from analysis.tactics.ladder import DEFAULT_LIMITS, LadderLimits


def extract(
    position: Position,
    feature_set: str | FeatureSet = "golois",
    ranks: dict[int, str] | None = None,
    ladder_limits: LadderLimits = DEFAULT_LIMITS,
) -> np.ndarray:
    """Return the float32 planes (num_planes, size, size) of ``position`` for the player to move.

    ``ranks`` maps BLACK/WHITE to SGF ranks such as ``9d`` (used by darkforest's rank
    planes).  Raises KeyError for an unknown feature set name.
    """
    fs = get_feature_set(feature_set) if isinstance(feature_set, str) else feature_set
    return fs.extract(FeatureContext(position, ranks or {}, ladder_limits))


__all__ = [
    "BARRATT",
    "DARKFOREST",
    "FEATURE_SETS",
    "GOLOIS",
    "REGISTRY",
    "Feature",
    "FeatureContext",
    "FeatureSet",
    "Plane",
    "extract",
    "get_feature_set",
]
