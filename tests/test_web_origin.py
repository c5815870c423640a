"""The websocket Origin check: in production only the site's own scheme, host and port (as the TLS
proxy forwards it) open a socket; in development any allowed host does."""

from __future__ import annotations

import asyncio

import pytest
from channels.testing import WebsocketCommunicator

from goweb.asgi import application

SITE = "localhost"


def opens(origin: str, host: str = SITE, proto: str = "https") -> bool:
    """Return whether ``/ws/ping/`` accepts a socket with ``origin``, sent as the proxy forwards it."""
    headers = [(b"host", host.encode()), (b"x-forwarded-proto", proto.encode()), (b"origin", origin.encode())]

    async def scenario() -> bool:
        communicator = WebsocketCommunicator(application, "/ws/ping/", headers=headers)
        connected, _ = await communicator.connect()
        await communicator.disconnect()
        return connected

    return asyncio.run(scenario())


@pytest.fixture
def production(settings) -> None:
    settings.ALLOWED_HOSTS = [SITE]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.GOWEB_WEBSOCKET_EXACT_ORIGIN = True


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (f"https://{SITE}", True),
        ("HTTPS://LOCALHOST", True),  # browsers send it lower-case; the match ignores case anyway
        (f"http://{SITE}", False),  # the same host over plain HTTP
        (f"https://{SITE}:8443", False),  # on another port
        (f"http://{SITE}:443", False),
        ("https://evil.example", False),
        ("null", False),
    ],
)
def test_production_sockets_accept_only_the_sites_own_scheme_and_port(
    production: None, origin: str, accepted: bool
) -> None:
    assert opens(origin) is accepted


def test_production_sockets_follow_the_host_and_scheme_the_proxy_forwards(production: None, settings) -> None:
    assert opens(f"https://{SITE}:8443", host=f"{SITE}:8443")  # a site served on its own port
    assert not opens(f"https://{SITE}", proto="http")  # not through the TLS proxy
    assert not opens(f"https://{SITE}", host="evil.example")
    settings.CSRF_TRUSTED_ORIGINS = [f"https://{SITE}:8443"]
    assert opens(f"https://{SITE}:8443")  # an origin trusted as Django's CSRF check trusts it


def test_development_sockets_accept_any_allowed_host(settings) -> None:
    settings.GOWEB_WEBSOCKET_EXACT_ORIGIN = False
    settings.ALLOWED_HOSTS = ["localhost"]
    assert opens("http://localhost:8000", host="localhost:8000", proto="")
    assert not opens("http://evil.example", host="localhost:8000", proto="")
