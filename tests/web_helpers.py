"""Shared helpers of the web tests: sessions, games and websocket conversations."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.sessions.backends.db import SessionStore
from django.db import connections

from frontend.models import Game
from frontend.services import games
from goweb.asgi import application

ORIGIN = (b"origin", b"http://localhost")


def _drop_default_connection() -> None:
    if hasattr(connections._connections, "default"):
        del connections["default"]


def forget_thread_connection() -> None:
    """Drop the database connection the consumers left in asgiref's sync thread (in-memory SQLite
    never closes): otherwise the next test without database access that dispatches a websocket
    event fails when Channels checks whether that connection is still usable."""
    asyncio.run(sync_to_async(_drop_default_connection)())


@pytest.fixture(autouse=True)
def thread_connection_forgotten() -> Iterator[None]:
    """After each test of a module that imports it: :func:`forget_thread_connection`."""
    yield
    forget_thread_connection()


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
