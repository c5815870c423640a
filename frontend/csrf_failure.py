"""The page of a form refused by Django's CSRF check (``CSRF_FAILURE_VIEW``).

A form's token stops matching when the browser's session changes after the page was loaded: a log
in or out in another tab, or a session that expired.  Django's own page for it says so in its
developers' words, unstyled under the site's Content-Security-Policy, and the text typed or pasted
in the form (an SGF record, say) is lost with it.  This page says what happened in the site's
style, and shows the form's text fields back, read-only, to copy before reloading, when the form
was sent from one of the site's own pages (its ``Referer``, which browsers send to the same site
under Django's ``same-origin`` referrer policy): another site's page posting here gets no text of
its own shown under this site's name.  Passwords are not shown back: they are typed again.
"""

from __future__ import annotations

import logging

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme

log = logging.getLogger(__name__)

NOT_SHOWN = ("csrfmiddlewaretoken",)


def shown_back(name: str) -> bool:
    """Return whether the posted field ``name`` is shown back (not the token, not a password)."""
    return name not in NOT_SHOWN and "password" not in name.lower()


def rows(value: str) -> int:
    """Return the rows of the read-only text area showing ``value``: its lines, 2 to 20, a long line
    counting as several."""
    lines = sum(1 + len(line) // 80 for line in value.splitlines())
    return max(2, min(20, lines))


def posted_fields(request: HttpRequest) -> tuple[list[tuple[str, str, int]], list[str]]:
    """Return the request's non-empty text fields to show back, as (name, value, rows), and the
    names of the files it sent (which are not kept); none from a body that cannot be read."""
    try:
        fields = [(name, value, rows(value)) for name, values in request.POST.lists() if shown_back(name)
                  for value in values if value.strip()]
        files = [upload.name for _, uploads in request.FILES.lists() for upload in uploads if upload.name]
    except Exception as e:  # a body too large or malformed to read: nothing to show back
        log.info("a refused form's fields not shown back: %s", e)
        return [], []
    return fields, files


def own_referer(request: HttpRequest) -> str | None:
    """Return the page that sent the form (its ``Referer``) when it is one of the site's own, else None."""
    referer = request.META.get("HTTP_REFERER", "")
    try:
        ours = bool(referer) and url_has_allowed_host_and_scheme(referer, {request.get_host()},
                                                                 request.is_secure())
    except DisallowedHost:
        ours = False
    return referer if ours else None


def page_to_reload(request: HttpRequest) -> str:
    """Return the page that sent the form (its ``Referer``, when one of the site's own), else the
    refused request's URL."""
    return own_referer(request) or request.get_full_path()


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Answer a form refused by the CSRF check with a 403 page saying that the session changed and
    showing back what was entered from one of the site's own pages."""
    fields, files = posted_fields(request) if own_referer(request) else ([], [])
    context = {
        "csrf_failed": True,
        "reason": reason,
        "fields": fields,
        "files": files,
        "reload": page_to_reload(request),
    }
    return render(request, "403.html", context, status=403)
