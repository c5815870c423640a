"""A scripted visitor of the web site: one browser session over HTTP and the board websocket.

``SiteSession`` keeps the session and CSRF cookies, so it can upload an SGF through the review
form, or start a game against the bot through the new-game form, like a browser;
``SiteSession.board`` opens that game's websocket with the session cookie.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import urllib.parse
import urllib.request

from websockets.asyncio.client import ClientConnection, connect

GAME_URL = re.compile(r"/game/(\d+)/")


class SiteSession:
    """One visitor of the site at ``base_url`` (``http://host:port``)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def _cookie(self, name: str) -> str | None:
        return next((c.value for c in self.cookies if c.name == name), None)

    def _submit(self, path: str, fields: dict[str, object], timeout: float) -> int:
        """Fill in the form at ``path`` with ``fields`` and return the id of the game it leads to.

        Raises ValueError with the page's text when the site refuses the form.
        """
        self.opener.open(self.base_url + path, timeout=timeout).read()
        form = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self._cookie("csrftoken") or ""})
        try:
            with self.opener.open(self.base_url + path, form.encode(), timeout=timeout) as response:
                match = GAME_URL.search(response.url)
                if match is None:
                    raise ValueError(f"the form did not lead to a game: {response.url}")
                return int(match.group(1))
        except urllib.error.HTTPError as e:
            raise ValueError(f"the site refused the form ({e.code}): {e.read()[:500]!r}") from None

    def upload(self, sgf: str, timeout: float = 30) -> int:
        """Paste ``sgf`` into the review form and return the new game's id.

        Raises ValueError with the page's text when the site refuses the SGF.
        """
        return self._submit("/review", {"text": sgf}, timeout)

    def new_game(self, level: str, size: int = 19, timeout: float = 30) -> int:
        """Start a game against the bot at ``level`` on a ``size`` board, the visitor playing black,
        and return its id.  Raises ValueError when the site refuses the settings."""
        fields = {"human_color": "B", "size": size, "handicap": 0, "komi": 7.5, "rules": "chinese"}
        return self._submit("/new", {**fields, "bot_level": level}, timeout)

    def board(self, game_id: int, address: str | None = None) -> connect:
        """Return the connection context of the game's board websocket (``async with``); with an
        ``address``, as the site's trusted proxy would name the client (``X-Forwarded-For``)."""
        ws_url = self.base_url.replace("http", "ws", 1) + f"/ws/board/{game_id}/"
        headers = {"Cookie": f"sessionid={self._cookie('sessionid')}"}
        if address is not None:
            headers["X-Forwarded-For"] = address
        return connect(ws_url, origin=self.base_url, additional_headers=headers, max_size=2**24)


async def send(ws: ClientConnection, message: dict) -> None:
    """Send one JSON message."""
    await ws.send(json.dumps(message))


async def receive(ws: ClientConnection) -> dict:
    """Return the next JSON message."""
    return json.loads(await ws.recv())
