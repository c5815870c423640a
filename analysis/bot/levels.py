"""The bot's strength levels, from beginner to full strength.

=============  ==============================================================
level          how it chooses
=============  ==============================================================
rules          no network: captures, saves, otherwise a random sensible move
policy-t1      the raw policy network, sampled with temperature 1 (varied, weakest net level)
policy         the policy network's top move (no search)
mcts-50        tree search (PUCT, policy and value net) to 50 visits, then the most visited move
mcts-200       the same to 200 visits
mcts-800       the same to 800 visits
mcts-1600      the same to 1600 visits
mcts-2s        tree search for at most 2 seconds of wall time per move, as many visits as fit
darkforest-2s  darkforest's net (next 3 moves, Tian & Zhu 2015) searching 2 s per move with
               darkforest's tree policy: only the top moves, up to 80% of the prior mass
=============  ==============================================================

A level plays with the default network of its role on the device unless it names one
(``network``: a name of ``weights/zoo.json``); :meth:`Level.pick` asks
:func:`analysis.nets.registry.pick`, the one place that decides (a search level's role is
``search``, a policy level's ``next``).  A level whose network is not shipped cannot be chosen.

A search level's visits count the whole tree under the move it plays, so the
subtree kept from the previous moves counts too (Leela Zero's ``--visits``); a
GTP clock (``time_settings``/``time_left``) can shorten any search level's move.
With one torch thread the 6-block net that was the default until 2026-11-25 made 550 to 600
visits a second on 19x19 on two CPU cores shared with a training run, so ``mcts-2s`` made
about 1,100 visits per move there (``python -m analysis.bench bot``, BENCHMARKS.md); today's
12-block default makes 0.68 times its visits in the same time (MODEL_CARD).
Measured results against GNU Go are in BENCHMARKS.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from analysis.nets.registry import Choice, pick

if TYPE_CHECKING:
    import torch

    from analysis.nets.zoo import Zoo


@dataclass(frozen=True)
class Level:
    """One named strength level."""

    name: str
    kind: str  # "rules", "policy" or "mcts"
    description: str
    temperature: float = 0.0  # 0: the top (or most visited) move
    visits: int = 0  # mcts levels: the tree's visits to reach (0: no limit)
    seconds: float = 0.0  # mcts levels: wall time per move (0: no limit)
    network: str = ""  # a shipped network's name; "" plays with the default network
    tree_policy: str = "puct"  # mcts levels: "puct" or darkforest's top-k ("darkforest")

    def __post_init__(self) -> None:
        """Raises ValueError for a search level without a limit in visits or seconds."""
        if self.kind == "mcts" and self.visits <= 0 and self.seconds <= 0:
            raise ValueError(f"search level {self.name} needs visits or seconds")

    @property
    def role(self) -> str | None:
        """The role its network is picked for: ``search`` for a search level, ``next`` for a
        policy level, None for the level without a network."""
        return {"mcts": "search", "policy": "next"}.get(self.kind)

    def pick(
        self,
        board_size: int | None = None,
        device: str | torch.device | None = None,
        zoo: Zoo | None = None,
        name: str | None = None,
    ) -> Choice | None:
        """Return the network this level plays with on ``board_size`` boards on ``device``
        (:func:`analysis.nets.registry.pick`, among ``zoo``'s networks): ``name``, else the level's
        own, else its role's default; None for the level without a network.

        Raises UnknownNetwork as the registry does.
        """
        if self.role is None:
            return None
        return pick(name or self.network or None, self.role, board_size, device, zoo)


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("rules", "rules", "no network: captures, saves, otherwise a random sensible move"),
        Level("policy-t1", "policy", "the raw policy sampled with temperature 1", temperature=1.0),
        Level("policy", "policy", "the policy network's top move, no search"),
        *(
            Level(f"mcts-{n}", "mcts", f"tree search with the network, {n} visits per move", visits=n)
            for n in (50, 200, 800, 1600)
        ),
        Level("mcts-2s", "mcts", "tree search with the network, 2 seconds per move", seconds=2.0),
        Level("darkforest-2s", "mcts", "darkforest's network and tree policy, 2 seconds per move",
              seconds=2.0, network="darkforest", tree_policy="darkforest"),
    )
}


def get_level(name: str) -> Level:
    """Return the level called ``name``; raises KeyError listing the levels."""
    try:
        return LEVELS[name]
    except KeyError:
        raise KeyError(f"unknown level {name!r}; known: {', '.join(LEVELS)}") from None
