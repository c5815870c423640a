"""A fixed-window request limit per client, and the counters it keeps in Django's cache."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache


def allow(scope: str, client: str) -> bool:
    """Count one request of ``client`` against ``scope``; return False once over the limit.

    The limit is ``GOWEB_API_RATE_LIMIT`` requests per ``GOWEB_API_RATE_WINDOW`` seconds
    (0 requests means no limit).
    """
    limit, window = settings.GOWEB_API_RATE_LIMIT, settings.GOWEB_API_RATE_WINDOW
    if limit <= 0:
        return True
    key = f"ratelimit:{scope}:{client}:{int(time.time() // window)}"
    return increment(key, window + 1) <= limit


def increment(key: str, timeout: int) -> int:
    """Add one to the cache's counter ``key`` and return its count; a new counter expires ``timeout``
    seconds after its first count (later counts keep that expiry)."""
    cache.add(key, 0, timeout=timeout)
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)
        return 1
