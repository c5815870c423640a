"""Fixed-window request limits per client, kept in Django's cache: one per scope, each with its own
settings, and the counters they keep."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

# The settings of each scope's limit: (requests, window in seconds).
SCOPES = {
    "api": ("GOWEB_API_RATE_LIMIT", "GOWEB_API_RATE_WINDOW"),
    "api_visits": ("GOWEB_API_VISIT_BUDGET", "GOWEB_API_RATE_WINDOW"),  # counted in visits
    "parse_ms": ("GOWEB_PARSE_BUDGET_MS", "GOWEB_PARSE_WINDOW"),  # milliseconds of parsing records
    "upload": ("GOWEB_UPLOAD_RATE_LIMIT", "GOWEB_UPLOAD_RATE_WINDOW"),
    "new_game": ("GOWEB_NEW_GAME_RATE_LIMIT", "GOWEB_NEW_GAME_RATE_WINDOW"),
    "session": ("GOWEB_SESSION_RATE_LIMIT", "GOWEB_SESSION_RATE_WINDOW"),
    "password": ("GOWEB_PASSWORD_RATE_LIMIT", "GOWEB_PASSWORD_RATE_WINDOW"),
}
# What a refusal calls the requests of the scopes that are refused with a sentence (refusal()).
REQUESTS = {"upload": "uploads", "new_game": "new games", "password": "logins, sign-ups and password changes",
            "api_visits": "visits searched", "parse_ms": "milliseconds spent reading game records"}


def allow(scope: str, client: str, cost: int = 1) -> bool:
    """Count ``cost`` (one request, or what it spends) of ``client`` against ``scope`` (a key of
    ``SCOPES``); return False once over the limit.

    The limit of ``"api"`` is ``GOWEB_API_RATE_LIMIT`` requests per ``GOWEB_API_RATE_WINDOW``
    seconds, and so on for ``"upload"``, ``"new_game"``, ``"session"`` and ``"password"`` (0 requests
    means no limit); ``"api_visits"`` counts the visits searched for ``/api/analyze``, at most
    ``GOWEB_API_VISIT_BUDGET`` per ``GOWEB_API_RATE_WINDOW`` seconds.
    """
    limit, window = (getattr(settings, name) for name in SCOPES[scope])
    if limit <= 0:
        return True
    return increment(_key(scope, client, window), window + 1, cost) <= limit


def spent(scope: str, client: str) -> bool:
    """Return whether ``client`` has spent ``scope``'s limit in the window, counting nothing."""
    limit, window = (getattr(settings, name) for name in SCOPES[scope])
    return limit > 0 and (cache.get(_key(scope, client, window)) or 0) >= limit


def _key(scope: str, client: str, window: int) -> str:
    """Return the cache key of ``client``'s counter of ``scope`` in the window now."""
    return f"ratelimit:{scope}:{client}:{int(time.time() // window)}"


def increment(key: str, timeout: int, delta: int = 1) -> int:
    """Add ``delta`` to the cache's counter ``key`` and return its count; a new counter expires
    ``timeout`` seconds after its first count (later counts keep that expiry)."""
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key, delta)
    except ValueError:  # expired between add and incr
        cache.set(key, delta, timeout=timeout)
        return delta


def refusal(scope: str) -> str:
    """Return the sentence that refuses a request over ``scope``'s limit (a key of ``REQUESTS``)."""
    limit, window = (getattr(settings, name) for name in SCOPES[scope])
    return f"too many {REQUESTS[scope]}: at most {limit} every {window} seconds from one address; try later"
