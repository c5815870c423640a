"""Accounts and the games of anonymous sessions."""

from __future__ import annotations

from frontend.models import Game


def adopt(session_key: str | None, user_id: int) -> int:
    """Give the games that the anonymous session ``session_key`` made to the account ``user_id``;
    return how many moved."""
    if not session_key:
        return 0
    return Game.objects.filter(user=None, owner=session_key).update(user_id=user_id)
