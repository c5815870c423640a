"""A fixed-window request limit per client, kept in Django's cache."""

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
    cache.add(key, 0, timeout=window + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window + 1)
        count = 1
    return count <= limit
