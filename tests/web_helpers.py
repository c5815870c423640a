"""Shared helpers of the web tests: sessions, games and websocket conversations."""

from __future__ import annotations

from collections.abc import Callable

from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore

from frontend.models import Game
from frontend.services import games
from goweb.asgi import application

ORIGIN = (b"origin", b"http://localhost")


def new_session() -> str:
    """Create a saved session and return its key."""
    store = SessionStore()
    store.create()
    return store.session_key


def make_game(owner: str, **settings: object) -> Game:
    """Create a 9x9 game against the ``rules`` bot (fast, no network) with the human as black."""
    options = {
        "size": 9,
        "handicap": 0,
        "komi": 7.5,
        "rules": "chinese",
        "bot_level": "rules",
        "human_color": "B",
    }
    options.update(settings)
    return games.new_game(owner, **options)


async def connect(game_id: int, session_key: str | None) -> WebsocketCommunicator:
    """Open the board websocket of a game with the session cookie."""
    headers = [ORIGIN]
    if session_key:
        headers.append((b"cookie", f"sessionid={session_key}".encode()))
    communicator = WebsocketCommunicator(application, f"/ws/board/{game_id}/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    return communicator


async def receive_until(
    communicator: WebsocketCommunicator, accept: Callable[[dict], bool], timeout: float = 20
) -> dict:
    """Return the first received message that ``accept`` takes, skipping others; errors fail fast."""
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        if accept(message):
            return message
        assert message["type"] != "error", message
