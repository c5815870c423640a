"""The client address every rate limit counts: the X-Forwarded-For entry the trusted proxy added,
never one the client wrote itself."""

from __future__ import annotations

import pytest

from frontend.services import client
from frontend.services.requester import from_scope

SPOOFED = "203.0.113.7, 198.51.100.8"  # the client's own entry, then the one its proxy appended


@pytest.mark.parametrize(
    ("trusted", "forwarded_for", "expected"),
    [
        (0, SPOOFED, "10.0.0.2"),  # no proxy trusted: the header is the client's own
        (1, SPOOFED, "198.51.100.8"),  # the entry the proxy added, not the client's
        (1, "198.51.100.8", "198.51.100.8"),
        (1, None, "10.0.0.2"),  # not through the proxy (the container's health check)
        (1, "203.0.113.7, not-an-address", "10.0.0.2"),
        (1, "203.0.113.7,2001:DB8::1", "2001:db8::1"),
        (2, "203.0.113.7, 192.0.2.1, 198.51.100.8", "192.0.2.1"),
        (2, "198.51.100.8", "10.0.0.2"),  # fewer entries than proxies: not through both
    ],
)
def test_the_client_is_the_entry_the_outermost_trusted_proxy_added(
    settings, trusted: int, forwarded_for: str | None, expected: str
) -> None:
    settings.GOWEB_TRUSTED_PROXIES = trusted
    assert client.address("10.0.0.2", forwarded_for) == expected


def test_an_unknown_peer_without_a_trusted_entry_is_unknown(settings) -> None:
    settings.GOWEB_TRUSTED_PROXIES = 1
    assert client.address(None, None) == "unknown"


def test_a_websocket_requester_without_a_session_counts_against_the_proxys_entry(settings) -> None:
    settings.GOWEB_TRUSTED_PROXIES = 1
    scope = {
        "client": ["172.18.0.1", 40000],
        "headers": [(b"x-forwarded-for", b"203.0.113.7"), (b"x-forwarded-for", b"198.51.100.8")],
    }
    assert from_scope(scope).key == "client:198.51.100.8"
