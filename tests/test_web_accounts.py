"""Accounts: sign up, log in and out, change the password, games owned by the account, the session's
games adopted, "My games" filtered and paged, read-only share links, and the admin for staff."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth.models import User
from django.test import Client

from analysis.sgf import read_sgf
from frontend.models import Analysis, Game
from frontend.services import dispatch, games
from frontend.services.requester import Requester
from tests.web_helpers import ORIGIN, connect, forget_thread_connection, make_game, new_session, receive_until

PASSWORD = "a long Go proverb 19x19"
REVIEW_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[cc];B[gc])"


def new_game(client: Client, **fields: object) -> Game:
    data = {"human_color": "B", "size": 9, "handicap": 0, "komi": 7.5, "rules": "chinese"}
    data.update({"bot_level": "rules", **fields})
    response = client.post("/new", data)
    return Game.objects.get(pk=int(response["Location"].split("/")[2]))


def upload(client: Client, sgf: str = REVIEW_SGF) -> Game:
    response = client.post("/review", {"text": sgf})
    return Game.objects.get(pk=int(response["Location"].split("/")[2]))


def sign_up(client: Client, name: str) -> User:
    data = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 302 and response["Location"] == "/games"
    return User.objects.get(username=name)


@pytest.mark.django_db
def test_sign_up_logs_in_and_adopts_the_sessions_games(client) -> None:
    played, reviewed = new_game(client), upload(client)
    stranger = Client()
    theirs = new_game(stranger)
    user = sign_up(client, "ada")
    assert set(user.games.all()) == {played, reviewed}
    assert Game.objects.get(pk=theirs.pk).user is None  # another browser's games stay its own
    page = client.get("/games").content.decode()
    assert "2 games of this browser moved to your account." in page and 'id="signed-in">ada<' in page
    signed = new_game(client)
    assert signed.user == user and signed.black_player == "ada"  # the account's game, in its name
    assert read_sgf(signed.sgf).root.get("PB") == "ada"
    assert client.get(f"/game/{played.pk}/").status_code == 200


@pytest.mark.django_db
def test_log_in_adopts_the_sessions_games_and_log_out_leaves_them_with_the_account(client) -> None:
    User.objects.create_user("grace", password=PASSWORD)
    before = upload(client)
    response = client.post("/accounts/login/", {"username": "grace", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/games"
    assert Game.objects.get(pk=before.pk).user.username == "grace"
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get(f"/game/{before.pk}/review").status_code == 403  # the browser no longer owns it
    assert b"No games yet" in client.get("/games").content
    client.post("/accounts/login/", {"username": "grace", "password": PASSWORD})
    assert client.get(f"/game/{before.pk}/review").status_code == 200


@pytest.mark.django_db
def test_bad_sign_ups_and_logins_get_clear_errors() -> None:
    client = Client()
    User.objects.create_user("taken", password=PASSWORD)
    cases = [
        ({"username": "taken", "password1": PASSWORD, "password2": PASSWORD}, "already exists"),
        ({"username": "new", "password1": PASSWORD, "password2": PASSWORD + "x"}, "didn’t match"),
        ({"username": "new", "password1": "123", "password2": "123"}, "too short"),
    ]
    for data, message in cases:
        response = client.post("/accounts/signup/", data)
        assert response.status_code == 400 and message in response.content.decode()
    wrong = client.post("/accounts/login/", {"username": "taken", "password": "nope"})
    assert wrong.status_code == 200 and "correct username and password" in wrong.content.decode()
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_change_password(client) -> None:
    sign_up(client, "lee")
    assert client.get("/accounts/password/").status_code == 200
    new = "another Go proverb 9x9"
    data = {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    response = client.post("/accounts/password/", data)
    assert response.status_code == 302 and response["Location"] == "/accounts/password/done/"
    assert client.get("/games").status_code == 200  # still logged in
    assert User.objects.get(username="lee").check_password(new)
    assert Client().get("/accounts/password/")["Location"].startswith("/accounts/login/")


@pytest.mark.django_db
def test_nobody_plays_deletes_or_downloads_another_accounts_game(client) -> None:
    owner = sign_up(client, "owner")
    game = new_game(client)
    other = Client()
    sign_up(other, "other")
    for url in (f"/game/{game.pk}/", f"/game/{game.pk}/review", f"/game/{game.pk}/sgf"):
        response = other.get(url)
        assert response.status_code == 403 and b"This game belongs to another account." in response.content
        assert Client().get(url).status_code == 403  # nor an anonymous visitor
    for action in ("delete", "share", "unshare"):
        assert other.post(f"/game/{game.pk}/{action}").status_code == 403
    assert Game.objects.get(pk=game.pk).user == owner and game.share_token is None
    with pytest.raises(PermissionError, match="another account"):
        games.owned_game(game.pk, Requester(owner.pk + 1, client.session.session_key))
    assert games.owned_game(game.pk, Requester(owner.pk, None)) == game  # the account, from any browser


@pytest.mark.django_db
def test_my_games_filters_and_pages(client) -> None:
    sign_up(client, "filter")
    user = User.objects.get()
    for k in range(23):
        game = make_game("s", user_id=user.pk)
        game.result = ("B+R", "W+3.5", "")[k % 3]
        game.save()
    reviewed = upload(client)
    Game.objects.filter(pk=reviewed.pk).update(updated=datetime.datetime(2020, 5, 1, tzinfo=datetime.UTC))

    def listed(query: str) -> tuple[int, list[Game]]:
        response = client.get("/games" + query)
        return response.status_code, list(response.context["games"])

    status, first = listed("")
    assert status == 200 and len(first) == 20
    second = listed("?page=2")[1]
    assert len(second) == 4 and not set(first) & set(second)
    assert listed("?kind=review")[1] == [reviewed]
    assert len(listed("?kind=play")[1]) == 20
    assert all(g.result.startswith("W+") for g in listed("?result=W")[1])
    assert len(listed("?result=none&kind=play")[1]) == 7
    Game.objects.filter(pk=first[0].pk).update(result="0")  # SGF's draw
    assert [g.pk for g in listed("?result=draw")[1]] == [first[0].pk]
    assert listed("?until=2020-12-31")[1] == [reviewed]
    assert reviewed not in listed("?since=2021-01-01")[1]
    page = client.get("/games?kind=play&page=1").content.decode()
    assert 'href="?kind=play&amp;page=2"' in page  # the page links keep the filter
    bad = client.get("/games?since=2022-01-01&until=2021-01-01")
    assert bad.status_code == 400
    assert "the &#x27;from&#x27; date is after the &#x27;to&#x27; date" in bad.content.decode()
    assert client.get("/games?kind=chess").status_code == 400
    assert listed("?page=999")[0] == 200  # past the end: the last page


@pytest.mark.django_db
def test_a_share_link_opens_the_review_read_only_for_anyone(client) -> None:
    game = upload(client)
    review = client.get(f"/game/{game.pk}/review").content.decode()
    assert 'id="share"' in review and "share-link" not in review
    assert client.post(f"/game/{game.pk}/share").status_code == 302
    token = Game.objects.get(pk=game.pk).share_token
    assert token and len(token) >= 20
    review = client.get(f"/game/{game.pk}/review").content.decode()
    assert f'value="http://testserver/shared/{token}"' in review
    client.post(f"/game/{game.pk}/share")
    assert Game.objects.get(pk=game.pk).share_token == token  # sharing again keeps the link

    anyone = Client()
    shared = anyone.get(f"/shared/{token}")
    page = shared.content.decode()
    assert shared.status_code == 200 and shared.context["timeline"]["moves"][0] == ["B", "E5"]
    assert f'data-socket="/ws/shared/{token}/"' in page and 'data-read-only="true"' in page
    assert 'id="analyze-game"' not in page and "/sgf" not in page and 'id="share"' not in page
    assert anyone.session.session_key  # the viewer's analyses count against a session of its own
    assert anyone.get(f"/game/{game.pk}/review").status_code == 403  # the link opens nothing else
    assert anyone.get(f"/game/{game.pk}/sgf").status_code == 403

    client.post(f"/game/{game.pk}/unshare")
    assert anyone.get(f"/shared/{token}").status_code == 404
    assert anyone.get("/shared/").status_code == 404


@pytest.mark.django_db
def test_staff_use_the_admin() -> None:
    staff = Client()
    User.objects.create_user("staff", password=PASSWORD, is_staff=True, is_superuser=True)
    staff.login(username="staff", password=PASSWORD)
    game = make_game("s")
    Analysis.objects.create(game=game)
    for url in ("/admin/", "/admin/frontend/game/", f"/admin/frontend/game/{game.pk}/change/",
                "/admin/frontend/analysis/", "/admin/frontend/job/", "/admin/auth/user/"):  # fmt: skip
        assert staff.get(url).status_code == 200, url
    assert 'href="/admin/"' in staff.get("/").content.decode()
    player = Client()
    sign_up(player, "player")
    assert player.get("/admin/frontend/game/").status_code == 302  # to the admin's login
    assert 'href="/admin/"' not in player.get("/").content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_shared_board_socket_shows_and_analyses_but_changes_nothing(settings) -> None:
    settings.GOWEB_REVIEW_VISITS = 4
    key = new_session()
    game = make_game(key)
    game.sgf, game.kind, game.share_token = REVIEW_SGF, Game.Kind.REVIEW, "a-shared-review-token"
    game.save()
    Analysis.objects.create(game=game, status="done", total=4, results=[])

    async def scenario() -> None:
        from channels.testing import WebsocketCommunicator

        from goweb.asgi import application

        viewer = WebsocketCommunicator(application, "/ws/shared/a-shared-review-token/", headers=[ORIGIN])
        assert (await viewer.connect())[0]
        state = await viewer.receive_json_from(timeout=5)
        assert state["type"] == "state" and state["move_number"] == 3
        assert (await viewer.receive_json_from(timeout=5))["type"] == "analysis_state"
        for message in ({"type": "play", "move": "A1"}, {"type": "analyze_game"}, {"type": "cancel_analysis"},
                        {"type": "undo"}, {"type": "resign"}):  # fmt: skip
            await viewer.send_json_to(message)
            refused = await viewer.receive_json_from(timeout=5)
            assert refused == {
                "type": "error",
                "message": f"this shared review is read-only: {message['type']!r} is not allowed",
            }
        await viewer.send_json_to({"type": "analyze", "move_number": 2})
        answer = await receive_until(viewer, lambda m: m["type"] == "analysis")
        assert answer["move_number"] == 2
        plane = {"type": "features", "move_number": 1, "set": "golois", "plane": "their stones"}
        await viewer.send_json_to(plane)
        assert (await receive_until(viewer, lambda m: m["type"] == "features"))["values"][40] == 1.0
        owner = await connect(game.pk, key)  # the owner's changes reach the viewer
        await receive_until(owner, lambda m: m["type"] == "state")
        await owner.send_json_to({"type": "analyze_game"})
        await receive_until(viewer, lambda m: m["type"] == "progress", timeout=30)
        await receive_until(owner, lambda m: m["type"] == "analysis_done", timeout=60)
        await dispatch.wait_idle()
        await owner.disconnect()
        await viewer.disconnect()

        wrong = WebsocketCommunicator(application, "/ws/shared/not-a-token/", headers=[ORIGIN])
        assert (await wrong.connect())[0]
        refused = await wrong.receive_json_from(timeout=5)
        assert refused["message"].startswith("this share link is not valid")
        assert (await wrong.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4404}

    try:
        asyncio.run(scenario())
    finally:
        forget_thread_connection()
    game.refresh_from_db()
    assert game.sgf == REVIEW_SGF


@pytest.mark.django_db(transaction=True)
def test_another_account_cannot_use_the_board_socket(client) -> None:
    sign_up(client, "mine")
    game = new_game(client)
    other = Client()
    sign_up(other, "theirs")

    async def scenario() -> None:
        for key in (other.session.session_key, None):
            ws = await connect(game.pk, key)
            reply = await ws.receive_json_from(timeout=5)
            assert reply == {"type": "error", "message": "this game belongs to another account"}
            assert (await ws.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4403}
        ws = await connect(game.pk, client.session.session_key)
        assert (await ws.receive_json_from(timeout=5))["type"] == "state"  # the account's own session
        await ws.disconnect()

    try:
        asyncio.run(scenario())
    finally:
        forget_thread_connection()


@pytest.mark.django_db
def test_a_withdrawn_share_link_says_so(client, settings) -> None:
    settings.DEBUG = False
    response = Client().get("/shared/no-such-token")
    assert response.status_code == 404
    assert "This share link is not valid (the owner may have withdrawn it)." in response.content.decode()


WITHDRAWN = "this share link is not valid (the owner may have withdrawn it)"


def shared_review(key: str, token: str) -> Game:
    """Return a review game of the session ``key`` shared with ``token``."""
    game = make_game(key)
    game.sgf, game.kind, game.share_token = REVIEW_SGF, Game.Kind.REVIEW, token
    game.save()
    return game


async def open_shared(token: str):
    """Open the share link's socket and read its state."""
    from channels.testing import WebsocketCommunicator

    from goweb.asgi import application

    viewer = WebsocketCommunicator(application, f"/ws/shared/{token}/", headers=[ORIGIN])
    assert (await viewer.connect())[0]
    assert (await viewer.receive_json_from(timeout=5))["type"] == "state"
    return viewer


@pytest.mark.django_db(transaction=True)
def test_withdrawing_a_share_link_closes_the_sockets_open_on_it() -> None:
    """Issue 35, item 8: a socket opened before the link was withdrawn went on answering."""
    key = new_session()
    game = shared_review(key, "a-link-to-withdraw")
    owner = Client()
    owner.cookies["sessionid"] = key

    async def scenario() -> tuple[dict, dict]:
        viewer = await open_shared("a-link-to-withdraw")
        response = await sync_to_async(owner.post)(f"/game/{game.pk}/unshare")
        assert response.status_code == 302
        told = await viewer.receive_json_from(timeout=5)
        return told, await viewer.receive_output(timeout=5)

    try:
        told, closed = asyncio.run(scenario())
    finally:
        forget_thread_connection()
    assert told == {"type": "error", "message": WITHDRAWN}
    assert closed == {"type": "websocket.close", "code": 4404}


@pytest.mark.django_db(transaction=True)
def test_each_message_on_a_share_socket_checks_that_the_link_still_stands(settings) -> None:
    """A link withdrawn without its sockets being told (by another process, or while one opened)
    answers nothing more: the next message gets the error and the socket closes."""
    settings.GOWEB_REVIEW_VISITS = 4
    game = shared_review(new_session(), "a-link-withdrawn-elsewhere")

    async def scenario() -> tuple[dict, dict]:
        viewer = await open_shared("a-link-withdrawn-elsewhere")
        await Game.objects.filter(pk=game.pk).aupdate(share_token=None)
        await viewer.send_json_to({"type": "analyze", "move_number": 2})
        told = await viewer.receive_json_from(timeout=5)
        closed = await viewer.receive_output(timeout=5)
        await dispatch.wait_idle()
        return told, closed

    try:
        told, closed = asyncio.run(scenario())
    finally:
        forget_thread_connection()
    assert told == {"type": "error", "message": WITHDRAWN}
    assert closed == {"type": "websocket.close", "code": 4404}


@pytest.mark.django_db
def test_a_withdrawn_share_link_gets_the_sites_plain_page_even_on_the_development_server(settings) -> None:
    settings.DEBUG = True
    response = Client().get("/shared/no-such-token")
    page = response.content.decode()
    assert response.status_code == 404
    assert "This share link is not valid (the owner may have withdrawn it)." in page
    assert 'class="site-header"' in page and "URLconf" not in page  # not Django's technical 404


@pytest.mark.django_db
def test_get_logout_shows_a_logout_button_and_its_post_logs_out(client) -> None:
    assert "You are not logged in." in client.get("/accounts/logout/").content.decode()
    sign_up(client, "lin")
    page = client.get("/accounts/logout/")
    html = page.content.decode()
    assert page.status_code == 200 and "You are logged in as lin." in html
    assert '<form method="post" action="/accounts/logout/"' in html and 'name="csrfmiddlewaretoken"' in html
    assert client.get("/games").wsgi_request.user.is_authenticated  # a GET logs nobody out
    assert client.post("/accounts/logout/")["Location"] == "/"
    assert not client.get("/games").wsgi_request.user.is_authenticated


@pytest.mark.django_db
def test_the_headers_log_in_link_comes_back_to_the_page_it_was_on(client) -> None:
    game = upload(client)
    stranger = Client()
    page = client.get(f"/game/{game.pk}/review?move=2").content.decode()
    assert f'<a href="/accounts/login/?next=/game/{game.pk}/review%3Fmove%3D2">Log in</a>' in page
    assert '<a href="/accounts/login/">Log in</a>' in stranger.get("/accounts/signup/").content.decode()
    User.objects.create_user("grace", password=PASSWORD)
    response = stranger.post(f"/accounts/login/?next=/game/{game.pk}/review",
                             {"username": "grace", "password": PASSWORD, "next": f"/game/{game.pk}/review"})
    assert response["Location"] == f"/game/{game.pk}/review"
    evil = Client().post("/accounts/login/", {"username": "grace", "password": PASSWORD,
                                              "next": "https://evil.example/"})
    assert evil["Location"] == "/games"  # Django's login checks the page is the site's own


@pytest.mark.django_db
def test_an_anonymous_visitor_refused_a_game_is_offered_to_log_in_to_it(client) -> None:
    sign_up(client, "owner")
    game = new_game(client)
    refused = Client().get(f"/game/{game.pk}/review")
    assert refused.status_code == 403
    link = f'href="/accounts/login/?next=/game/{game.pk}/review" id="login-to-open"'
    assert link in refused.content.decode()
    other = Client()
    sign_up(other, "other")
    assert b"login-to-open" not in other.get(f"/game/{game.pk}/review").content  # logged in already
