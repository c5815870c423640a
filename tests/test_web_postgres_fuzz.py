"""Fuzzing the site on PostgreSQL (issue 35): mutated SGF uploads and pastes, and share tokens with odd
bytes, never get a 5xx.

PostgreSQL refuses what SQLite takes (a NUL in a text value or a query), so these tests run daphne
with DEBUG off on a database of their own, ``goweb_test_fuzz_<pid>``, made on the PostgreSQL server
at ``GOWEB_TEST_POSTGRES`` (default ``postgres://postgres@127.0.0.1:5432``, as in CI) and dropped
at the end.  The mutations are seeded: every run sends the same requests.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import os
import random
import re
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote_from_bytes

import psycopg
import pytest
import websockets

from tests.daphne_site import served

ROOT = Path(__file__).resolve().parent.parent
SGF_DIR = ROOT / "tests" / "data" / "sgf"
SERVER = os.environ.get("GOWEB_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432")
DATABASE = f"goweb_test_fuzz_{os.getpid()}"
CSRF = "fuzzcsrf" * 4  # a CSRF secret of the form Django's cookie takes (32 letters)
SEED = 35


def admin() -> psycopg.Connection:
    """Return an autocommit connection to the server's ``postgres`` database."""
    return psycopg.connect(f"{SERVER}/postgres", autocommit=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Return the URL of daphne (DEBUG off, upload rate limit off) on a fresh PostgreSQL database."""
    directory = tmp_path_factory.mktemp("postgres-fuzz")
    with admin() as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{DATABASE}"')
        connection.execute(f'CREATE DATABASE "{DATABASE}"')
    env = {**os.environ, "DATABASE_URL": f"{SERVER}/{DATABASE}", "GOWEB_ENV": "development",
           "DJANGO_DEBUG": "0", "GOWEB_UPLOAD_RATE_LIMIT": "0"}
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "DJANGO_ALLOWED_HOSTS"):
        env.pop(name, None)
    try:
        migrate = [sys.executable, "manage.py", "migrate", "--noinput", "-v0"]
        migrated = subprocess.run(migrate, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert migrated.returncode == 0, migrated.stderr
        with served(env, directory / "daphne.log") as url:
            yield url
    finally:
        with admin() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


class Browser:
    """One visitor: cookies kept (CSRF and session), redirects not followed."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.jar.set_cookie(http.cookiejar.Cookie(
            version=0, name="csrftoken", value=CSRF, port=None, port_specified=False, domain="127.0.0.1",
            domain_specified=False, domain_initial_dot=False, path="/", path_specified=True, secure=False,
            expires=None, discard=False, comment=None, comment_url=None, rest={}))
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def request(self, path: str, body: bytes | None = None, content_type: str | None = None
                ) -> tuple[int, dict[str, str], bytes]:
        """Send GET (or POST ``body``) to ``path`` as the site's own form does; return the status,
        headers and body."""
        headers = {"Origin": self.url}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.url + path, data=body, headers=headers)
        try:
            with self.opener.open(request, timeout=60) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def send_sgf(self, data: bytes, how: str) -> tuple[int, dict[str, str], bytes]:
        """POST ``data`` to the upload form as a file (``how="file"``) or as pasted text."""
        boundary = uuid.uuid4().hex
        field = {"file": b'name="file"; filename="fuzz.sgf"\r\nContent-Type: application/x-go-sgf',
                 "text": b'name="text"'}[how]
        part = f"--{boundary}\r\nContent-Disposition: form-data; ".encode()
        body = b"".join([part, b'name="csrfmiddlewaretoken"\r\n\r\n', CSRF.encode(), b"\r\n",
                         part, field, b"\r\n\r\n", data, b"\r\n", f"--{boundary}--\r\n".encode()])
        return self.request("/review", body, f"multipart/form-data; boundary={boundary}")


HOSTILE = [  # the issue's own inputs
    b"(;GM[1]FF[4]CA[UTF-16]SZ[9];B[ee])",
    b"(;GM[1]FF[4]CA[cp037]SZ[9];B[ee])",
    b"(;GM[1]FF[4]CA[rot13]SZ[9];B[ee])",
    b"(;GM[1]FF[4]CA[base64]SZ[9];B[ee])",
    b"(;GM[1]FF[4]CA[zlib_codec]SZ[9];B[ee])",
    b"(;GM[1]FF[4]SZ[19]" + b" " * 5000 + b"PB[\x00];B[dd])",
    b"(;GM[1]CA[unicode_escape]SZ[9]PB[\\u0000]C[\\ud800];B[ee])",
    b"(;GM[1]CA[utf-7]SZ[9]PB[+AAA-];B[ee])",
]
CODECS = ["UTF-16", "utf-16-le", "utf-32", "cp037", "rot13", "base64", "zlib_codec", "hex", "unicode_escape",
          "utf-7", "idna", "punycode", "undefined", "no-such", "GB2312", "Shift_JIS", "EUC-KR", "latin-1", ""]
ODD_BYTES = [b"\x00", b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xef\xbb\xbf",
             b"\\", b"]", b"[", b";", b"(", b")", b":", b"\\u0000", b"\\x00", b"+AAA-", b"\r", b"\x1b"]


def mutate(rng: random.Random, data: bytes) -> bytes:
    """Return ``data`` changed by one to three random edits: odd bytes inserted, a false CA, bytes
    flipped, cut or repeated, a value repeated many times, the end cut off."""
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) + 1)
        edit = rng.randrange(7)
        if edit == 0:
            data = data[:at] + rng.choice(ODD_BYTES) + data[at:]
        elif edit == 1:
            data = data.replace(b"(;", b"(;CA[" + rng.choice(CODECS).encode() + b"]", 1)
        elif edit == 2 and data:
            data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1:]
        elif edit == 3:
            data = data[:at] + data[at + rng.randint(1, 40):]
        elif edit == 4:
            data = data[:at] + data[at:at + rng.randint(1, 30)] * rng.randint(2, 3000) + data[at:]
        elif edit == 5:
            value = rng.choice([b"AB[aa:ss]", b";B[];W[]", b"XX[a]", b"C[\x00]", b";B[dd]", b"(;B[cc])"])
            data = data[:at] + value * rng.choice([10, 1500, 12_000]) + data[at:]
        else:
            data = data[:at]
    return data


def fuzz_cases(count: int) -> list[tuple[bytes, str]]:
    """Return ``count`` seeded (SGF bytes, "file" or "text") cases after the issue's own inputs."""
    rng = random.Random(SEED)
    seeds = [path.read_bytes() for path in sorted(SGF_DIR.glob("*.sgf"))]
    cases = [(data, how) for data in HOSTILE for how in ("file", "text")]
    cases += [(mutate(rng, rng.choice(seeds)), rng.choice(["file", "text"])) for _ in range(count)]
    return cases


def test_fuzzed_uploads_and_pastes_never_get_a_5xx_on_postgresql(site: str) -> None:
    browser = Browser(site)
    outcomes: dict[int, int] = {}
    failures = []
    for number, (data, how) in enumerate(fuzz_cases(240)):
        status, headers, body = browser.send_sgf(data, how)
        outcomes[status] = outcomes.get(status, 0) + 1
        if status == 302:  # stored: its review must open too
            status, _, body = browser.request(headers["Location"])
        if status >= 500 or status not in (200, 302, 400, 413):
            failures.append((number, how, status, data[:120], body[-300:]))
    assert not failures, failures
    assert outcomes.get(302, 0) > 20 and outcomes.get(400, 0) > 20, outcomes  # both sides were reached


def test_sgf_over_the_size_limits_gets_a_4xx_saying_the_limit_on_postgresql(site: str) -> None:
    browser = Browser(site)
    status, _, body = browser.send_sgf(b"(;C[" + b"x" * 3_000_000 + b"])", "text")
    assert status == 413 and b"the request is larger than the limit of 2097152 bytes" in body
    status, _, body = browser.send_sgf(b"(;C[" + b"x" * 600_000 + b"])", "file")
    assert status == 400 and b"the limit is 524288 bytes" in body


def test_numbers_past_postgresqls_integers_get_a_4xx_or_are_left_out_never_a_5xx(site: str) -> None:
    browser = Browser(site)
    status, _, body = browser.send_sgf(b"(;GM[1]FF[4]SZ[9]HA[40000];B[ee])", "text")  # a smallint
    assert status == 400 and b"bad HA value" in body
    analysed = (b"(;GM[1]FF[4]SZ[9]SBKV[50]C[Black win rate: 50.0% (3000000000 visits)];B[ee]SBKV[55]"
                b"C[Played E5: policy rank " + b"9" * 5000 + b"];W[cc])")
    status, headers, _ = browser.send_sgf(analysed, "file")
    assert status == 302
    status, _, body = browser.request(headers["Location"])
    assert status == 200


def test_a_board_message_naming_a_network_with_a_nul_is_answered_and_the_socket_stays_open(site: str) -> None:
    browser = Browser(site)
    status, headers, _ = browser.send_sgf(b"(;GM[1]FF[4]SZ[9];B[ee];W[cc])", "text")
    assert status == 302
    game = re.fullmatch(r"/game/(\d+)/review", headers["Location"]).group(1)
    cookie = "; ".join(f"{c.name}={c.value}" for c in browser.jar)
    messages = [{"type": "analyze", "move_number": 0, "backpred": False, "backpred_network": "\x00"},
                {"type": "analyze", "move_number": 1, "backpred": True, "backpred_network": "\x00"},
                {"type": "ping"}]

    async def talk() -> list[dict]:
        uri = site.replace("http://", "ws://") + f"/ws/board/{game}/"
        async with websockets.connect(uri, origin=site, additional_headers={"Cookie": cookie},
                                      open_timeout=10) as socket:
            for message in messages:
                await socket.send(json.dumps(message))
            replies = []
            while not replies or replies[-1]["type"] != "pong":
                replies.append(json.loads(await asyncio.wait_for(socket.recv(), 30)))
            return replies

    replies = asyncio.run(talk())
    errors = [reply["message"] for reply in replies if reply["type"] == "error"]
    assert len(errors) == 1 and errors[0].startswith("unknown back-prediction network '\\x00'"), errors


TOKENS = [b"\x00", b"a\x00b", b"\x00" * 40, b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"x" * 33, b"x" * 4000,
          b"\x00" + b"x" * 21, b"..", b"%", b" ", b"\xe2\x80\xae", b"'; DROP TABLE frontend_game; --"]


def test_share_tokens_with_odd_bytes_get_404_on_postgresql(site: str) -> None:
    browser = Browser(site)
    rng = random.Random(SEED)
    tokens = TOKENS + [bytes(rng.randrange(256) for _ in range(rng.randint(1, 64))) for _ in range(60)]
    answers = {token: browser.request("/shared/" + quote_from_bytes(token, safe=""))[0] for token in tokens}
    assert {token: status for token, status in answers.items() if status != 404} == {}


@pytest.mark.parametrize("token", [b"\x00", b"a\x00b", b"\xff", b"x" * 4000])
def test_the_share_socket_with_an_odd_token_closes_with_4404_saying_why(site: str, token: bytes) -> None:
    async def talk() -> tuple[dict, int | None]:
        path = "/ws/shared/" + quote_from_bytes(token, safe="") + "/"
        uri = site.replace("http://", "ws://") + path
        async with websockets.connect(uri, origin=site, open_timeout=10) as socket:
            message = json.loads(await asyncio.wait_for(socket.recv(), 10))
            await asyncio.wait_for(socket.wait_closed(), 10)
            return message, socket.close_code

    message, code = asyncio.run(talk())
    assert message["type"] == "error" and message["message"].startswith("this share link is not valid")
    assert code == 4404


NUL_SESSION = 'sessionid="\\000abcdefghij"'  # Django's cookie parser reads \000 as a NUL


@pytest.mark.parametrize("path", ["/", "/games", "/review", "/accounts/login/"])
def test_a_session_cookie_holding_a_nul_is_no_session_on_postgresql(site: str, path: str) -> None:
    request = urllib.request.Request(site + path, headers={"Cookie": NUL_SESSION})
    with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
        assert response.status == 200
        new_session = [value for name, value in response.headers.items() if name == "Set-Cookie"]
    assert not any("\x00" in cookie for cookie in new_session)


def test_a_session_cookie_holding_a_nul_opens_the_socket_as_a_new_session_on_postgresql(site: str) -> None:
    browser = Browser(site)
    status, headers, _ = browser.send_sgf(b"(;GM[1]FF[4]SZ[9];B[ee])", "text")
    assert status == 302
    game = re.fullmatch(r"/game/(\d+)/review", headers["Location"]).group(1)

    async def talk(path: str) -> tuple[dict, int | None]:
        uri = site.replace("http://", "ws://") + path
        async with websockets.connect(uri, origin=site, additional_headers={"Cookie": NUL_SESSION},
                                      open_timeout=10) as socket:
            message = json.loads(await asyncio.wait_for(socket.recv(), 10))
            await asyncio.wait_for(socket.wait_closed(), 10)
            return message, socket.close_code

    message, code = asyncio.run(talk(f"/ws/board/{game}/"))  # someone else's game: refused as for anyone
    assert (message, code) == ({"type": "error", "message": "this game belongs to another session"}, 4403)

    async def ping() -> dict:
        uri = site.replace("http://", "ws://") + "/ws/ping/"
        async with websockets.connect(uri, origin=site, additional_headers={"Cookie": NUL_SESSION},
                                      open_timeout=10) as socket:
            await socket.send(json.dumps({"type": "ping"}))
            return json.loads(await asyncio.wait_for(socket.recv(), 10))

    assert asyncio.run(ping()) == {"type": "pong"}
