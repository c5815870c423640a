"""Weights directories for the tests: a ``zoo.json`` of chosen networks, and one whose default
next-move network has a score and an ownership head.

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


def write_zoo(directory: Path, default: str | dict[str, str], networks: list[dict]) -> None:
    """Write ``directory/zoo.json`` listing ``networks`` (name, file, role and heads each; the other
    fields a test does not name are filled in), ``default`` the default next-move network (a name,
    or names by device kind)."""
    filler = {"title": "a test network", "paper": "test", "paper_figure": "none", "validation": {}}
    manifest = {"default": {"next": default}, "networks": [{**filler, **n} for n in networks]}
    (directory / "zoo.json").write_text(json.dumps(manifest))


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
    write_zoo(directory, NAME, [{"name": NAME, "file": "score.pt", "role": "next", "value_head": True,
                                 "title": "an untrained score and ownership net"}])
    return directory
