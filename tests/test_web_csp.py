"""The Content-Security-Policy: every page sends it, and no page needs what it forbids (inline
script, event handler attributes, inline styles, ``javascript:`` URLs)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from frontend.models import Game
from tests.web_helpers import make_game

TEMPLATES = Path(__file__).resolve().parent.parent / "frontend" / "templates"
PASSWORD = "a long Go proverb 19x19"
REVIEW_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[cc];B[gc])"


def directives(response) -> dict[str, list[str]]:
    """Return the response's Content-Security-Policy as {directive: sources}."""
    policy = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in policy.split(";") if part.strip())}


class InlineFinder(HTMLParser):
    """Collects what a strict policy refuses: scripts without ``src`` (JSON data blocks aside), ``on*``
    handler attributes, ``style`` attributes and elements, and ``javascript:`` URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "script" and "src" not in named and named.get("type") != "application/json":
            self.found.append(f"inline <script> {attrs}")
        if tag == "style":
            self.found.append("<style> element")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                self.found.append(f"<{tag} {name}=...>")
            if value and value.strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")


def inline_parts(html: str) -> list[str]:
    finder = InlineFinder()
    finder.feed(html)
    return finder.found


@pytest.mark.parametrize("template", sorted(TEMPLATES.rglob("*.html")), ids=lambda p: p.name)
def test_no_template_has_inline_script_handlers_or_styles(template: Path) -> None:
    text = template.read_text()
    assert inline_parts(re.sub(r"{%.*?%}|{{.*?}}", "", text)) == []
    assert "javascript:" not in text.lower()


@pytest.mark.django_db
def test_every_page_sends_the_policy_and_needs_nothing_it_forbids(client: Client) -> None:
    User.objects.create_user("csp-staff", password=PASSWORD, is_staff=True, is_superuser=True)
    client.post("/new", {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese",
                         "bot_level": "rules", "time_system": "none"})  # fmt: skip
    played = Game.objects.latest("pk")
    client.post("/review", {"text": REVIEW_SGF})
    reviewed = Game.objects.latest("pk")
    reviewed.share_token = "csp-shared-token"
    reviewed.save()
    stranger = make_game("another-session")
    pages = [
        "/", "/new", "/games", "/review", f"/game/{played.pk}/", f"/game/{reviewed.pk}/review",
        f"/game/{reviewed.pk}/compare", f"/game/{reviewed.pk}/delete", f"/game/{reviewed.pk}/unshare",
        "/shared/csp-shared-token", "/shared/csp-shared-token/download",
        "/accounts/login/", "/accounts/signup/", "/admin/login/", "/no-such-page", f"/game/{stranger.pk}/",
        "/api/networks",
    ]  # fmt: skip
    for path in pages:
        response = client.get(path)
        assert response.status_code in (200, 403, 404), path
        policy = directives(response)
        assert policy["default-src"] == ["'self'"] and policy["script-src"] == ["'self'"], path
        assert policy["connect-src"] == ["'self'", "ws://testserver"], path  # the board's websocket
        assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"], path
        if response["Content-Type"].startswith("text/html"):
            assert inline_parts(response.content.decode()) == [], path
    client.login(username="csp-staff", password=PASSWORD)
    staff_pages = ["/accounts/password/", "/admin/", "/admin/frontend/game/"]
    staff_pages.append(f"/admin/frontend/game/{played.pk}/change/")
    for path in staff_pages:
        response = client.get(path)
        assert response.status_code == 200 and directives(response)["script-src"] == ["'self'"], path
        assert inline_parts(response.content.decode()) == [], path


def test_the_websocket_source_follows_the_scheme_and_host(client: Client, settings) -> None:
    settings.ALLOWED_HOSTS = ["go.example.com"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = client.get("/", HTTP_HOST="go.example.com", HTTP_X_FORWARDED_PROTO="https")
    assert directives(response)["connect-src"] == ["'self'", "wss://go.example.com"]
    refused = client.get("/", HTTP_HOST="evil.example")
    assert refused.status_code == 400 and directives(refused)["connect-src"] == ["'self'"]


@pytest.mark.django_db
def test_djangos_debugging_pages_keep_their_inline_styles_and_scripts(client: Client, settings) -> None:
    settings.DEBUG = True
    missing = client.get("/no-such-page")
    assert missing.status_code == 404 and "<style" in missing.content.decode()
    assert "Content-Security-Policy" not in missing
    assert "script-src 'self'" in client.get("/")["Content-Security-Policy"]
