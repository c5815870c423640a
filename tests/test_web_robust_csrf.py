"""A form refused by the CSRF check (the session changed in another tab) gets the site's own page,
which says what happened and shows back what was entered: nothing typed or pasted is lost."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils.html import escape

from frontend.models import Game

pytestmark = pytest.mark.django_db

PASSWORD = "a long Go proverb 19x19"
SGF = "(;GM[1]FF[4]SZ[9]PB[Ada & <Bob>]C[\nfirst line\n];B[ee];W[cc])"


def form_token(page) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode()).group(1)


def test_a_paste_refused_after_a_log_in_in_another_tab_is_shown_back_and_can_be_sent_again() -> None:
    User.objects.create_user("grace", password=PASSWORD)
    browser = Client(enforce_csrf_checks=True)
    stale = form_token(browser.get("/review"))  # the upload page, open in one tab
    login = browser.get("/accounts/login/")  # another tab logs in: the CSRF token changes
    assert browser.post("/accounts/login/", {"username": "grace", "password": PASSWORD,
                                             "csrfmiddlewaretoken": form_token(login)}).status_code == 302

    refused = browser.post("/review", {"text": SGF, "csrfmiddlewaretoken": stale},
                           HTTP_REFERER="http://testserver/review")
    page = refused.content.decode()
    assert refused.status_code == 403 and not Game.objects.exists()
    assert "<h1>Form not accepted</h1>" in page and "Your session changed since this page was loaded" in page
    assert '<a href="http://testserver/review" id="reload">Reload the page</a>' in page
    assert f'readonly rows="3">\n{escape(SGF)}</textarea>' in page  # every character, to copy
    assert stale not in page  # the token is not shown back
    assert '<link rel="stylesheet" href="/static/frontend/site.css">' in page  # the site's page
    assert "default-src 'self'" in refused["Content-Security-Policy"]
    assert "CSRF token" in page  # Django's reason, in small print

    again = browser.post("/review", {"text": SGF, "csrfmiddlewaretoken": form_token(browser.get("/review"))})
    assert again.status_code == 302 and Game.objects.get().user.username == "grace"


def test_passwords_are_not_shown_back_and_a_file_is_named_to_choose_again() -> None:
    browser = Client(enforce_csrf_checks=True)
    refused = browser.post("/accounts/login/", {"username": "ada", "password": "secret words 123"},
                           HTTP_REFERER="http://testserver/accounts/login/")
    page = refused.content.decode()
    assert refused.status_code == 403 and "ada</textarea>" in page and "secret words" not in page
    sent = browser.post("/review", {"file": SimpleUploadedFile("game.sgf", SGF.encode())},
                        HTTP_REFERER="http://testserver/review")
    page = sent.content.decode()
    assert sent.status_code == 403 and "The file game.sgf was not kept: choose it again." in page
    assert "<textarea" not in page


@pytest.mark.parametrize("referer", ["https://evil.example/x", None])
def test_a_form_from_another_site_or_from_nowhere_gets_neither_its_page_nor_its_text_shown(referer) -> None:
    headers = {"HTTP_REFERER": referer} if referer else {}
    refused = Client(enforce_csrf_checks=True).post("/review", {"text": SGF}, **headers)
    page = refused.content.decode()
    assert refused.status_code == 403 and '<a href="/review" id="reload">' in page  # the form's own URL
    assert "<textarea" not in page and "first line" not in page  # no text shown under the site's name


def test_a_refused_body_too_large_to_read_gets_the_page_without_its_fields(settings) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    refused = Client(enforce_csrf_checks=True).post("/review", {"text": "x" * 5000})
    page = refused.content.decode()
    assert refused.status_code == 403 and "<h1>Form not accepted</h1>" in page and "x" * 100 not in page
