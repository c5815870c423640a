"""``POST /api/analyze``: KataGo-analysis-style queries answered by a search (docs/api.md).

The queries are checked and answered in KataGo's terms by :mod:`analysis.katajson` (which the
stdin engine uses too), with this site's limits: one turn a query, ``GOWEB_REVIEW_VISITS`` by
default and ``GOWEB_API_MAX_VISITS`` at most, the networks of the site's device.  The only
``action`` answered is ``query_version``: each query here is a request of its own, withdrawn when
its connection closes, and no cache outlives it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from analysis.katajson import query as katajson
from analysis.katajson.answer import response
from analysis.katajson.query import Job, QueryError, error, read_json
from frontend.services import engine

__all__ = ["NOT_JSON", "Job", "QueryError", "action_reply", "error", "parse", "read_json", "response"]

NOT_JSON = "send the query as JSON, with Content-Type: application/json"


def action_reply(query: Any) -> dict | None:
    """Return the answer to KataGo's ``query_version`` action, or None for a query without an
    ``action``; raises QueryError for the other actions, which mean nothing here, or an unknown one."""
    action = katajson.action_of(query)
    if action is None:
        return None
    if action == "query_version":
        return katajson.version_reply(query)
    raise QueryError(f"action {action!r} is not supported here: each query is a request of its own, "
                     "withdrawn when its connection closes", "action")


def parse(query: Any) -> Job:
    """Check one query of one turn and return its Job; raises QueryError for a malformed query or
    an illegal move (:func:`analysis.katajson.query.parse`)."""
    limits = katajson.Limits(settings.GOWEB_REVIEW_VISITS, settings.GOWEB_API_MAX_VISITS, max_turns=1)
    (job,) = katajson.parse(query, limits, _pick)
    return job


def _pick(name: str, size: int) -> str:
    """Return the name of the site's network called ``name`` (the default if empty) for ``size``."""
    return engine.pick(name, size=size).name
