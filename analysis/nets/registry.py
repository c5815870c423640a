"""Which network a use gets: by name, role, board size and device, decided here only.

Every part of the engine that runs a shipped network asks :func:`pick`: the web's tasks (its
workers), the GTP engine, the bot, the review and the benchmarks.  A role is what the network is
for:

============  ==========================================================================
role          the network it needs
============  ==========================================================================
``next``      a next-move network (the policy levels, the candidates, the comparison)
``search``    a next-move network with a value head (the tree search levels, the analysis)
``review``    a next-move network with a value head (the whole-game review)
``previous``  a back-prediction network (the heatmap of the move that led here)
============  ==========================================================================

The rules, in order:

1. A name asks for that shipped network.  It must have the role's kind (next-move or back
   prediction) and read the board size: otherwise :class:`~analysis.nets.zoo.UnknownNetwork`,
   whose message lists the networks that would do.
2. A next-move network without a value head asked for the ``search`` or the ``review`` is
   replaced by that role's default on the device (the web and GTP alike): its policy still serves
   the ``next`` role.  The choice's ``asked`` keeps the name, its ``reason`` says why.
3. No name (None or empty) asks for the role's default on the device kind (``cpu``, ``cuda``) in
   ``weights/zoo.json``; a role without a default of its own takes the one of the role it falls
   back to (``review`` -> ``search`` -> ``next``); a kind the default does not name takes its
   ``cpu`` network.
4. A default that is not shipped, does not read the board or lacks the value head the role needs
   gives way to the first shipped network in the manifest's order that fits; when none fits,
   UnknownNetwork.

Only reading the manifest is needed to pick: this module imports no torch unless a default is
asked for and the device is left for it to find (None: CUDA when this process's torch sees a GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.nets.zoo import FALLBACK_KIND, PICK_ROLES, ROLE_NAMES, UnknownNetwork, Zoo, ZooEntry, shipped

if TYPE_CHECKING:
    import torch

FALLS_BACK_TO = {"review": "search", "search": "next"}
NEEDS_VALUE_HEAD = frozenset({"search", "review"})


@dataclass(frozen=True)
class Choice:
    """The network picked for a use: its ``entry`` (name, file, heads), the ``role`` and device
    ``kind`` it was picked for (None: asked by name with no device, the same on every device),
    why (``reason``), and the name ``asked`` when it is another one."""

    entry: ZooEntry
    role: str
    kind: str | None
    reason: str
    asked: str | None = None

    @property
    def name(self) -> str:
        """The network's name in the manifest."""
        return self.entry.name

    @property
    def path(self) -> Path:
        """The network's checkpoint file."""
        return self.entry.path

    def to_json(self) -> dict:
        """Return the choice as JSON for ``GET /api/networks``: name, file, role, device kind,
        reason, and the name asked (null when the network is the one asked or a default)."""
        return {"name": self.name, "file": self.path.name, "role": self.role, "device": self.kind,
                "reason": self.reason, "asked": self.asked}


def device_kind(device: str | torch.device | None = None) -> str:
    """Return the kind (``cpu``, ``cuda``...) of ``device``: a torch device, a name such as
    ``cuda:1``, or None for the one this process's networks run on (which imports torch)."""
    if device is None:
        from analysis.nets.precision import default_device  # torch loads here, only when asked

        return default_device().type
    return device.split(":", 1)[0] if isinstance(device, str) else device.type


def picking_kind(device: str | torch.device | None = None, zoo: Zoo | None = None) -> str:
    """Return the device kind whose networks ``zoo`` (default: ``weights/``) gives ``device``: its
    :func:`device_kind`, except that for None (this process's own device), when no default names
    a kind other than ``cpu``, it is ``cpu``: every kind then picks what ``cpu`` picks, and the
    answer needs no torch (the web process names its levels' networks without loading one)."""
    defaults = (zoo or shipped()).defaults
    if device is None and all(by_kind.keys() <= {FALLBACK_KIND} for by_kind in defaults.values()):
        return FALLBACK_KIND
    return device_kind(device)


def pick(
    name: str | None,
    role: str = "next",
    board_size: int | None = None,
    device: str | torch.device | None = None,
    zoo: Zoo | None = None,
) -> Choice:
    """Return the network for ``role`` on boards of ``board_size`` (None: any) on ``device``
    (see :func:`device_kind`) among the shipped networks of ``zoo`` (default: ``weights/``):
    the one called ``name``, or the role's default when ``name`` is empty (the module's rules).

    Raises ValueError for an unknown role, UnknownNetwork for a name that is not shipped, not of
    the role's kind or not for that board size (the message lists those that are), and when no
    network fits the role and the board.
    """
    if role not in PICK_ROLES:
        raise ValueError(f"unknown role {role!r}; roles: {', '.join(PICK_ROLES)}")
    zoo = zoo or shipped()
    if name:
        entry = zoo.entry(name, PICK_ROLES[role], board_size)
        if entry.value_head or role not in NEEDS_VALUE_HEAD:
            kind = device_kind(device) if device is not None else None
            return Choice(entry, role, kind, f"{name}, asked by name")
    default = _default(zoo, role, board_size, device_kind(device))
    if not name:
        return default
    why = f"{name} has no value head for the {role}; {default.reason}"
    return Choice(default.entry, role, default.kind, why, asked=name)


def default_weights(role: str = "next", device: str | torch.device | None = None) -> Path:
    """Return the checkpoint of ``role``'s default network on ``device`` in ``weights/`` (what a
    command without a checkpoint of its own loads).  Raises as :func:`pick`."""
    return pick(None, role, None, device).path


def _default(zoo: Zoo, role: str, size: int | None, kind: str) -> Choice:
    """Return the default of ``role`` on device ``kind`` for ``size`` boards (rules 3 and 4).

    Raises UnknownNetwork when no shipped network fits.
    """
    source = role
    while source not in zoo.defaults and source in FALLS_BACK_TO:
        source = FALLS_BACK_TO[source]
    by_kind = zoo.defaults.get(source, {})
    named = by_kind.get(kind) or by_kind.get(FALLBACK_KIND)
    own = f"the {source} default" + (f" (the {role} has none of its own)" if source != role else "")
    where = f"{own} on {kind}"
    fits = [e for e in zoo.entries if _fits(e, role, size)]
    if named is not None:
        entry = next((e for e in fits if e.name == named), None)
        if entry is not None:
            return Choice(entry, role, kind, where)
        where = f"{where}, {named}, {_misfit(zoo, named, role, size)}"
    if not fits:
        board = f" for {size}x{size}" if size else ""
        head = " with a value head" if role in NEEDS_VALUE_HEAD else ""
        raise UnknownNetwork(f"no {ROLE_NAMES[PICK_ROLES[role]]} network{head}{board} is shipped "
                             f"in {zoo.directory}")
    if named is None:
        return Choice(fits[0], role, kind, f"no {role} default in the manifest: the first that fits")
    return Choice(fits[0], role, kind, f"{where}: the first shipped network that fits")


def _fits(entry: ZooEntry, role: str, size: int | None) -> bool:
    """Whether ``entry`` can serve ``role`` on ``size`` boards."""
    return (entry.role == PICK_ROLES[role] and entry.reads(size)
            and (entry.value_head or role not in NEEDS_VALUE_HEAD))


def _misfit(zoo: Zoo, name: str, role: str, size: int | None) -> str:
    """Return why the network ``name`` cannot serve ``role`` on ``size`` boards."""
    entry = next((e for e in zoo.entries if e.name == name), None)
    if entry is None:
        return "is not shipped"
    if entry.role != PICK_ROLES[role]:
        return f"is not a {ROLE_NAMES[PICK_ROLES[role]]} network"
    if not entry.reads(size):
        return f"does not read {size}x{size} boards"
    return "has no value head"
