"""Two (or more) networks side by side on one game: their top moves at every position, the moves
they agree on, how well each predicts the moves played, and the game's surprising moves.

No Go GUI has this view (``../shared/PRODUCT.md``).  Every position of the game is evaluated once
per network over the board's 8 symmetries, in batches, through the one inference path
(:class:`~analysis.nets.inference.Network`): the priors and ranks are those the review shows
(:mod:`analysis.review.policy`).
A move is *surprising* for a network when the move played is outside its top 10.  Against the
search (a whole-game analysis, when there is one), two surprises: the search *found* a move the
network's raw policy disliked (its choice ranked past :data:`DISLIKED_RANK` by the network), and
the search *rejected* the network's favourite (the network's first choice, not the search's, had
a search win rate at least :data:`REJECTED_DROP` below the search's choice, or was not searched).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analysis.go.coords import from_gtp, to_gtp
from analysis.review.analyze import game_positions
from analysis.review.policy import SYMMETRIES, move_rank, shown_policy
from analysis.sgf import GameRecord

if TYPE_CHECKING:
    from analysis.nets.inference import Network

TOP = 10
RANKS = (1, 5, 10)  # the per-game table: how often the move played is in each network's top k
DISLIKED_RANK = 5  # a search's choice the network ranks past this was found against its policy
REJECTED_DROP = 0.05  # win rate the search gives the network's favourite below its own choice


def _top(policy: np.ndarray, size: int, top: int) -> list[dict]:
    """Return the ``top`` moves of ``policy`` (best first) as ``{"move", "prior"}``."""
    order = [int(p) for p in np.argsort(-policy, kind="stable")[:top] if policy[p] > 0]
    return [{"move": to_gtp(p, size), "prior": round(float(policy[p]), 4)} for p in order]


@dataclass
class _Tally:
    """One network's counts over a game."""

    positions: int = 0
    in_top: dict[int, int] = field(default_factory=lambda: dict.fromkeys(RANKS, 0))
    log_prior: float = 0.0
    searched: int = 0
    agreed: int = 0
    outside_top10: list[int] = field(default_factory=list)
    search_found: list[int] = field(default_factory=list)
    search_rejected: list[int] = field(default_factory=list)

    def add(self, k: int, policy: np.ndarray, played: int | None, first: str | None,
            search: SearchView | None, size: int) -> None:
        """Count position ``k``: the move ``played`` (a point, or None at the end), its prior in
        ``policy`` (the network's, unrounded) and its rank as shown, the network's ``first``
        choice (GTP) against the ``search``'s view of the position (None: not searched)."""
        shown = np.asarray(shown_policy(policy))
        if played is not None:
            rank = move_rank(shown, played)
            self.positions += 1
            self.log_prior += float(np.log(max(float(policy[played]), 1e-9)))
            for r in RANKS:
                self.in_top[r] += rank <= r
            if rank > TOP:
                self.outside_top10.append(k)
        if search is None or first is None or search.best is None:
            return
        self.searched += 1
        self.agreed += first == search.best
        if search.best != "pass" and move_rank(shown, from_gtp(search.best, size)) > DISLIKED_RANK:
            self.search_found.append(k)
        if first != search.best and search.rejects(first):
            self.search_rejected.append(k)

    def summary(self) -> dict:
        """Return the rates (None where nothing was counted)."""
        n = self.positions
        out: dict = {"positions": n, "searched": self.searched}
        out |= {f"top{r}": round(self.in_top[r] / n, 4) if n else None for r in RANKS}
        out["mean_log_prior"] = round(self.log_prior / n, 4) if n else None
        out["agree_with_search"] = round(self.agreed / self.searched, 4) if self.searched else None
        return out


@dataclass(frozen=True)
class SearchView:
    """The search's view of one position (a whole-game analysis entry): its ``best`` move (GTP, or
    None) and the win rates it gave the moves it searched (GTP -> win rate of the player to move)."""

    best: str | None
    winrates: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def of_entry(cls, entry: Mapping) -> SearchView:
        """Return the view of a whole-game analysis entry (its ``best`` and ``candidates``)."""
        searched = [c for c in entry.get("candidates") or () if c.get("winrate") is not None]
        return cls(entry.get("best"), {c["move"]: c["winrate"] for c in searched})

    def rejects(self, move: str) -> bool:
        """Whether the search rejected ``move``: not searched, or at least :data:`REJECTED_DROP`
        below its best move's win rate."""
        if move not in self.winrates:
            return True
        best = self.winrates.get(self.best) if self.best is not None else None
        return best is not None and self.winrates[move] <= best - REJECTED_DROP


def _net_info(policy: np.ndarray, played: int | None, size: int) -> dict:
    """Return one network's view of a position: its top moves and the rank and prior of the move
    played, from its policy as the site shows it (:func:`analysis.review.policy.shown_policy`)."""
    policy = np.asarray(shown_policy(policy))
    info = {"top": _top(policy, size, TOP), "played_rank": None, "played_prior": None}
    if played is not None:
        info["played_rank"] = move_rank(policy, played)
        info["played_prior"] = round(float(policy[played]), 5)
    return info


def compare_networks(
    record: GameRecord,
    networks: Mapping[str, Network],
    rules: str | None = None,
    searched: Sequence[SearchView | None] = (),
) -> dict:
    """Return the comparison of ``networks`` (name -> next-move network) on the main line of ``record``.

    - ``positions``: one entry per position (move number k = 0..moves): ``move_number``,
      ``played`` (the move played next, GTP, or None at the end), ``search`` (the search's choice
      where ``searched`` has the position), ``nets`` (per network: ``top``, its top 10 moves with their
      probabilities, ``played_rank`` and ``played_prior``), and ``shared`` (the moves in every
      network's top 10);
    - ``summary``: per network, ``positions`` scored, ``top1``/``top5``/``top10`` (the fraction of
      moves played that were in its top k), ``mean_log_prior`` of the moves played, and
      ``agree_with_search`` (how often its first choice was the search's, over the ``searched``
      positions);
    - ``surprises``: per network, ``outside_top10`` (the move numbers whose move played was outside
      its top 10), ``search_found`` (where the search chose a move the network ranked past
      :data:`DISLIKED_RANK`) and ``search_rejected`` (where the search rejected the network's
      first choice: :meth:`SearchView.rejects`).

    Raises ValueError for an empty ``networks``, and SgfError for a record that cannot be replayed.
    """
    if not networks:
        raise ValueError("no networks to compare")
    size = record.size
    replayed = list(game_positions(record, rules=rules))
    positions = [p for p, _ in replayed]
    policies = {name: net.predict(positions, SYMMETRIES).policy for name, net in networks.items()}  # batched
    tallies = {name: _Tally() for name in networks}
    entries = []
    for k, (_, next_move) in enumerate(replayed):
        played = None if next_move is None else next_move[1]
        search = searched[k] if k < len(searched) else None
        nets = {name: _net_info(policies[name][k], played, size) for name in networks}
        for name, info in nets.items():
            first = info["top"][0]["move"] if info["top"] else None
            tallies[name].add(k, policies[name][k], played, first, search, size)
        shared = set.intersection(*({m["move"] for m in info["top"]} for info in nets.values()))
        entries.append({"move_number": k, "played": None if played is None else to_gtp(played, size),
                        "search": None if search is None else search.best, "nets": nets,
                        "shared": sorted(shared)})
    return {
        "size": size,
        "networks": list(networks),
        "positions": entries,
        "summary": {name: t.summary() for name, t in tallies.items()},
        "surprises": {name: {"outside_top10": t.outside_top10, "search_found": t.search_found,
                             "search_rejected": t.search_rejected} for name, t in tallies.items()},
    }
