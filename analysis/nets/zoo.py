"""The shipped networks by name: ``weights/zoo.json`` lists each checkpoint with its paper, role,
heads and model-card figures (``weights/MODEL_CARD.md`` describes them in full), and the default
network of each role.

A network's ``role`` is what its policy head predicts: ``next`` (the next move; the search,
the review's candidates and the bot use these) or ``previous`` (back prediction: which move led
to the position); ``value_head`` says whether it also judges who wins (the search needs that).
A network that ends in dense layers over the points (Tang & Kaneko's) reads one
board size only: its ``board_sizes`` say which, and it is not offered for other boards (the others
read every size).  Only networks whose file is present count as shipped.

The manifest's ``default`` names, for each role a network is picked for (:data:`PICK_ROLES`), one
network for every device (``"next": "golois-score"``) or one per device kind
(``"next": {"cpu": "golois-score", "cuda": "golois-b10c128"}``; the ``cpu`` one serves every kind
not named).  Which network a use gets is decided in :mod:`analysis.nets.registry` only.  This
module reads JSON only: it does not load a network (see :mod:`analysis.nets.inference`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

WEIGHTS_DIR = Path(__file__).resolve().parents[2] / "weights"
ROLES = ("next", "previous")
ROLE_NAMES = {"next": "next-move", "previous": "back-prediction"}  # for messages
# the roles a network is picked for, and the role of the networks that serve each: the search and
# the review are next-move networks with a value head (analysis.nets.registry)
PICK_ROLES = {"next": "next", "search": "next", "review": "next", "previous": "previous"}
FALLBACK_KIND = "cpu"  # the device kind whose default serves the kinds a default does not name
MANIFEST = "zoo.json"


class UnknownNetwork(ValueError):
    """A network name that is not shipped, or not for this board size (the message lists the ones
    that are)."""


@dataclass(frozen=True)
class ZooEntry:
    """One shipped network: its ``name``, checkpoint ``path``, ``role``, description, figures,
    the board sizes it reads (empty: every size) and whether it has a value head."""

    name: str
    path: Path
    role: str
    title: str
    paper: str
    paper_figure: str
    validation: dict = field(default_factory=dict)
    board_sizes: tuple[int, ...] = ()
    value_head: bool = False

    def reads(self, size: int | None) -> bool:
        """Whether the network reads boards of ``size`` (None: any board)."""
        return size is None or not self.board_sizes or size in self.board_sizes

    def to_json(self) -> dict:
        """Return the entry as JSON for ``GET /api/networks`` (the file name, not the path;
        ``board_sizes`` null for every size)."""
        return {"name": self.name, "file": self.path.name, "role": self.role, "value_head": self.value_head,
                "title": self.title, "paper": self.paper, "paper_figure": self.paper_figure,
                "validation": self.validation, "board_sizes": list(self.board_sizes) or None}


@dataclass(frozen=True)
class Zoo:
    """The shipped networks of one weights directory, in the manifest's order, and the manifest's
    defaults: role -> device kind -> name (the kinds named, ``cpu`` always among them)."""

    directory: Path
    entries: tuple[ZooEntry, ...]
    defaults: dict[str, dict[str, str]]

    @classmethod
    def load(cls, directory: str | Path = WEIGHTS_DIR) -> Zoo:
        """Return the zoo of ``directory`` (its ``zoo.json``; the networks whose file exists).

        Raises FileNotFoundError without a manifest, ValueError for a malformed one (a missing
        field, an unknown role, a default of an unknown role or without its ``cpu`` network).
        """
        directory = Path(directory)
        data = json.loads((directory / MANIFEST).read_text())
        try:
            entries = tuple(
                ZooEntry(e["name"], directory / e["file"], e["role"], e["title"], e["paper"],
                         e["paper_figure"], e.get("validation", {}), tuple(e.get("board_sizes", ())),
                         bool(e.get("value_head", False)))
                for e in data["networks"]
            )
            defaults = {role: _per_kind(name) for role, name in data["default"].items()}
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{directory / MANIFEST}: malformed manifest ({exc!r})") from exc
        bad = [e.name for e in entries if e.role not in ROLES]
        if bad:
            raise ValueError(f"{directory / MANIFEST}: unknown role for {', '.join(bad)}; roles: {ROLES}")
        bad = [role for role in defaults if role not in PICK_ROLES]
        if bad:
            raise ValueError(f"{directory / MANIFEST}: a default for an unknown role ({', '.join(bad)}); "
                             f"roles: {', '.join(PICK_ROLES)}")
        return cls(directory, tuple(e for e in entries if e.path.exists()), defaults)

    def names(self, role: str | None = None, size: int | None = None) -> list[str]:
        """Return the names of the shipped networks (of ``role``, and reading ``size`` boards, if
        given)."""
        return [e.name for e in self.entries if (role is None or e.role == role) and e.reads(size)]

    def entry(self, name: str, role: str | None = None, size: int | None = None) -> ZooEntry:
        """Return the shipped network called ``name`` (checked to have ``role`` and to read ``size``
        boards, if given).

        Raises UnknownNetwork naming the shipped networks of that role (for that size).
        """
        kind = f"{ROLE_NAMES[role]} " if role else ""
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


def _per_kind(default: str | dict[str, str]) -> dict[str, str]:
    """Return a manifest default as device kind -> name (a bare name serves every kind).

    Raises KeyError for a per-kind default without its ``cpu`` network, TypeError for a value that
    is neither a name nor an object of names.
    """
    if isinstance(default, str):
        return {FALLBACK_KIND: default}
    if not isinstance(default, dict) or not all(isinstance(n, str) for n in default.values()):
        raise TypeError(f"a default is a name or an object of names by device kind, not {default!r}")
    if FALLBACK_KIND not in default:
        raise KeyError(f"a default by device kind needs a {FALLBACK_KIND!r} network: {default!r}")
    return dict(default)


@cache
def shipped(directory: str | Path = WEIGHTS_DIR) -> Zoo:
    """Return the zoo of ``directory``, read once per process."""
    return Zoo.load(directory)
