"""Sending messages to board pages through the channel layer, from sync code (tasks, threads).

Every message is wrapped as ``{"type": "board.message", "message": ...}``; the board consumer
forwards ``message`` to its websocket unchanged.
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer


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
