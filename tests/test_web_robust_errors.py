"""Error pages and their logs with DEBUG off: a server error is logged with its traceback and gets the
site's own page; a page not found says so in words; the API's 405 names the methods allowed; a
session cookie no key of Django's could be is no session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import include, path

from frontend.sessions import SessionStore, valid_key

ROOT = Path(__file__).resolve().parent.parent


def boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a fault of the view, for the test")


def not_there(request: HttpRequest) -> HttpResponse:
    raise Http404


urlpatterns = [  # the site's routes, and views that fail (this module as ROOT_URLCONF)
    path("test-boom", boom),
    path("test-bare-404", not_there),
    path("", include("goweb.urls")),
]
THIS_URLCONF = __name__


@pytest.mark.django_db
@pytest.mark.urls(THIS_URLCONF)
def test_a_server_error_with_debug_off_gets_the_sites_own_page(client, settings) -> None:
    settings.DEBUG = False
    client.raise_request_exception = False
    response = client.get("/test-boom")
    page = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Server error</h1>" in page and "The server logged it." in page
    assert '<link rel="stylesheet" href="/static/frontend/site.css">' in page
    assert "default-src 'self'" in response["Content-Security-Policy"]  # the site's CSS, allowed
    assert "a fault of the view" not in page  # the traceback is for the log, not the visitor


LOGGED = """
import logging, django
django.setup()
from django.conf import settings
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
settings.ROOT_URLCONF = "tests.test_web_robust_errors"
response = Client(raise_request_exception=False).get("/test-boom")
print(response.status_code)
logging.getLogger("frontend.consumers").error("an app's error, for the test")
"""


@pytest.mark.parametrize("debug", ["0", "1"])
def test_a_server_errors_traceback_and_the_apps_errors_go_to_standard_error(tmp_path: Path,
                                                                            debug: str) -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "goweb.settings", "GOWEB_ENV": "development",
           "DJANGO_DEBUG": debug, "GOWEB_SQLITE_PATH": str(tmp_path / "db.sqlite3")}
    done = subprocess.run([sys.executable, "-c", LOGGED], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "500"
    assert "ERROR django.request" in done.stderr and "Internal Server Error: /test-boom" in done.stderr
    assert "Traceback (most recent call last)" in done.stderr
    assert "RuntimeError: a fault of the view, for the test" in done.stderr
    assert "ERROR frontend.consumers" in done.stderr and "an app's error, for the test" in done.stderr
    assert done.stderr.count("Internal Server Error: /test-boom") == 1  # once, not once per handler


@pytest.mark.django_db
@pytest.mark.urls(THIS_URLCONF)
@pytest.mark.parametrize("url", ["/no-such-page", "/game/1/nope", "/test-bare-404"])
def test_a_page_not_found_says_so_in_words_not_the_exceptions_name(client, settings, url: str) -> None:
    settings.DEBUG = False
    response = client.get(url)
    page = response.content.decode()
    assert response.status_code == 404
    assert '<p class="errors">There is no such page.</p>' in page
    assert "Resolver404" not in page and "Http404" not in page


@pytest.mark.django_db
def test_a_views_own_not_found_message_is_kept(client, settings) -> None:
    settings.DEBUG = False
    response = client.get("/game/99999/")
    assert response.status_code == 404
    assert '<p class="errors">There is no game 99999.</p>' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("method", "url", "allow", "message"), [
    ("post", "/api/networks", "GET, HEAD", "method not allowed: use GET or HEAD"),
    ("put", "/api/networks", "GET, HEAD", "method not allowed: use GET or HEAD"),
    ("get", "/api/analyze", "POST", "method not allowed: use POST"),
])
def test_the_apis_405_names_the_methods_its_allow_header_names(client, method: str, url: str, allow: str,
                                                               message: str) -> None:
    response = getattr(client, method)(url)
    assert (response.status_code, response["Allow"]) == (405, allow)
    assert response.json() == {"error": message}


@pytest.mark.parametrize("key", ["\x00abcdefghij", "abcdefgh\x00", "ABCDEFGHIJ", "abc-defghij", "a" * 41,
                                 "abcdefg", "", "abcdefgh ", "ünïcodé12"])
def test_a_session_key_django_could_not_have_made_is_no_session(key: str) -> None:
    assert not valid_key(key)
    assert SessionStore(key).session_key is None  # never looked up: a new session if one is saved


@pytest.mark.django_db
def test_a_session_key_of_djangos_form_still_opens_its_session() -> None:
    store = SessionStore()
    store["kept"] = 1
    store.create()
    assert valid_key(store.session_key) and len(store.session_key) == 32
    assert SessionStore(store.session_key).load()["kept"] == 1


@pytest.mark.django_db
def test_a_nul_session_cookie_gets_the_page_and_a_new_session(client) -> None:
    client.cookies["sessionid"] = "\x00abcdefghij"
    response = client.post("/new", {"human_color": "B", "size": 9, "komi": 7.5, "handicap": 0,
                                    "rules": "chinese", "bot_level": "rules"})
    assert response.status_code == 302
    assert valid_key(response.cookies["sessionid"].value)
