"""Validation of the board websocket's incoming messages (the protocol is in ``docs/protocol.md``)."""

from __future__ import annotations

from typing import Any

# message type -> {field: (python type, required)}
MESSAGES: dict[str, dict[str, tuple[type, bool]]] = {
    "ping": {},
    "state": {},
    "play": {"move": (str, True)},
    "pass": {},
    "undo": {},
    "resign": {},
    "pause": {},
    "resume": {},
    "toggle_dead": {"point": (str, True)},
    "accept_score": {},
    "analyze": {
        "move_number": (int, True),
        "ladders": (bool, False),
        "backpred": (bool, False),
        "network": (str, False),
        "backpred_network": (str, False),
        "ownership": (bool, False),
        "depth": (str, False),
        "node": (str, False),
    },
    "estimate": {"move_number": (int, False)},
    "analyze_game": {"depth": (str, False)},
    "compare": {"a": (str, True), "b": (str, True)},
    "cancel_analysis": {},
    "features": {"move_number": (int, True), "set": (str, True), "plane": (str, True), "node": (str, False)},
    "tree": {},
    "branch": {"node": (str, True), "moves": (list, True)},
    "delete_branch": {"node": (str, True)},
    "promote_branch": {"node": (str, True)},
    "comment": {"node": (str, True), "comment": (str, True)},
}

# what is answered by this process alone: it neither changes the game nor queues work, so it needs
# no Redis (frontend.services.outage)
LOCAL = frozenset({"ping", "features"})

# what a read-only viewer (a shared review's link) may send: nothing that changes the game (the
# variations it makes are its own, frontend.services.variations)
READ_ONLY = frozenset({"ping", "state", "analyze", "features", "tree", "branch", "delete_branch"})

_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "a list"}


class ProtocolError(ValueError):
    """A message that does not follow the protocol."""


def parse(content: Any) -> tuple[str, dict[str, Any]]:
    """Return (type, fields) of a decoded message; raise ProtocolError saying what is wrong."""
    if not isinstance(content, dict):
        raise ProtocolError("message must be a JSON object")
    if "type" not in content:
        raise ProtocolError("message has no 'type' field")
    kind = content["type"]
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise ProtocolError(f"unknown message type {kind!r}")
    schema = MESSAGES[kind]
    fields = {k: v for k, v in content.items() if k != "type"}
    unknown = sorted(set(fields) - set(schema))
    if unknown:
        raise ProtocolError(f"{kind}: unknown field(s) {', '.join(unknown)}")
    for name, (expected, required) in schema.items():
        if name not in fields:
            if required:
                raise ProtocolError(f"{kind}: missing field {name!r}")
            continue
        value = fields[name]
        # bool is a subclass of int: refuse true/false where a number is expected
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ProtocolError(f"{kind}: field {name!r} must be {_TYPE_NAMES[expected]}")
    return kind, fields
