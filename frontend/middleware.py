"""Middleware of the site: the health check answered before anything else, the Content-Security-Policy,
a browser session kept alive by its visits, JSON errors on the API, and the parsing of game records
charged to the client address."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin

from frontend import views
from frontend.services import client, parsed

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
API_PREFIX = "/api/"
MESSAGES = {
    400: "bad request",
    403: "forbidden",
    404: "no such API endpoint",
    405: "method not allowed",
    413: "the request body is too large",
    500: "internal error; the server logged it",
}


class HealthCheck(MiddlewareMixin):
    """Answers ``/healthz`` before any other middleware: a probe from inside the container (plain
    HTTP, any Host header) is neither redirected to HTTPS nor refused by ``ALLOWED_HOSTS``."""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        """Return the health check's answer for ``/healthz``, else None (carry on)."""
        return views.healthz(request) if request.path == HEALTH_PATH else None


# Scripts and styles come from the site's own static files only (no inline script, handler attribute
# or style attribute), nothing embeds the site, and the page may open the site's websockets.
CONTENT_SECURITY_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def content_security_policy(request: HttpRequest) -> str:
    """Return the Content-Security-Policy header's value for ``request``: ``connect-src`` also names
    the site's websocket origin (``wss://HOST`` over HTTPS, ``ws://HOST`` otherwise), which not every
    browser counts as ``'self'``; only ``'self'`` when the Host is not an allowed one."""
    directives = dict(CONTENT_SECURITY_POLICY)
    try:
        scheme = "wss" if request.is_secure() else "ws"
        directives["connect-src"] += f" {scheme}://{request.get_host()}"
    except DisallowedHost:
        pass
    return "; ".join(f"{name} {sources}" for name, sources in directives.items())


class ContentSecurityPolicy(MiddlewareMixin):
    """Sends :func:`content_security_policy` with every response, but Django's own debugging pages
    (errors while DEBUG is on), whose inline styles and scripts it would refuse."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """Return ``response`` with its Content-Security-Policy header."""
        if not (settings.DEBUG and response.status_code >= 400):
            response.setdefault("Content-Security-Policy", content_security_policy(request))
        return response


SEEN = "seen"  # the session's key holding the day of its last refresh


class SessionKeptAlive(MiddlewareMixin):
    """Refresh the browser session of a visit, once a day: its cookie and its stored expiry start
    ``SESSION_COOKIE_AGE`` again, so that a visitor without an account keeps their games while they
    come back (Django sets both once, when the session is made: 14 days after the first visit the
    games were out of reach, however often the visitor came).  A request without a session makes
    none; goes after the session middleware."""

    def process_request(self, request: HttpRequest) -> None:
        session = getattr(request, "session", None)
        if session is None or session.session_key is None:
            return
        seen = session.get(SEEN)  # loads it: an unknown or expired key is no session any more
        today = datetime.date.today().isoformat()
        if session.session_key is not None and seen != today:
            session[SEEN] = today  # modified: the session middleware saves it and sends its cookie


def json_error(status: int, message: str | None = None) -> JsonResponse:
    """Return ``{"error": message}`` with ``status`` (by default the status's message)."""
    return JsonResponse({"error": message or MESSAGES.get(status, "request failed")}, status=status)


def method_not_allowed(allow: str) -> str:
    """Return the 405's message naming the methods of the ``Allow`` header's value ``allow``:
    ``method not allowed: use GET or HEAD``."""
    methods = [method.strip() for method in allow.split(",") if method.strip()]
    if not methods:
        return MESSAGES[405]
    named = methods[0] if len(methods) == 1 else f"{', '.join(methods[:-1])} or {methods[-1]}"
    return f"{MESSAGES[405]}: use {named}"


class ApiErrorsAsJson(MiddlewareMixin):
    """Makes every error under ``/api/`` a JSON body ``{"error": ...}``, never an HTML page, whatever
    DEBUG says: 404, 405 (naming the methods its ``Allow`` header names), 413 for a body over
    ``GOWEB_MAX_UPLOAD_BYTES``, and 500."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Return the API's JSON answer to an exception its view raised (None outside the API)."""
        if not request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, RequestDataTooBig):
            return json_error(413)
        log.error("API request failed", exc_info=exception)
        return json_error(500)

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        """Return ``response``, or a JSON error in place of a non-JSON error response on the API."""
        is_json = response.get("Content-Type", "").startswith("application/json")
        if not request.path.startswith(API_PREFIX) or response.status_code < 400 or is_json:
            return response
        if not response.has_header("Allow"):
            return json_error(response.status_code)
        allow = response["Allow"]
        message = method_not_allowed(allow) if response.status_code == 405 else None
        replaced = json_error(response.status_code, message)
        replaced["Allow"] = allow
        return replaced


class ParsingBudget:
    """Charges the records a request's view parses to its client address
    (:func:`frontend.services.parsed.charged_to`), and answers a view refused for the address's
    spent budget with a 429 page that says so."""

    sync_capable = async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        """Answer ``request`` (a coroutine under ASGI) with its parses charged to its address."""
        if iscoroutinefunction(self):
            return self._answer(request)
        with parsed.charged_to(client.of_request(request)):
            return self.get_response(request)

    async def _answer(self, request: HttpRequest) -> HttpResponse:
        with parsed.charged_to(client.of_request(request)):
            return await self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """Return the 429 page for a view refused over the parsing budget (None for other faults)."""
        if not isinstance(exception, parsed.OverBudget):
            return None
        return render(request, "400.html", {"exception": str(exception)}, status=429)
