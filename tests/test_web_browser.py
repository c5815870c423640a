"""One end-to-end test in Chromium: a move on the board, the bot's reply over the websocket.

pytest-django's ``live_server`` does not speak websockets, so daphne serves the site from a
subprocess on a free port with its own SQLite file.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM), reason=f"{CHROMIUM} is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path):
    """Migrate a fresh SQLite file and serve the ASGI app with daphne; yield the base URL."""
    env = {**os.environ, "GOWEB_SQLITE_PATH": str(tmp_path / "site.sqlite3"), "DJANGO_DEBUG": "1"}
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL"):
        env.pop(name, None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    port = _free_port()
    log = (tmp_path / "daphne.log").open("w")
    daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "goweb.asgi:application"]
    process = subprocess.Popen(daphne, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_play_a_move_and_see_the_bot_reply(server: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 900, "height": 800})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server + "/new")
            page.select_option("#id_size", "9")
            page.select_option("#id_bot_level", "rules")
            page.click("button[type=submit]")
            page.wait_for_selector("#goban .grid")
            page.wait_for_function("document.getElementById('status').textContent.startsWith('Your move')")
            box = page.locator("#goban").bounding_box()
            step = box["width"] / (9 + 1.6)  # the viewBox spans 9 + 1.6 points
            page.mouse.click(box["x"] + (4 + 1.3) * step, box["y"] + (4 + 1.3) * step)  # E5
            page.wait_for_function(
                "document.querySelectorAll('#goban .stone.black:not(.ghost)').length === 1"
                " && document.querySelectorAll('#goban .stone.white:not(.ghost)').length === 1",
                timeout=20000,
            )
            assert page.locator("#status").inner_text().startswith("Your move (Black), move 3")
            assert page.locator("#goban .last").count() == 1
            assert errors == []
        finally:
            browser.close()
