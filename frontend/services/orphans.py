"""Games no one can reach any more: those of browser sessions that expired, without an account.

A game made without an account belongs to its browser session (``Game.owner``); once the session
has expired (``SESSION_COOKIE_AGE`` after the browser's last visit, :class:`frontend.middleware.
SessionKeptAlive`) nobody can open it again, and its record (up to an upload's size) and analyses
would stay in the database for good.  :func:`forget_orphans` deletes them, with the expired
sessions; a game shared with a link is kept, since whoever has the link still opens it.
"""

from __future__ import annotations

import datetime
from importlib import import_module

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db.models import QuerySet
from django.utils import timezone

from frontend.models import Game


def orphans(now: datetime.datetime | None = None) -> QuerySet[Game]:
    """Return the games no one can open: no account, no live session owning them, no share link,
    and unchanged for ``SESSION_COOKIE_AGE`` (a session that expired sooner was not kept alive)."""
    now = now or timezone.now()
    live = Session.objects.filter(expire_date__gt=now).values("session_key")
    unchanged = now - datetime.timedelta(seconds=settings.SESSION_COOKIE_AGE)
    return (Game.objects.filter(user__isnull=True, share_token__isnull=True, updated__lt=unchanged)
            .exclude(owner__in=live))


def forget_orphans(now: datetime.datetime | None = None) -> int:
    """Delete the expired sessions and the games :func:`orphans` finds (their analyses and jobs
    with them); return how many games were deleted."""
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    _, by_model = orphans(now).delete()
    return by_model.get(Game._meta.label, 0)
