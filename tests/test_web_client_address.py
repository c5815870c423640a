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
        (1, "203.0.113.7,2001:DB8::1", "2001:db8::/64"),  # an IPv6 client counts as its /64
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


@pytest.mark.parametrize(
    ("peer", "expected"),
    [
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),  # the same /64: the same budget
        ("2001:DB8:1:2:0:0:0:9", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),  # the next /64 is another client
        ("::ffff:198.51.100.8", "198.51.100.8"),  # IPv4-mapped: the IPv4 client it is
        ("::ffff:c633:6408", "198.51.100.8"),
        ("::1", "::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("198.51.100.8", "198.51.100.8"),
    ],
)
def test_an_ipv6_client_counts_as_its_64_and_an_ipv4_mapped_one_as_its_ipv4_address(
    settings, peer: str, expected: str
) -> None:
    settings.GOWEB_TRUSTED_PROXIES = 0
    assert client.address(peer, None) == expected
    settings.GOWEB_TRUSTED_PROXIES = 1
    assert client.address("10.0.0.2", f"203.0.113.7, {peer}") == expected


def test_one_host_of_a_64_gets_one_budget_however_many_addresses_it_takes(settings) -> None:
    from frontend.services import ratelimit

    settings.GOWEB_TRUSTED_PROXIES = 0
    settings.GOWEB_UPLOAD_RATE_LIMIT, settings.GOWEB_UPLOAD_RATE_WINDOW = 3, 600
    addresses = {client.address(f"2001:db8:0:7::{n:x}", None) for n in range(1, 1000)}
    assert addresses == {"2001:db8:0:7::/64"}
    allowed = [ratelimit.allow("upload", client.address(f"2001:db8:0:7::{n:x}", None)) for n in range(1, 6)]
    assert allowed == [True, True, True, False, False]


def test_requests_and_websockets_from_the_same_64_count_as_one_client(rf, settings) -> None:
    settings.GOWEB_TRUSTED_PROXIES = 0
    request = rf.get("/", REMOTE_ADDR="2001:db8:0:7::1")
    scope = {"client": ["2001:db8:0:7::abcd", 40000], "headers": []}
    assert client.of_request(request) == client.of_scope(scope) == "2001:db8:0:7::/64"
    assert from_scope(scope).key == "client:2001:db8:0:7::/64"
