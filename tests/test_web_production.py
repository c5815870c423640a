"""Production mode (GOWEB_ENV=production): safe settings, the secret key, static files served by the
web process itself without DEBUG, the health check behind the TLS proxy, and JSON errors on the API."""

from __future__ import annotations

import gzip
import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import websockets.exceptions
import websockets.sync.client
from django.core.exceptions import ImproperlyConfigured
from websockets.exceptions import ConnectionClosed

from frontend.services import api
from goweb.envconfig import secret_key
from tests.daphne_site import served

ROOT = Path(__file__).resolve().parent.parent


def production_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Return an environment of production mode with a secret key file in ``tmp_path``."""
    env = {
        **os.environ,
        "GOWEB_ENV": "production",
        "GOWEB_SECRET_KEY_FILE": str(tmp_path / "secret_key"),
        "GOWEB_SQLITE_PATH": str(tmp_path / "site.sqlite3"),
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
        "DJANGO_ALLOWED_HOSTS": "go.example.com",
        **extra,
    }
    for name in ("DJANGO_DEBUG", "DJANGO_SECRET_KEY", "REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL"):
        env.pop(name, None)
    return env


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


SHOW = "from django.conf import settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
SHOW += "s.SECURE_SSL_REDIRECT, s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_SECONDS > 0)"


def test_production_turns_debug_off_and_secures_cookies_behind_the_tls_proxy(tmp_path: Path) -> None:
    shown = manage(production_env(tmp_path), "shell", "--no-imports", "-c", SHOW)
    assert shown.returncode == 0, shown.stderr
    proxy_header = ["('HTTP_X_FORWARDED_PROTO',", "'https')"]
    assert shown.stdout.split() == ["False", "True", "True", "True", *proxy_header, "True"]


def test_check_deploy_is_clean_with_production_settings(tmp_path: Path) -> None:
    checked = manage(production_env(tmp_path), "check", "--deploy", "--fail-level", "WARNING")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "no issues" in checked.stdout


def test_development_stays_the_default_for_make_run_and_the_tests(tmp_path: Path) -> None:
    env = production_env(tmp_path)
    env.pop("GOWEB_ENV")
    env.pop("GOWEB_SECRET_KEY_FILE")
    show = "from django.conf import settings as s; print(s.DEBUG, s.SECRET_KEY[:15])"
    shown = manage(env, "shell", "--no-imports", "-c", show)
    assert shown.stdout.split() == ["True", "django-insecure"]


def test_production_refuses_to_start_without_a_secret_key(tmp_path: Path) -> None:
    env = production_env(tmp_path)
    env.pop("GOWEB_SECRET_KEY_FILE")
    refused = manage(env, "check")
    assert refused.returncode != 0
    assert "GOWEB_ENV=production needs a secret key of its own" in refused.stderr
    unknown = manage({**env, "GOWEB_ENV": "staging"}, "check")
    assert "GOWEB_ENV='staging': use one of development, production" in unknown.stderr


def test_a_secret_key_file_is_made_on_first_start_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "secret_key"
    first = secret_key(None, path)
    assert len(first) >= 50 and not first.startswith("django-insecure")
    assert path.stat().st_mode & 0o777 == 0o600
    assert secret_key(None, path) == first  # kept across restarts
    assert secret_key("from-the-environment", path) == "from-the-environment"
    assert secret_key(None, None) is None
    assert list(path.parent.iterdir()) == [path]  # no draft left behind
    path.write_text("")
    with pytest.raises(ImproperlyConfigured, match="is empty"):
        secret_key(None, path)


RATE_WINDOW = 86400  # a day: the API's rate limit window never turns over within a test


@pytest.fixture(scope="module")
def production_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("production")


@pytest.fixture(scope="module")
def production_site(production_dir: Path) -> Iterator[str]:
    """daphne in production mode (DEBUG off) after collectstatic, as the compose file's web service."""
    directory = production_dir
    env = production_env(directory, GOWEB_API_RATE_WINDOW=str(RATE_WINDOW))
    for command in (("migrate", "--noinput", "-v0"), ("collectstatic", "--noinput", "-v0")):
        done = manage(env, *command)
        assert done.returncode == 0, done.stderr
    with served(env, directory / "daphne.log") as url:
        yield url


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """GET ``url`` as the TLS proxy forwards it (unless ``headers`` say otherwise), without following
    redirects; return the status, headers and body."""
    sent = {"Host": "go.example.com", "X-Forwarded-Proto": "https", **headers}
    request = urllib.request.Request(url, headers={k: v for k, v in sent.items() if v})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_production_serves_compressed_hashed_static_files_without_debug(
    production_site: str, production_dir: Path
) -> None:
    status, _, page = fetch(production_site + "/")
    assert status == 200
    stylesheet = re.search(rb'href="(/static/frontend/site\.[0-9a-f]{12}\.css)"', page)
    assert stylesheet, "the page links the stylesheet by its hashed name"
    gzipped = {"Accept-Encoding": "gzip"}
    status, headers, body = fetch(production_site + stylesheet.group(1).decode(), **gzipped)
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    assert b"--board" in gzip.decompress(body)
    assert "immutable" in headers["Cache-Control"]
    manifest = json.loads((production_dir / "static" / "staticfiles.json").read_text())
    status, _, board = fetch(production_site + "/static/" + manifest["paths"]["frontend/board.js"])
    imports = re.findall(rb'from "\./(js/[\w/-]+\.[0-9a-f]{12}\.js)"', board)
    source = (ROOT / "frontend" / "static" / "frontend" / "board.js").read_bytes()
    assert status == 200 and len(imports) == source.count(b'from "./js/')  # hashed names, every one
    for module in imports:
        assert fetch(f"{production_site}/static/frontend/{module.decode()}")[0] == 200


def test_the_health_check_answers_the_containers_probe_and_the_rest_wants_https(production_site: str) -> None:
    plain = {"X-Forwarded-Proto": ""}
    status, headers, body = fetch(production_site + "/healthz", Host="127.0.0.1:8000", **plain)
    assert status == 200 and b'"status": "ok"' in body
    status, headers, _ = fetch(production_site + "/games", **plain)
    assert status == 301 and headers["Location"] == "https://go.example.com/games"
    assert fetch(production_site + "/", Host="evil.example")[0] == 400
    status, headers, _ = fetch(production_site + "/")
    assert "max-age=31536000" in headers["Strict-Transport-Security"]


def test_a_too_large_api_request_gets_json_413_not_a_debug_page(production_site: str) -> None:
    body = b'{"moves": [' + b'["B", "D4"], ' * 250_000 + b"[]]}"  # 3.25 MB
    request = urllib.request.Request(
        production_site + "/api/analyze",
        data=body,
        headers={"Host": "go.example.com", "X-Forwarded-Proto": "https", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 413
    assert refused.value.headers["Content-Type"] == "application/json"
    assert refused.value.read() == b'{"error": "the request body is too large"}'


def refused_for_rate(site: str, forwarded_for: Callable[[int], str], requests: int = 70) -> int:
    """Send ``requests`` API queries as the TLS proxy forwards them, the ``i``-th with the
    ``X-Forwarded-For`` header ``forwarded_for(i)``; return how many got 429 (the others get 415:
    the body is not sent as JSON, so no query runs)."""
    refused = 0
    for i in range(requests):
        headers = {"Host": "go.example.com", "X-Forwarded-Proto": "https"}
        headers["X-Forwarded-For"] = forwarded_for(i)
        request = urllib.request.Request(site + "/api/analyze", data=b"{", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as failed:
            urllib.request.urlopen(request, timeout=10)
        assert failed.value.code in (415, 429)
        refused += failed.value.code == 429
    return refused


def test_a_spoofed_x_forwarded_for_is_rate_limited_like_the_proxys_own_entry(production_site: str) -> None:
    """The TLS proxy appends the address it saw; whatever the client put before it does not count."""
    assert refused_for_rate(production_site, lambda i: f"203.0.113.{i}, 198.51.100.8") == 10
    assert refused_for_rate(production_site, lambda i: "198.51.100.9") == 10


def socket_opens(site: str, origin: str) -> bool:
    """Return whether production daphne opens ``/ws/ping/`` for ``origin``, as the TLS proxy forwards
    the handshake."""
    sock = socket.create_connection(("127.0.0.1", int(site.rsplit(":", 1)[1])), timeout=10)
    proxied = {"X-Forwarded-Proto": "https"}
    try:
        with websockets.sync.client.connect("ws://go.example.com/ws/ping/", sock=sock, origin=origin,
                                            additional_headers=proxied, open_timeout=10) as ws:  # fmt: skip
            ws.send('{"type": "ping"}')
            return ws.recv(timeout=10) == '{"type": "pong"}'
    except websockets.exceptions.InvalidStatus as refused:
        assert refused.response.status_code == 403
        return False


def test_production_websockets_open_only_from_the_sites_own_origin(production_site: str) -> None:
    assert socket_opens(production_site, "https://go.example.com")
    for origin in ("http://go.example.com", "https://go.example.com:8443", "https://evil.example"):
        assert not socket_opens(production_site, origin), origin


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_api_errors_are_json_bodies(client, settings, monkeypatch, debug: bool) -> None:
    settings.DEBUG = debug
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = client.post("/api/analyze", {"moves": [["B", "D4"]] * 200}, content_type="application/json")
    assert (big.status_code, big.json()) == (413, {"error": "the request body is too large"})
    wrong = client.get("/api/analyze")
    assert (wrong.status_code, wrong["Allow"]) == (405, "POST")
    assert wrong.json() == {"error": "method not allowed: use POST"}
    missing = client.get("/api/nothing-here")
    assert (missing.status_code, missing.json()) == (404, {"error": "no such API endpoint"})

    def broken(query: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(api, "parse", broken)
    failed = client.post("/api/analyze", {}, content_type="application/json")
    assert (failed.status_code, failed.json()) == (500, {"error": "internal error; the server logged it"})
    assert client.get("/no-such-page").status_code == 404  # pages outside the API keep their HTML


def test_a_websocket_message_over_the_size_limit_gets_the_close_code_1009(production_site: str) -> None:
    """Issue 35, item 11: a frame over 1 MiB dropped the connection (1006) with no close frame."""
    sock = socket.create_connection(("127.0.0.1", int(production_site.rsplit(":", 1)[1])), timeout=10)
    proxied = {"X-Forwarded-Proto": "https"}  # as the TLS proxy forwards it: the site's own origin
    with websockets.sync.client.connect("ws://go.example.com/ws/ping/", sock=sock, origin="https://go.example.com",
                                        additional_headers=proxied, open_timeout=10) as ws:  # fmt: skip
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10)) == {"type": "pong"}
        ws.send("x" * (2**20 + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    received = closed.value.rcvd
    assert received is not None, "the server dropped the connection without a close frame"
    assert received.code == 1009  # "message too big" (RFC 6455), as docs/protocol.md says
