"""Sending messages to board pages through the channel layer, from sync code (tasks, threads).

Every message is wrapped as ``{"type": "board.message", "message": ...}``; the board consumer
forwards ``message`` to its websocket unchanged.  The sockets open on a share link are also in
a group of the link's own, told ``{"type": "share.withdrawn"}`` when the owner withdraws it.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def board_group(game_id: int) -> str:
    """Return the channel-layer group of everyone watching game ``game_id``."""
    return f"board-{game_id}"


def to_group(game_id: int, message: dict) -> None:
    """Send ``message`` to every websocket open on game ``game_id``."""
    async_to_sync(get_channel_layer().group_send)(
        board_group(game_id), {"type": "board.message", "message": message}
    )


def to_channel(channel: str, message: dict) -> None:
    """Send ``message`` to one websocket, by its channel name."""
    async_to_sync(get_channel_layer().send)(channel, {"type": "board.message", "message": message})


def share_group(token: str) -> str:
    """Return the channel-layer group of the sockets open on the share link ``token``."""
    return f"share-{token}"


def share_withdrawn(token: str) -> None:
    """Tell the sockets open on the share link ``token`` that it was withdrawn (they close).

    Best effort: when the channel layer cannot be reached, a warning is logged, and each socket
    finds the link gone at its next message (``frontend.consumers.SharedBoardConsumer``).
    """
    try:
        async_to_sync(get_channel_layer().group_send)(share_group(token), {"type": "share.withdrawn"})
    except Exception as e:  # the withdrawal itself is saved: it must not fail for this
        log.warning("could not close the sockets of a withdrawn share link: %r", e)
