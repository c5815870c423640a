"""Middleware of the site: the health check answered before anything else, the Content-Security-Policy,
and JSON errors on the API."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

from frontend import views

log = logging.getLogger(__name__)

HEALTH_PATH = "/healthz"
API_PREFIX = "/api/"
MESSAGES = {
    400: "bad request",
    403: "forbidden",
    404: "no such API endpoint",
    405: "method not allowed: use POST",
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


def json_error(status: int) -> JsonResponse:
    """Return ``{"error": message}`` with ``status``."""
    return JsonResponse({"error": MESSAGES.get(status, "request failed")}, status=status)


class ApiErrorsAsJson(MiddlewareMixin):
    """Makes every error under ``/api/`` a JSON body ``{"error": ...}``, never an HTML page, whatever
    DEBUG says: 404, 405, 413 for a body over ``GOWEB_MAX_UPLOAD_BYTES``, and 500."""

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
        replaced = json_error(response.status_code)
        if response.has_header("Allow"):
            replaced["Allow"] = response["Allow"]
        return replaced
