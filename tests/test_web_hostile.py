"""Hostile uploads, pastes and share links (issue 35): each is refused with a clear 4xx, cheaply, or
accepted and reviewed; a review page costs in proportion to the moves it shows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.sessions.models import Session
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from analysis.go.position import Position
from frontend.models import Game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent

GAME = "(;GM[1]FF[4]CA[{ca}]SZ[9]PB[Müller];B[ee];W[cc])"
NUL_AFTER_4096 = "(;GM[1]FF[4]SZ[19]" + " " * 5000 + "PB[\x00];B[dd])"


def send(client: Client, sgf: str | bytes, how: str, **extra: str):
    """POST ``sgf`` to the upload form as a file (``how="file"``) or as pasted text."""
    if how == "file":
        data = sgf.encode() if isinstance(sgf, str) else sgf
        return client.post("/review", {"file": SimpleUploadedFile("game.sgf", data)}, **extra)
    return client.post("/review", {"text": sgf if isinstance(sgf, str) else sgf.decode()}, **extra)


def timeline_of(page) -> dict:
    return json.loads(re.search(r'<script id="timeline" type="application/json">(.*?)</script>',
                                page.content.decode(), re.S).group(1))


@pytest.mark.parametrize("how", ["file", "text"])
@pytest.mark.parametrize("codec", ["UTF-16", "cp037", "rot13", "base64", "zlib_codec"])
def test_a_false_or_non_text_ca_is_reviewed_upload_and_paste_alike(client, codec: str, how: str) -> None:
    response = send(client, GAME.format(ca=codec), how)
    game = Game.objects.get()
    assert response.status_code == 302 and (game.black_player, game.size) == ("Müller", 9)
    page = client.get(f"/game/{game.pk}/review")
    assert page.status_code == 200 and timeline_of(page)["moves"] == [["B", "E5"], ["W", "C7"]]
    assert send(client, f"(;GM[1]FF[4]CA[{codec}]SZ[9];B[ee])", how).status_code == 302  # the issue's


@pytest.mark.parametrize("how", ["file", "text"])
def test_a_nul_after_the_first_4096_bytes_is_refused_as_binary_data(client, how: str) -> None:
    response = send(client, NUL_AFTER_4096, how)
    assert response.status_code == 400
    assert "binary data, not an SGF file" in response.content.decode()
    assert not Game.objects.exists()


@pytest.mark.parametrize("how", ["file", "text"])
@pytest.mark.parametrize(("sgf", "message"), [
    (b"(;GM[1]FF[4]SZ[25]" + b";B[];W[]" * 63_000 + b")", "too large: the file has more than 10000 nodes"),
    (b"(;GM[1]FF[4]SZ[19]AB" + b"[aa:ss]" * 70_000 + b")", "root node: too large: property AB has more"),
    (b"(;GM[1]FF[4]SZ[19]XX" + b"[a]" * 150_000 + b";B[dd])", "property XX has more than 1000 values"),
    (b"(;GM[1]SZ[9];B[ee]" + b";W[];B[]" * 3 + b")", "move 6: too large: more than 4 passes in a row"),
])
def test_records_too_large_to_review_are_refused_with_the_limit(client, sgf: bytes, message: str,
                                                               how: str) -> None:
    response = send(client, sgf, how)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Game.objects.exists()


def test_a_line_of_more_moves_than_the_setting_is_refused(client, settings) -> None:
    settings.GOWEB_MAX_GAME_MOVES = 3
    response = send(client, "(;SZ[9];B[ee];W[cc];B[gg](;W[gc])(;W[cg];B[cc]))", "text")
    assert response.status_code == 400
    message = "move 4 of a variation: too large: a line of play has more than 3 moves"
    assert message in response.content.decode()


def test_uploads_and_pastes_are_rate_limited_per_address(client, settings) -> None:
    settings.GOWEB_UPLOAD_RATE_LIMIT, settings.GOWEB_UPLOAD_RATE_WINDOW = 2, 3600
    address = {"REMOTE_ADDR": "10.35.4.1"}
    sgf = GAME.format(ca="UTF-8")
    codes = [send(client, sgf, how, **address).status_code for how in ("file", "text", "file")]
    assert codes == [302, 302, 429]
    refused = send(client, "(;B[zz])", "text", **address)  # refused before the SGF is read
    page = refused.content.decode()
    assert refused.status_code == 429 and "too many uploads: at most 2 every 3600 seconds" in page
    assert "bad coordinate" not in page and Game.objects.count() == 2
    assert client.get("/review", **address).status_code == 200  # the form itself is not counted
    assert send(client, sgf, "text", REMOTE_ADDR="10.35.4.2").status_code == 302


def test_new_games_are_rate_limited_per_address_and_the_refused_form_keeps_what_was_entered(
    client, settings
) -> None:
    settings.GOWEB_NEW_GAME_RATE_LIMIT, settings.GOWEB_NEW_GAME_RATE_WINDOW = 2, 3600
    here = {"REMOTE_ADDR": "10.35.4.1"}
    data = {"human_color": "W", "size": 13, "handicap": 0, "komi": 5.5, "rules": "japanese",
            "bot_level": "rules"}
    assert [client.post("/new", data, **here).status_code for _ in range(2)] == [302, 302]
    refused = client.post("/new", data, **here)
    page = refused.content.decode()
    assert refused.status_code == 429 and Game.objects.count() == 2
    assert "too many new games: at most 2 every 3600 seconds from one address; try later" in page
    assert 'value="5.5"' in page and '<option value="13" selected>' in page
    assert client.get("/new", **here).status_code == 200  # the form itself is not counted
    assert client.post("/new", data, REMOTE_ADDR="10.35.4.2").status_code == 302


def test_a_share_links_viewers_past_their_addresss_session_limit_count_against_the_address(
    settings
) -> None:
    settings.GOWEB_SESSION_RATE_LIMIT, settings.GOWEB_SESSION_RATE_WINDOW = 2, 3600
    game = Game.objects.create(owner="someone", sgf=GAME.format(ca="UTF-8"), size=9,
                               kind=Game.Kind.REVIEW, share_token="shared-token")
    viewers = [Client() for _ in range(3)]
    pages = [viewer.get("/shared/shared-token", REMOTE_ADDR="10.35.4.1") for viewer in viewers]
    assert [page.status_code for page in pages] == [200, 200, 200]  # the page is shown to each
    assert [has_session(viewer) for viewer in viewers] == [True, True, False]
    assert Session.objects.count() == 2
    again = viewers[0].get(f"/shared/{game.share_token}", REMOTE_ADDR="10.35.4.1")  # a session kept
    assert again.status_code == 200 and Session.objects.count() == 2
    other = Client()
    other.get("/shared/shared-token", REMOTE_ADDR="10.35.4.2")
    assert has_session(other) and Session.objects.count() == 3


def has_session(viewer: Client) -> bool:
    """Whether the site gave ``viewer`` a session cookie (``Client.session`` would make one)."""
    return bool(viewer.cookies.get(django_settings.SESSION_COOKIE_NAME, None) and
                viewer.cookies[django_settings.SESSION_COOKIE_NAME].value)


def test_production_limits_uploads_by_default_and_development_does_not(tmp_path: Path) -> None:
    show = "import goweb.settings as s; print(s.GOWEB_UPLOAD_RATE_LIMIT, s.GOWEB_UPLOAD_RATE_WINDOW)"
    env = {**os.environ, "GOWEB_SECRET_KEY_FILE": str(tmp_path / "key")}
    env.pop("GOWEB_UPLOAD_RATE_LIMIT", None)
    shown = {mode: subprocess.run([sys.executable, "-c", show], cwd=ROOT, env={**env, "GOWEB_ENV": mode},
                                  capture_output=True, text=True, timeout=60).stdout.split()
             for mode in ("production", "development")}
    assert shown == {"production": ["10", "60"], "development": ["0", "60"]}


def test_a_paste_over_the_request_limit_gets_the_upload_form_saying_the_limits(settings) -> None:
    client = Client(enforce_csrf_checks=True)  # as in production: the CSRF check reads the body first
    token = "x" * 32
    client.cookies["csrftoken"] = token
    text = "(;SZ[19]C[" + "x" * 10_000_000 + "])"
    response = client.post("/review", {"text": text, "csrfmiddlewaretoken": token})
    page = response.content.decode()
    assert response.status_code == 413
    assert "the request is larger than the limit of 2097152 bytes" in page
    assert "an SGF file or text may have at most 524288 bytes" in page and 'name="text"' in page
    assert not Game.objects.exists()


def test_a_body_over_the_limit_elsewhere_gets_a_page_saying_the_limit(settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = Client().post("/new", {"komi": "7" * 2000})
    assert response.status_code == 413
    assert "The request is larger than the limit of 1000 bytes." in response.content.decode()


@pytest.mark.parametrize("token", ["%00", "a%00b", "%FF%FE", "x" * 33, "a.b"])
def test_a_share_token_no_link_can_have_is_not_found_without_asking_the_database(client, token: str) -> None:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/shared/{token}")
    assert response.status_code == 404 and "This share link is not valid" in response.content.decode()
    assert not [q for q in queries if "share_token" in q["sql"]]


def long_game(moves: int) -> str:
    """Return a 9x9 record of ``moves`` moves: B E5, W C7, then passes."""
    return "(;GM[1]SZ[9]C[start];B[ee];W[cc]C[two]" + ";B[];W[]" * ((moves - 2) // 2) + "C[last])"


def test_a_review_page_replays_each_position_once_and_shows_at_most_the_limit(client, settings,
                                                                             monkeypatch) -> None:
    assert send(client, "(;SZ[9];B[ee])", "text").status_code == 302
    game = Game.objects.get()
    game.sgf = long_game(3000)  # stored before the site bounded records
    game.save()
    settings.GOWEB_MAX_GAME_MOVES = 100

    copies, copy = [], Position.copy

    def counted_copy(self: Position) -> Position:
        copies[-1] += 1
        return copy(self)

    monkeypatch.setattr(Position, "copy", counted_copy)
    copies.append(0)
    page = client.get(f"/game/{game.pk}/review")
    timeline = timeline_of(page)
    assert (len(timeline["moves"]), len(timeline["boards"]), timeline["total_moves"]) == (100, 101, 3000)
    assert timeline["comments"][:3] == ["start", "", "two"] and "last" not in timeline["comments"]
    assert "The record has 3000 moves: the review shows the first 100." in page.content.decode()
    settings.GOWEB_MAX_GAME_MOVES = 3000
    copies.append(0)
    whole = timeline_of(client.get(f"/game/{game.pk}/review"))
    assert (len(whole["boards"]), whole["comments"][-1]) == (3001, "last")
    assert whole["boards"][-1] == whole["boards"][2]
    assert copies == [2, 2]  # the handicap bonus's, whatever the length: not one per position
