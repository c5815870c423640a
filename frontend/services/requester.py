"""Who is asking: a signed-in account, else the browser session, as the views and consumers see it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from frontend.services import client


@dataclass(frozen=True)
class Requester:
    """The account (``user_id``), browser session (``session_key``) and client ``address`` behind a
    request; any may be None."""

    user_id: int | None
    session_key: str | None
    address: str | None = None

    @property
    def key(self) -> str:
        """Return whom work counts against: ``user:ID`` for an account, else ``session:KEY``, else
        ``client:ADDRESS``."""
        if self.user_id is not None:
            return f"user:{self.user_id}"
        if self.session_key:
            return f"session:{self.session_key}"
        return f"client:{self.address or 'unknown'}"


def _user_id(user: Any) -> int | None:
    return user.pk if user is not None and user.is_authenticated else None


def from_request(request: HttpRequest) -> Requester:
    """Return the requester of an HTTP request (after the session and auth middleware)."""
    user = _user_id(getattr(request, "user", None))
    return Requester(user, request.session.session_key, client.of_request(request))


def from_scope(scope: Mapping[str, Any]) -> Requester:
    """Return the requester of a websocket scope (after Channels' auth middleware stack)."""
    session = scope.get("session")
    return Requester(
        _user_id(scope.get("user")),
        session.session_key if session is not None else None,
        client.of_scope(scope),
    )
