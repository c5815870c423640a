"""The session engine (``SESSION_ENGINE``): Django's database sessions, taking only a key of the form
Django itself makes.

Django's store takes any cookie value of 8 characters or more as a key to look up, and its cookie
parser turns ``\\000`` into a NUL, which PostgreSQL refuses in a query ("text fields cannot contain
NUL characters"): every page and websocket of such a cookie was a server error.  A key that Django
could not have made (other characters than its own ``[a-z0-9]``, or longer than the table's 40) is
no session here: the request goes on as a new visitor's, as for an unknown or expired key.
"""

from __future__ import annotations

import re

from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS

KEY_LENGTH = (8, 40)  # Django's own lower bound, and the session table's column
KEY = re.compile(f"[{re.escape(VALID_KEY_CHARS)}]{{{KEY_LENGTH[0]},{KEY_LENGTH[1]}}}")


def valid_key(key: object) -> bool:
    """Return whether ``key`` could be a key Django made: 8 to 40 of its key characters."""
    return isinstance(key, str) and KEY.fullmatch(key) is not None


class SessionStore(db.SessionStore):
    """Django's database session store that takes a key other than :func:`valid_key`'s for none."""

    def _validate_session_key(self, key: object) -> bool:
        return valid_key(key)
