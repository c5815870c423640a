"""The bot's strength levels, from beginner to full strength.

=============  ==============================================================
level          how it chooses
=============  ==============================================================
rules          no network: captures, saves, otherwise a random sensible move
policy-t1      the raw policy network, sampled with temperature 1 (varied, weakest net level)
policy         the policy network's top move (no search)
=============  ==============================================================

Measured results against GNU Go are in BENCHMARKS.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One named strength level."""

    name: str
    kind: str  # "rules", "policy" or "mcts"
    description: str
    temperature: float = 0.0  # 0: the top move; policy levels only
    visits: int = 0  # mcts levels only


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("rules", "rules", "no network: captures, saves, otherwise a random sensible move"),
        Level("policy-t1", "policy", "the raw policy sampled with temperature 1", temperature=1.0),
        Level("policy", "policy", "the policy network's top move, no search"),
    )
}


def get_level(name: str) -> Level:
    """Return the level called ``name``; raises KeyError listing the levels."""
    try:
        return LEVELS[name]
    except KeyError:
        raise KeyError(f"unknown level {name!r}; known: {', '.join(LEVELS)}") from None
