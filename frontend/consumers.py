"""Websocket consumers speaking JSON messages of the form ``{"type": ..., ...}``."""

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer


class PingConsumer(AsyncJsonWebsocketConsumer):
    """Answers ``{"type": "ping"}`` with ``{"type": "pong"}``.

    Malformed or unknown messages get an ``{"type": "error", "message": ...}`` reply and the
    connection stays open.
    """

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        """Decode a text frame as JSON, replying with an error instead of raising on bad input.

        ``ValueError`` covers malformed JSON and oversized integers, ``RecursionError`` deep nesting.
        """
        if text_data is None:
            await self.send_error("binary frames are not supported; send JSON text")
            return
        try:
            content = await self.decode_json(text_data)
        except (ValueError, RecursionError):
            await self.send_error("message is not valid JSON")
            return
        await self.receive_json(content, **kwargs)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Dispatch a decoded message on its ``type`` field."""
        if not isinstance(content, dict):
            await self.send_error("message must be a JSON object")
            return
        if "type" not in content:
            await self.send_error("message has no 'type' field")
            return
        message_type = content["type"]
        if message_type == "ping":
            await self.send_json({"type": "pong"})
        else:
            await self.send_error(f"unknown message type {message_type!r}")

    async def send_error(self, message: str) -> None:
        """Send an error message to the client without closing the connection."""
        await self.send_json({"type": "error", "message": message})
