"""The client's address, as every rate limit and throttle counts it.

Behind ``GOWEB_TRUSTED_PROXIES`` reverse proxies, each proxy appends the address it took the
connection from to ``X-Forwarded-For``: the client is the entry that the outermost trusted proxy
added, counted from the right end.  Entries further left came from the client itself and are never
believed, so a client cannot pick the address its requests count against.  With no trusted proxy,
or a header with fewer entries than there are trusted proxies (the request did not come through
them), the client is the connection's peer.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "unknown"
FORWARDED_FOR = "HTTP_X_FORWARDED_FOR"


def address(peer: str | None, forwarded_for: str | None) -> str:
    """Return the client's address: the ``GOWEB_TRUSTED_PROXIES``-th entry from the right of the
    ``forwarded_for`` header's value, else ``peer`` (``"unknown"`` when neither gives an IP address)."""
    trusted = settings.GOWEB_TRUSTED_PROXIES
    entries = [entry.strip() for entry in (forwarded_for or "").split(",")]
    chosen = entries[-trusted] if trusted > 0 and forwarded_for and len(entries) >= trusted else peer
    return _valid(chosen) or _valid(peer) or UNKNOWN


def _valid(candidate: str | None) -> str | None:
    """Return ``candidate`` as a normalised IP address, or None if it is not one."""
    try:
        return str(ipaddress.ip_address((candidate or "").strip()))
    except ValueError:
        return None


def of_request(request: HttpRequest) -> str:
    """Return the client address of an HTTP request."""
    return address(request.META.get("REMOTE_ADDR"), request.META.get(FORWARDED_FOR))


def of_scope(scope: Mapping[str, Any]) -> str:
    """Return the client address of an ASGI (websocket) scope."""
    peer = scope.get("client")
    headers = scope.get("headers", [])
    values = [value.decode("latin-1") for name, value in headers if name == b"x-forwarded-for"]
    return address(peer[0] if peer else None, ",".join(values) or None)
