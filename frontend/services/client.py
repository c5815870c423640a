"""The client's address, as every rate limit and throttle counts it.

Behind ``GOWEB_TRUSTED_PROXIES`` reverse proxies, each proxy appends the address it took the
connection from to ``X-Forwarded-For``: the client is the entry that the outermost trusted proxy
added, counted from the right end.  Entries further left came from the client itself and are never
believed, so a client cannot pick the address its requests count against.  With no trusted proxy,
or a header with fewer entries than there are trusted proxies (the request did not come through
them), the client is the connection's peer.

An IPv6 client is counted as its /64 (``2001:db8:1:2::/64``), the least a host is given, which it may
fill with as many addresses as it likes: each address counting on its own would give one host as
many budgets.  An IPv4-mapped IPv6 address (``::ffff:198.51.100.8``) is the IPv4 client it maps.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest

UNKNOWN = "unknown"
FORWARDED_FOR = "HTTP_X_FORWARDED_FOR"
IPV6_CLIENT_PREFIX = 64  # an IPv6 client is its network of this prefix


def address(peer: str | None, forwarded_for: str | None) -> str:
    """Return the client's address: the ``GOWEB_TRUSTED_PROXIES``-th entry from the right of the
    ``forwarded_for`` header's value, else ``peer`` (``"unknown"`` when neither gives an IP address);
    an IPv6 one as its /64, an IPv4-mapped one as its IPv4 address."""
    trusted = settings.GOWEB_TRUSTED_PROXIES
    entries = [entry.strip() for entry in (forwarded_for or "").split(",")]
    chosen = entries[-trusted] if trusted > 0 and forwarded_for and len(entries) >= trusted else peer
    return _valid(chosen) or _valid(peer) or UNKNOWN


def _valid(candidate: str | None) -> str | None:
    """Return the client that ``candidate`` names: a normalised IPv4 address, or the /64 network
    of an IPv6 one (its IPv4 address if IPv4-mapped); None if it is not an IP address."""
    try:
        ip = ipaddress.ip_address((candidate or "").strip())
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    host_bits = 128 - IPV6_CLIENT_PREFIX  # the scope of a link-local address (fe80::1%eth0) goes too
    return str(ipaddress.IPv6Network((int(ip) >> host_bits << host_bits, IPV6_CLIENT_PREFIX)))


def of_request(request: HttpRequest) -> str:
    """Return the client address of an HTTP request."""
    return address(request.META.get("REMOTE_ADDR"), request.META.get(FORWARDED_FOR))


def of_scope(scope: Mapping[str, Any]) -> str:
    """Return the client address of an ASGI (websocket) scope."""
    peer = scope.get("client")
    headers = scope.get("headers", [])
    values = [value.decode("latin-1") for name, value in headers if name == b"x-forwarded-for"]
    return address(peer[0] if peer else None, ",".join(values) or None)
