"""The raw value on real game records: it should not swing with the player to move.

Issue 14's first defect: golois's value head rated the side to move better (or worse) off than
the position before and after, so a review's win-rate graph zigzagged.  The default network,
trained with the score and ownership heads and the teacher's labels, must swing clearly less on
the same real games (the first games of the validation month).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.bench.positions import VALIDATION
from analysis.bench.score import measure
from analysis.nets.inference import Network
from analysis.nets.registry import default_weights
from analysis.nets.zoo import WEIGHTS_DIR

GAMES = 10

pytestmark = pytest.mark.skipif(not VALIDATION.exists(), reason=f"{VALIDATION} is not there")


def zigzag(weights: Path) -> float:
    """Mean distance of Black's raw win probability from the mean of its two neighbours'."""
    return measure(Network.from_checkpoint(weights, dtype="float32"), GAMES)["zigzag"]


def test_default_value_swings_a_fifth_less_than_golois_between_consecutive_moves() -> None:
    default, golois = zigzag(default_weights(device="cpu")), zigzag(WEIGHTS_DIR / "golois.pt")

    assert default < 0.8 * golois, (default, golois)
