"""The pages' audit: bad input gets a clear error and loses nothing (an upload refused for the rate
limit keeps the pasted SGF; the files people save are read, and refused with one clear error), the
result filter of "My games" sorts every game the same on SQLite and PostgreSQL, the new-game form
never quietly drops part of a clock, a share link's viewer can download the SGF, stopping sharing
asks first, and the list of games tells uploads apart."""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils.html import escape

from frontend.forms import GameFilterForm, NewGameForm
from frontend.models import Game
from frontend.services import games

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent
SERVER = os.environ.get("GOWEB_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432")
GAME = "(;GM[1]FF[4]SZ[9]KM[6.5]{header};B[ee];W[cc])"


def upload(client: Client, sgf: str | bytes, how: str = "text", name: str = "game.sgf", **extra: str):
    """POST ``sgf`` to the upload form, pasted (``how="text"``) or as the file ``name``."""
    if how == "file":
        data = sgf.encode() if isinstance(sgf, str) else sgf
        return client.post("/review", {"file": SimpleUploadedFile(name, data)}, **extra)
    return client.post("/review", {"text": sgf}, **extra)


def errors_of(response) -> list[str]:
    """Return the messages of the upload page's error boxes and field error lists."""
    form = response.context["form"]
    refusal = response.context.get("refusal")
    return [*([refusal] if refusal else []), *(str(e) for errors in form.errors.values() for e in errors)]


# --- 1. the rate limit keeps the pasted SGF --------------------------------------------------------


def test_an_upload_refused_for_the_rate_limit_keeps_the_pasted_sgf(client, settings) -> None:
    settings.GOWEB_UPLOAD_RATE_LIMIT, settings.GOWEB_UPLOAD_RATE_WINDOW = 1, 3600
    assert upload(client, GAME.format(header="")).status_code == 302
    pasted = GAME.format(header="PB[Lee Sedol]C[my notes & <comments>]")
    refused = upload(client, pasted)
    page = refused.content.decode()
    assert refused.status_code == 429 and "too many uploads" in page
    assert escape(pasted) in page  # in the text box, to send again once the limit allows
    assert not refused.context["form"].is_bound  # nothing was read
    assert "choose it again" not in page
    refused_file = upload(client, pasted, how="file")
    assert refused_file.status_code == 429 and "choose it again" in refused_file.content.decode()
    assert Game.objects.count() == 1


# --- 2. the result filter ---------------------------------------------------------------------------

RESULTS = ["B+R", "b+r", "W+3.5", "w+T", "0", "Draw", "jigo", "", "Void", "?", "黑中盘胜"]
EXPECTED = {
    "B": ["B+R", "b+r"],
    "W": ["W+3.5", "w+T"],
    "draw": ["0", "Draw", "jigo"],
    "none": ["", "Void", "?", "黑中盘胜"],
}


def categories(games_: list[Game]) -> dict[str, list[str]]:
    """Return the results of ``games_`` each result filter lists, in RESULTS's order."""
    order = {result: k for k, result in enumerate(RESULTS)}
    found = {}
    for key in GameFilterForm.RESULTS:
        form = GameFilterForm({"result": key})
        assert form.is_valid(), form.errors
        listed = form.filter(Game.objects.filter(pk__in=[g.pk for g in games_]))
        found[key] = sorted((g.result for g in listed), key=order.__getitem__)
    return found


def test_the_result_filter_puts_every_result_in_one_category_whatever_its_case(client) -> None:
    """RE[b+R] was Black's win on SQLite only (its LIKE ignores case); RE[Void] and RE[?] were in no
    category ("none" matched only an empty result)."""
    for result in RESULTS:
        assert upload(client, GAME.format(header=f"RE[{result}]" if result else "")).status_code == 302
    assert categories(list(Game.objects.all())) == EXPECTED
    listed = client.get("/games?result=B")
    assert sorted(g.result for g in listed.context["games"]) == ["B+R", "b+r"]
    form = client.get("/games").content.decode()
    assert "no winner: not finished, void or unknown" in form


SCRIPT = """
import json
from frontend.models import Game
from tests.test_web_pages_audit import RESULTS, categories
made = [Game.objects.create(owner="pg", sgf="(;SZ[9])", result=result) for result in RESULTS]
print(json.dumps(categories(made)))
"""


@pytest.fixture
def postgres_database() -> str:
    """Return the URL of a fresh, migrated PostgreSQL database (dropped at the end)."""
    psycopg = pytest.importorskip("psycopg")
    name = f"goweb_test_pages_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        admin = psycopg.connect(f"{SERVER}/postgres", autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as e:
        pytest.skip(f"PostgreSQL not reachable at {SERVER}: {e}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{SERVER}/{name}"
    finally:
        with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_result_filter_sorts_results_the_same_on_postgresql(postgres_database: str) -> None:
    env = {**os.environ, "DATABASE_URL": postgres_database, "GOWEB_ENV": "development", "DJANGO_DEBUG": "0"}
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    manage = [sys.executable, "manage.py"]
    migrated = subprocess.run([*manage, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=180)
    assert migrated.returncode == 0, migrated.stderr
    run = subprocess.run([*manage, "shell", "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=180)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == EXPECTED


# --- 3. upload messages -----------------------------------------------------------------------------

NOTEPAD = "(;GM[1]FF[4]CA[UTF-16]SZ[9]PB[Zoë]PW[李昌镐]KM[6.5];B[ee];W[cc])"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_utf16_file_as_notepad_saves_it_is_reviewed(client, codec: str) -> None:
    """It was refused as "binary data, not an SGF file (byte 4 is a NUL)"."""
    data = NOTEPAD.encode(codec) if codec == "utf-16" else b"\xfe\xff" + NOTEPAD.encode(codec)
    response = upload(client, data, how="file")
    assert response.status_code == 302, errors_of(response)
    game = Game.objects.get()
    assert (game.black_player, game.white_player) == ("Zoë", "李昌镐")
    assert games.record_of(game).main_line_moves() == [(1, 40), (-1, 20)]


def test_a_utf8_file_that_says_latin1_is_stored_with_its_names_intact(client) -> None:
    """PB[Zoë] was stored as "ZoÃ«"."""
    data = GAME.format(header="CA[ISO-8859-1]PB[Zoë]EV[Coupe de l'été]").encode()
    assert upload(client, data, how="file").status_code == 302
    game = Game.objects.get()
    assert game.black_player == "Zoë" and "EV[Coupe de l'été]" in game.sgf
    latin = GAME.format(header="CA[ISO-8859-1]PB[Zoë]").encode("latin-1")  # real Latin-1 still works
    assert upload(client, latin, how="file").status_code == 302
    assert Game.objects.latest("pk").black_player == "Zoë"


@pytest.mark.parametrize("how", ["text", "file"])
def test_a_komi_in_exponent_notation_is_out_of_range_as_km_200_is(client, how: str) -> None:
    for km, shown in (("1e308", "1e+308"), ("200", "200")):
        response = upload(client, GAME.format(header="").replace("KM[6.5]", f"KM[{km}]"), how)
        assert response.status_code == 400
        assert errors_of(response) == [f"{'game.sgf' if how == 'file' else 'pasted SGF'}, root node: komi "
                                       f"{shown} is out of range: at most 150 either way"]
    assert not Game.objects.exists()


def test_an_empty_file_gets_one_clear_error(client) -> None:
    response = upload(client, b"", how="file")
    assert response.status_code == 400
    assert errors_of(response) == ["the file is empty: choose the SGF file of a game, or paste its text"]
    page = response.content.decode()
    assert "choose an SGF file or paste SGF text" not in page and "submitted file is empty" not in page
    nothing = client.post("/review", {})
    assert errors_of(nothing) == ["choose an SGF file or paste SGF text"]  # no file at all: as before


STONES_19 = [f"{a}{b}" for a in "cgkoq" for b in "cgkoq"]  # 25 points of a 19x19 board


@pytest.mark.parametrize(("header", "moves", "error"), [
    ("HA[100]", "", "HA[100] says 100 handicap stones, but the record places 0: without the stones placed, "
                    "at most 9 on 19×19 (correct HA, or add the stones with AB)"),
    ("HA[13]AB" + "".join(f"[{p}]" for p in STONES_19[:12]), "", "HA[13] says 13 handicap stones, but the "
                                                                   "record places 12"),
    ("HA[9]", "", None),  # a fixed handicap needs no stones placed: the record may be a header
    ("HA[13]AB" + "".join(f"[{p}]" for p in STONES_19[:13]), ";W[dd]", None),  # a handicap server's
    ("HA[25]AB" + "".join(f"[{p}]" for p in STONES_19), ";W[dd]", None),
    ("HA[13]", "".join(f";B[{p}]" for p in STONES_19[:13]) + ";W[dd]", None),  # placed as Black's moves
])
def test_a_handicap_the_record_does_not_place_is_refused_clearly(client, header: str, moves: str,
                                                                 error: str | None) -> None:
    """HA[100] was accepted and listed as "H100"."""
    response = upload(client, f"(;GM[1]FF[4]SZ[19]KM[0.5]{header}{moves})")
    if error is None:
        assert response.status_code == 302, errors_of(response)
        assert Game.objects.get().handicap == int(header[3:header.index("]")])
    else:
        assert response.status_code == 400 and error in errors_of(response)[0]
        assert not Game.objects.exists()


def test_small_boards_keep_an_even_games_ha_1(client) -> None:
    assert upload(client, "(;GM[1]FF[4]SZ[5]HA[1];B[cc])").status_code == 302


# --- 4. the new game's clock ------------------------------------------------------------------------

CLOCK = {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese", "bot_level": "rules",
         "time_system": "byoyomi", "time_main": 10}


@pytest.mark.parametrize(("period", "periods", "field", "message"), [
    (0, 5, "time_period", "byo-yomi needs some seconds in each period for its 5 period(s)"),
    (30, 0, "time_periods", "byo-yomi needs at least one period of 30 s (for absolute time, set the "
                            "period's seconds to 0 too)"),
])
def test_byoyomi_with_half_an_overtime_is_an_error_on_the_field(period: int, periods: int, field: str,
                                                                 message: str) -> None:
    """Both became absolute time with no message."""
    form = NewGameForm({**CLOCK, "time_period": period, "time_periods": periods})
    assert not form.is_valid()
    assert any(message in error for error in form.errors[field])
    assert "time_control" not in form.cleaned_data


def test_byoyomi_with_no_overtime_is_absolute_time_and_the_page_shows_the_errors(client) -> None:
    form = NewGameForm({**CLOCK, "time_period": 0, "time_periods": 0})
    assert form.is_valid(), form.errors
    control = form.cleaned_data["time_control"]
    assert (control.system, control.main, control.period, control.periods) == ("byoyomi", 600, 0, 0)
    page = client.post("/new", {**CLOCK, "time_period": 30, "time_periods": 0})
    assert page.status_code == 400 and "byo-yomi needs at least one period of 30 s" in page.content.decode()
    assert not Game.objects.exists()


# --- 5 and 6. share links ---------------------------------------------------------------------------


def shared_game(client: Client) -> Game:
    upload(client, GAME.format(header="PB[Zoë]RE[B+R]"))
    game = Game.objects.get()
    assert client.post(f"/game/{game.pk}/share").status_code == 302
    game.refresh_from_db()
    return game


def test_a_share_links_viewer_downloads_the_stored_record(client) -> None:
    game = shared_game(client)
    viewer = Client()
    page = viewer.get(f"/shared/{game.share_token}").content.decode()
    assert f'href="/shared/{game.share_token}/download"' in page and 'id="shared-download"' in page
    download = viewer.get(f"/shared/{game.share_token}/download")
    assert download.status_code == 200 and download.content == game.sgf.encode()
    assert download["Content-Type"] == "application/x-go-sgf; charset=utf-8"
    assert download["Content-Disposition"] == f'attachment; filename="game-{game.pk}.sgf"'
    owners = client.get(f"/game/{game.pk}/sgf")
    assert owners.content == download.content  # the owner's plain download, the same bytes
    assert owners["Content-Disposition"] == download["Content-Disposition"]
    assert viewer.get(f"/game/{game.pk}/sgf").status_code == 403  # the link opens nothing else
    assert viewer.post(f"/shared/{game.share_token}/download").status_code == 405
    client.post(f"/game/{game.pk}/unshare")
    gone = viewer.get(f"/shared/{game.share_token}/download")
    assert gone.status_code == 404 and "the owner may have withdrawn it" in gone.content.decode()
    assert viewer.get("/shared/no-such-token/download").status_code == 404


def test_stop_sharing_asks_first_and_keep_sharing_keeps_the_link(client) -> None:
    game = shared_game(client)
    review = client.get(f"/game/{game.pk}/review").content.decode()
    assert f'href="/game/{game.pk}/unshare" id="unshare"' in review  # a link to the question, no form
    asked = client.get(f"/game/{game.pk}/unshare")
    page = asked.content.decode()
    assert asked.status_code == 200 and "Stop sharing this game?" in page
    assert f"http://testserver/shared/{game.share_token}" in page and "cannot be undone" in page
    assert 'method="post"' in page and "csrfmiddlewaretoken" in page and "onclick" not in page  # no inline JS
    game.refresh_from_db()
    assert game.share_token  # asking withdraws nothing
    assert Client().get(f"/game/{game.pk}/unshare").status_code == 403
    token = game.share_token
    assert client.post(f"/game/{game.pk}/unshare").status_code == 302
    assert Client().get(f"/shared/{token}").status_code == 404
    again = client.get(f"/game/{game.pk}/unshare")  # nothing to stop: back to the review
    assert again.status_code == 302 and again["Location"] == f"/game/{game.pk}/review"


# --- 7. the list of games ---------------------------------------------------------------------------


def test_the_list_tells_uploads_apart_and_names_the_kinds(client) -> None:
    upload(client, GAME.format(header="DT[2024-03-01]EV[Kisei]RO[3]"))
    upload(client, GAME.format(header="DT[2023-11-20]GN[Kisei, game 3]EV[Kisei]"))
    upload(client, GAME.format(header=""))
    client.post("/new", {**CLOCK, "time_system": "none"})
    page = client.get("/games").content.decode()
    assert "Kisei · round 3 · 2024-03-01" in page
    assert "Kisei, game 3 · 2023-11-20" in page  # the event once, in the name
    assert page.count('class="meta game-details"') == 3  # none for a record that says nothing more
    played = datetime.date.today().isoformat()  # the game against the bot: the day it was made
    assert f'<span class="meta game-details">{played}</span>' in page
    assert "<td>uploaded for review</td>" in page and "<td>played against the bot</td>" in page
    assert "<td>review</td>" not in page and "<td>play</td>" not in page


def test_the_list_shows_record_text_escaped_and_without_control_characters(client) -> None:
    upload(client, GAME.format(header="GN[<b>x</b>\u202e]"))
    page = client.get("/games").content.decode()
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "\u202e" not in page
