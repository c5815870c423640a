"""Redis outages as a board sees them: its channel layer (which tells every viewer) and the Celery
broker (which queues the bot's moves and the analyses) are Redis in production.

A change to a game is made only when both answer (:func:`check`), so that it is either made and
told, or refused; the board says which (:data:`REFUSED`, :data:`MADE_UNTOLD`, :data:`NOT_QUEUED`).
"""

from __future__ import annotations

import kombu.exceptions
import redis
from asgiref.sync import sync_to_async
from channels.layers import BaseChannelLayer
from channels_redis.core import RedisChannelLayer

from frontend.services import broker

# what a call to Redis raises when it cannot be reached: redis-py's errors, and kombu's when the
# broker refuses a task
UNAVAILABLE: tuple[type[Exception], ...] = (redis.RedisError, kombu.exceptions.OperationalError)

REFUSED = "the server cannot reach Redis just now, so nothing was changed: try again in a moment"
MADE_UNTOLD = (
    "the server lost Redis during this change: it was made (the board shows it), but other viewers "
    "were not told and the bot's move or the analysis it asks for waits: reload once the server is back"
)
NOT_QUEUED = "the server cannot reach Redis just now, so this request was not queued: try again in a moment"
CONNECT = "the server cannot reach Redis just now: the board reconnects in a moment"


class Unavailable(ValueError):
    """Redis does not answer: the request was refused, nothing changed."""


async def check(layer: BaseChannelLayer | None) -> None:
    """Return when the channel layer ``layer`` and the Celery broker both answer (at once for the
    in-process layer and tasks); raise Unavailable with :data:`REFUSED` otherwise."""
    try:
        if isinstance(layer, RedisChannelLayer):
            await layer.connection(0).ping()
        await sync_to_async(broker.current_run, thread_sensitive=False)()
    except UNAVAILABLE as e:
        raise Unavailable(REFUSED) from e
