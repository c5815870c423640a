"""What one client address may spend on websockets, counted in this server process: how many it
holds open at once (``GOWEB_WS_PER_ADDRESS``), and how many messages its sockets send together, a
token bucket of ``GOWEB_WS_MESSAGE_BURST`` messages refilled at ``GOWEB_WS_MESSAGE_RATE`` a second,
from which the server's work on them is taken too: a second of a thread's time costs as many
tokens as a second refills (:func:`spend_work`), so that an address keeps the board threads busy
for about a second a second at most, however costly each of its messages (a large game's tree).

Opening a socket costs a message too, and the work of opening it (the game's state and saved
analysis sent) comes out of the same bucket, so closing and opening sockets in a loop buys no more
than sending messages.  Past its budget, its messages are answered with an error and not read, and
a socket it opens is told so and closed with 1013 (try again later).

An address's count is forgotten once its last socket has closed and its bucket has refilled (never
before, so that a reconnection starts from what the address had left); those forgotten are swept
when the addresses kept have doubled since the last sweep, so what is kept grows with the sockets
open and the addresses recently spent, and the sweeps cost a constant time per socket opened.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from django.conf import settings

SOCKETS_CLOSE_CODE = 4429  # the page does not reconnect on it (frontend/static/frontend/js/socket.js)
TRY_LATER_CLOSE_CODE = 1013  # the page reconnects 1.5 s later
SWEEP_AT_LEAST = 64  # addresses kept before the first sweep


@dataclass
class _Address:
    sockets: int
    tokens: float
    at: float  # when ``tokens`` was counted (time.monotonic)


_lock = threading.Lock()
_addresses: dict[str, _Address] = {}
_sweep_at = SWEEP_AT_LEAST  # sweep once this many addresses are kept


def too_many_sockets() -> str:
    """Return the error message of a socket refused for its address's open sockets."""
    return (f"too many boards open from your address (at most {settings.GOWEB_WS_PER_ADDRESS}): "
            "close one and reload this page")


def too_many_openings(wait: float) -> str:
    """Return the error message of a socket refused because its address's bucket is empty, ``wait``
    seconds before it holds a message again."""
    return (f"too many messages from your address (at most {settings.GOWEB_WS_MESSAGE_RATE:g} a second, "
            f"opening a board counting as one): this board will reconnect; wait {max(wait, 0.1):.1f} s")


def too_many_messages(wait: float) -> str:
    """Return the error message of a message not read, ``wait`` seconds before the next would be."""
    return (f"too many messages from your address (at most {settings.GOWEB_WS_MESSAGE_RATE:g} a second): "
            f"this one was not read; send it again in {max(wait, 0.1):.1f} s")


def open_socket(address: str) -> bool:
    """Count one more socket open from ``address``; return False (counting nothing) when it holds
    ``GOWEB_WS_PER_ADDRESS`` already (0: no limit)."""
    limit = settings.GOWEB_WS_PER_ADDRESS
    with _lock:
        held = _addresses.get(address)
        if held is None:
            _sweep()
            held = _addresses[address] = _Address(0, float(settings.GOWEB_WS_MESSAGE_BURST), time.monotonic())
        if 0 < limit <= held.sockets:
            return False
        held.sockets += 1
        return True


def close_socket(address: str) -> None:
    """Count one socket of ``address`` closed (one that :func:`open_socket` counted); its count is
    forgotten now if it was the last and the bucket is full, else at a later sweep."""
    with _lock:
        held = _addresses.get(address)
        if held is None:
            return
        held.sockets -= 1
        if _forgettable(held):
            del _addresses[address]


def _forgettable(held: _Address) -> bool:
    """Whether ``held`` has no socket open and a full bucket (forgetting it changes nothing)."""
    rate, burst = settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST
    if held.sockets > 0:
        return False
    if rate > 0:
        _refill(held, rate, burst)
    return rate <= 0 or held.tokens >= burst


def _sweep() -> None:
    """Forget the addresses with no socket and a full bucket once ``_sweep_at`` are kept, and sweep
    next when twice as many as are left are kept (so each sweep's time is paid by the openings
    that filled it).  Called with ``_lock`` held."""
    global _sweep_at
    if len(_addresses) < _sweep_at:
        return
    for address in [address for address, held in _addresses.items() if _forgettable(held)]:
        del _addresses[address]
    _sweep_at = max(SWEEP_AT_LEAST, 2 * len(_addresses))


def spend_message(address: str) -> float:
    """Take one message from ``address``'s bucket: return 0.0 if it may be read, else the seconds
    until the bucket holds one again (nothing is taken).  ``GOWEB_WS_MESSAGE_RATE`` 0: no limit."""
    rate, burst = settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST
    if rate <= 0:
        return 0.0
    with _lock:
        held = _addresses.get(address)
        if held is None:  # no socket of the address is counted open: none to charge
            return 0.0
        _refill(held, rate, burst)
        if held.tokens >= 1.0:
            held.tokens -= 1.0
            return 0.0
        return (1.0 - held.tokens) / rate



def spend_work(address: str, seconds: float) -> None:
    """Take ``seconds`` of the server's work on ``address``'s messages from its bucket, as many
    tokens as refill in that time: the bucket may go below zero, and its next messages wait until
    it refills.  ``GOWEB_WS_MESSAGE_RATE`` 0: no limit."""
    rate, burst = settings.GOWEB_WS_MESSAGE_RATE, settings.GOWEB_WS_MESSAGE_BURST
    if rate <= 0 or seconds <= 0:
        return
    with _lock:
        held = _addresses.get(address)
        if held is None:
            return
        _refill(held, rate, burst)
        held.tokens -= seconds * rate


def _refill(held: _Address, rate: float, burst: float) -> None:
    """Add to ``held``'s tokens what ``rate`` refilled since they were counted, up to ``burst``."""
    now = time.monotonic()
    held.tokens = min(float(burst), held.tokens + (now - held.at) * rate)
    held.at = now
