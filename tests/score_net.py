"""A weights directory whose default next-move network has a score and an ownership head.

The trained score network ships later; until then the tests use an UNTRAINED
``golois-score-b6c64``: its outputs are random but have the shapes and ranges of a trained one's.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from analysis.nets import checkpoint
from analysis.nets.presets import build, get_preset

PRESET = "golois-score-b6c64"
NAME = "golois-score"


def write_score_weights(directory: Path, ownership_gain: float = 1.0) -> Path:
    """Write ``zoo.json`` and an untrained ``golois-score-b6c64`` (seeded, the default next-move
    network, named ``golois-score``) into ``directory``; return ``directory``.

    An untrained ownership head answers close to 0 everywhere; ``ownership_gain`` multiplies its
    last layer so that the map reaches the strong values (and dead stones) a trained one shows.
    """
    torch.manual_seed(0)
    model = build(get_preset(PRESET))
    with torch.no_grad():
        model.ownership.conv2.weight.mul_(ownership_gain)
    checkpoint.save(directory / "score.pt", model, PRESET)
    entry = {"name": NAME, "file": "score.pt", "role": "next",
             "title": "an untrained score and ownership net",
             "paper": "test", "paper_figure": "none", "validation": {}}
    (directory / "zoo.json").write_text(json.dumps({"default": {"next": NAME}, "networks": [entry]}))
    return directory
