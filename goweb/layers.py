"""The Redis channel layer, made to ride out a Redis outage.

channels_redis lets a failed receive raise, and the consumer waiting on it ends: every websocket
open on the web process closes when Redis goes away.  :class:`OutageTolerantRedisChannelLayer`
waits for Redis to come back instead, so the sockets stay open and can tell their users what
failed; sends still raise, for the consumer to say so (``frontend.services.outage``).
"""

from __future__ import annotations

import asyncio
import logging

import redis
from channels_redis.core import RedisChannelLayer

log = logging.getLogger(__name__)

RECEIVE_RETRY_SECONDS = (0.1, 2.0)  # the first wait for Redis after a failed receive, and the longest


class OutageTolerantRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer whose receive waits out a Redis outage instead of raising."""

    async def receive(self, channel: str) -> dict:
        """Return the next message of ``channel``; while Redis cannot be reached, try again after a
        wait that doubles up to ``RECEIVE_RETRY_SECONDS[1]``."""
        wait, longest = RECEIVE_RETRY_SECONDS
        while True:
            try:
                return await super().receive(channel)
            except (redis.ConnectionError, redis.TimeoutError) as e:
                level = logging.WARNING if wait == RECEIVE_RETRY_SECONDS[0] else logging.DEBUG  # once
                log.log(level, "the channel layer cannot receive (%r): trying again in %.1f s", e, wait)
                await asyncio.sleep(wait)
                wait = min(2 * wait, longest)
