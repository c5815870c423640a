"""The websocket Origin check, read from the settings at each connection.

A browser sends the page's origin with every websocket handshake; only the site's own pages may
open its sockets.  In production (``GOWEB_WEBSOCKET_EXACT_ORIGIN``) the origin must be exactly the
site's: the scheme the TLS proxy reports (``SECURE_PROXY_SSL_HEADER``), and the Host header (an
allowed host, with its port), as Django's CSRF check compares a form's origin; or one of
``CSRF_TRUSTED_ORIGINS``.  Elsewhere (development: plain HTTP on any port) the origin's host must
be one of ``ALLOWED_HOSTS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEBUG_HOSTS = [".localhost", "127.0.0.1", "[::1]"]  # Django's own, when DEBUG has no ALLOWED_HOSTS


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    values = [value.decode("latin-1") for key, value in scope.get("headers", []) if key == name]
    return values[0] if len(values) == 1 else None  # missing, or sent twice: none to believe


def _allowed_hosts() -> list[str]:
    return settings.ALLOWED_HOSTS or (DEBUG_HOSTS if settings.DEBUG else [])


def _secure(scope: Mapping[str, Any]) -> bool:
    """Return whether the handshake reached the site over TLS, as ``HttpRequest.is_secure`` decides."""
    if settings.SECURE_PROXY_SSL_HEADER:
        meta_name, secure_value = settings.SECURE_PROXY_SSL_HEADER
        header = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode()
        value = _header(scope, header)
        if value is not None:
            return value.split(",", 1)[0].strip() == secure_value
    return scope.get("scheme") in ("https", "wss")


def site_origin(scope: Mapping[str, Any]) -> str | None:
    """Return the site's own origin for a handshake (``https://host[:port]``), or None when its Host
    header is missing or not an allowed host."""
    host = (_header(scope, b"host") or "").lower()
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, _allowed_hosts()):
        return None
    return f"{'https' if _secure(scope) else 'http'}://{host}"


def allowed(scope: Mapping[str, Any]) -> bool:
    """Return whether the handshake's Origin may open a socket (module docstring)."""
    origin = (_header(scope, b"origin") or "").lower()
    if settings.GOWEB_WEBSOCKET_EXACT_ORIGIN:
        trusted = {entry.lower() for entry in settings.CSRF_TRUSTED_ORIGINS}
        return bool(origin) and (origin == site_origin(scope) or origin in trusted)
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and validate_host(
        parts.hostname, _allowed_hosts()
    )


class OriginValidator:
    """ASGI middleware: passes a websocket on to ``application`` when :func:`allowed`, else refuses
    the handshake (403)."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict, receive: Any, send: Any) -> Any:
        """Run the application for an allowed origin, else deny the connection."""
        if allowed(scope):
            return await self.application(scope, receive, send)
        return await WebsocketDenier()(scope, receive, send)
