"""A visitor without an account keeps their games while they come back: each day's first visit
refreshes the browser session; the games of sessions that expired are deleted, shared ones kept."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.utils import timezone

from frontend.models import Game
from frontend.services.orphans import forget_orphans
from tests.web_helpers import make_game, new_session

pytestmark = pytest.mark.django_db
DAY = datetime.timedelta(days=1)


def age(game: Game, days: int, **fields: object) -> None:
    Game.objects.filter(pk=game.pk).update(updated=timezone.now() - days * DAY, **fields)


def test_the_days_first_visit_refreshes_the_session_and_its_cookie(client, settings) -> None:
    key = new_session()
    Session.objects.filter(session_key=key).update(expire_date=timezone.now() + DAY)  # made 13 days ago
    client.cookies["sessionid"] = key
    response = client.get("/games")
    assert response.cookies["sessionid"].value == key
    assert int(response.cookies["sessionid"]["max-age"]) == settings.SESSION_COOKIE_AGE
    expires = Session.objects.get(session_key=key).expire_date
    assert expires > timezone.now() + datetime.timedelta(seconds=settings.SESSION_COOKIE_AGE - 60)
    assert "sessionid" not in client.get("/games").cookies  # the day's later visits write nothing


def test_a_request_without_a_session_or_with_an_unknown_one_makes_none(client) -> None:
    client.get("/")
    client.cookies["sessionid"] = "a" * 32  # a key Django could make, but no session's
    response = client.get("/")
    assert response.cookies["sessionid"].value == ""  # Django drops the unknown key's cookie
    assert not Session.objects.exists()


def test_the_games_page_says_how_long_a_browsers_games_are_kept(client, settings) -> None:
    page = client.get("/games").content.decode()
    assert f"at least every {settings.SESSION_COOKIE_AGE // 86400} days" in page


def test_the_games_of_expired_sessions_go_and_the_others_stay() -> None:
    live, gone = new_session(), new_session()
    Session.objects.filter(session_key=gone).update(expire_date=timezone.now() - DAY)
    orphan = make_game(gone)
    age(orphan, 20)
    recent = make_game("expired-long-ago")  # changed within SESSION_COOKIE_AGE: left for now
    shared = make_game(gone)
    age(shared, 20, share_token="kept-for-its-link")
    of_live = make_game(live)
    age(of_live, 20)
    of_account = make_game(gone)
    age(of_account, 20, user=User.objects.create_user("keeper"))
    out = StringIO()
    call_command("forget_orphans", "--dry-run", stdout=out)
    assert out.getvalue().strip() == "1 games would be deleted" and Game.objects.count() == 5
    assert forget_orphans() == 1
    assert set(Game.objects.values_list("pk", flat=True)) == {recent.pk, shared.pk, of_live.pk, of_account.pk}
    assert not Session.objects.filter(session_key=gone).exists()  # the expired session went too
