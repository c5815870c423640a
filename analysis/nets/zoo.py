"""The shipped networks by name: ``weights/zoo.json`` lists each checkpoint with its paper, role
and model-card figures (``weights/MODEL_CARD.md`` describes them in full).

A network's ``role`` is what its policy head predicts: ``next`` (the next move; the search,
the review's candidates and the bot use these) or ``previous`` (back prediction: which move led
to the position).  A network that ends in dense layers over the points (Tang & Kaneko's) reads one
board size only: its ``board_sizes`` say which, and it is not offered for other boards (the others
read every size).  Only networks whose file is present count as shipped.  This module reads JSON
only: it does not load a network (see :mod:`analysis.nets.inference`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

WEIGHTS_DIR = Path(__file__).resolve().parents[2] / "weights"
ROLES = ("next", "previous")
MANIFEST = "zoo.json"


class UnknownNetwork(ValueError):
    """A network name that is not shipped, or not for this board size (the message lists the ones
    that are)."""


@dataclass(frozen=True)
class ZooEntry:
    """One shipped network: its ``name``, checkpoint ``path``, ``role``, description, figures and
    the board sizes it reads (empty: every size)."""

    name: str
    path: Path
    role: str
    title: str
    paper: str
    paper_figure: str
    validation: dict = field(default_factory=dict)
    board_sizes: tuple[int, ...] = ()

    def reads(self, size: int | None) -> bool:
        """Whether the network reads boards of ``size`` (None: any board)."""
        return size is None or not self.board_sizes or size in self.board_sizes

    def to_json(self) -> dict:
        """Return the entry as JSON for ``GET /api/networks`` (the file name, not the path;
        ``board_sizes`` null for every size)."""
        return {"name": self.name, "file": self.path.name, "role": self.role, "title": self.title,
                "paper": self.paper, "paper_figure": self.paper_figure, "validation": self.validation,
                "board_sizes": list(self.board_sizes) or None}


@dataclass(frozen=True)
class Zoo:
    """The shipped networks of one weights directory, in the manifest's order."""

    entries: tuple[ZooEntry, ...]
    defaults: dict[str, str]

    @classmethod
    def load(cls, directory: str | Path = WEIGHTS_DIR) -> Zoo:
        """Return the zoo of ``directory`` (its ``zoo.json``; the networks whose file exists).

        Raises FileNotFoundError without a manifest, ValueError for a malformed one.
        """
        directory = Path(directory)
        data = json.loads((directory / MANIFEST).read_text())
        try:
            entries = tuple(
                ZooEntry(e["name"], directory / e["file"], e["role"], e["title"], e["paper"],
                         e["paper_figure"], e.get("validation", {}), tuple(e.get("board_sizes", ())))
                for e in data["networks"]
            )
            defaults = dict(data["default"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{directory / MANIFEST}: malformed manifest ({exc})") from exc
        bad = [e.name for e in entries if e.role not in ROLES]
        if bad:
            raise ValueError(f"{directory / MANIFEST}: unknown role for {', '.join(bad)}; roles: {ROLES}")
        return cls(tuple(e for e in entries if e.path.exists()), defaults)

    def names(self, role: str | None = None, size: int | None = None) -> list[str]:
        """Return the names of the shipped networks (of ``role``, and reading ``size`` boards, if
        given)."""
        return [e.name for e in self.entries if (role is None or e.role == role) and e.reads(size)]

    def entry(self, name: str, role: str | None = None, size: int | None = None) -> ZooEntry:
        """Return the shipped network called ``name`` (checked to have ``role`` and to read ``size``
        boards, if given).

        Raises UnknownNetwork naming the shipped networks of that role (for that size).
        """
        kind = {"next": "next-move ", "previous": "back-prediction "}.get(role or "", "")
        for e in self.entries:
            if e.name == name and (role is None or e.role == role):
                if e.reads(size):
                    return e
                sizes = ", ".join(f"{n}x{n}" for n in e.board_sizes)
                known = ", ".join(self.names(role, size)) or "none"
                raise UnknownNetwork(f"network {name!r} reads {sizes} boards only, not {size}x{size}; "
                                     f"{kind}networks for {size}x{size}: {known}")
        known = ", ".join(self.names(role)) or "none"
        raise UnknownNetwork(f"unknown {kind}network {name!r}; known: {known}")

    def default(self, role: str = "next", size: int | None = None) -> ZooEntry | None:
        """Return the default network of ``role`` (the strongest) that reads ``size`` boards, else
        the first such network, or None when none is shipped."""
        name = self.defaults.get(role)
        shipped = self.names(role, size)
        if name in shipped:
            return self.entry(name)
        return self.entry(shipped[0]) if shipped else None


@cache
def shipped(directory: str | Path = WEIGHTS_DIR) -> Zoo:
    """Return the zoo of ``directory``, read once per process."""
    return Zoo.load(directory)
