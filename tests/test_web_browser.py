"""End-to-end tests in Chromium (Playwright) against the site served by daphne in the embedded mode.

pytest-django's ``live_server`` does not speak websockets, so daphne serves the site from a
subprocess on a free port with its own SQLite file (analysis in-process, small searches).  Every
test keeps a screenshot in ``test-artifacts/screenshots/`` at the repository root.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from analysis.bench.webstack import free_port
from analysis.features import get_feature_set
from analysis.go.coords import to_gtp
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig
from analysis.nets.presets import build
from analysis.sgf import read_sgf
from tests.score_net import write_score_weights, write_zoo

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}

pytestmark = pytest.mark.skipif(not shutil.which(CHROMIUM), reason=f"{CHROMIUM} is not installed")

# White C3 in a ladder on 9x9 (black to play captures it by chasing it to the top right).
LADDER_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]AB[bg][ch][dh]AW[cg]PL[B];B[ee];W[cc])"
REVIEW_SGF = "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[cc];B[gc];W[cg];B[gg];W[dd];B[ge])"


NOW_MS = "strftime('%Y-%m-%d %H:%M:%f')"  # SQLite's time now, to the millisecond


class Site:
    """The site served by daphne from a subprocess; ``restart`` stops and starts it on the same port."""

    def __init__(self, directory: Path, **env: str) -> None:
        self.directory = directory
        self.database = directory / "site.sqlite3"
        self.env = {
            **os.environ,
            "GOWEB_SQLITE_PATH": str(self.database),
            "DJANGO_DEBUG": "1",
            "GOWEB_REVIEW_VISITS": "8",
            **env,
        }
        for name in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL"):
            self.env.pop(name, None)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env, check=True
        )

    def start(self) -> None:
        daphne = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port)]
        log = (self.directory / "daphne.log").open("a")
        self.process = subprocess.Popen(
            [*daphne, "goweb.asgi:application"], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        log.close()
        for _ in range(200):
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daphne did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def restart(self) -> None:
        self.stop()
        self.start()

    def set_sgf(self, game_id: int, sgf: str) -> None:
        """Replace a game's record behind the site's back (to start from a given position)."""
        with sqlite3.connect(self.database) as db:
            db.execute("UPDATE frontend_game SET sgf = ? WHERE id = ?", (sgf, game_id))

    def add_analysis(
        self, game_id: int, results: list[dict], status: str = "done", record: str = "", error: str = ""
    ) -> None:
        """Store a whole-game analysis of a game behind the site's back (made-up results; ``record``:
        its key, empty for one from before keys were kept)."""
        with sqlite3.connect(self.database) as db:
            db.execute(
                "INSERT INTO frontend_analysis (game_id, status, cancel_requested, total, visits, results,"
                " record_fingerprint, error, created, updated)"
                f" VALUES (?, ?, 0, ?, 8, ?, ?, ?, {NOW_MS}, {NOW_MS})",  # one after the other: in order
                (game_id, status, len(results), json.dumps(results), record, error),
            )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    served = Site(tmp_path_factory.mktemp("site"))
    served.start()
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser session (its own cookies); fails the test on any JavaScript error; keeps a
    screenshot of the last page in test-artifacts/screenshots/<test name>.png."""
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page
        assert errors == []
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}.png"), full_page=True)
        context.close()


def new_game(page, site: Site, **choices: str) -> int:
    """Start a 9x9 game against the rules bot from the form; return its id once the board is drawn."""
    page.goto(site.url + "/new")
    page.select_option("#id_size", choices.get("size", "9"))
    page.select_option("#id_bot_level", choices.get("level", "rules"))
    page.click("button[type=submit]")
    page.wait_for_selector("#goban .grid")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def click_point(page, vertex: str, size: int = 9) -> None:
    """Click a board point given as a GTP vertex."""
    col, row = "ABCDEFGHJ".index(vertex[0]), size - int(vertex[1:])
    page.locator("#goban").scroll_into_view_if_needed()  # a button clicked below may have scrolled it away
    box = page.locator("#goban").bounding_box()
    step = box["width"] / (size + 1.6)  # the viewBox spans size + 1.6 points
    page.mouse.click(box["x"] + (col + 1.3) * step, box["y"] + (row + 1.3) * step)


def status_starts(page, text: str, timeout: float = 20000) -> None:
    """Wait until the status line starts with ``text``."""
    page.wait_for_function(
        "(text) => document.getElementById('status').textContent.startsWith(text)", arg=text, timeout=timeout
    )


def stones(page, color: str) -> int:
    return page.locator(f"#goban .stone.{color}:not(.ghost)").count()


def upload(page, site: Site, sgf: str) -> None:
    page.goto(site.url + "/review")
    page.fill("#id_text", sgf)
    page.click("button[type=submit]")
    page.wait_for_selector("#goban .grid")


def test_play_a_move_and_see_the_bot_reply(page, site: Site) -> None:
    new_game(page, site)
    status_starts(page, "Your move")
    click_point(page, "E5")
    page.wait_for_function(
        "() => document.querySelectorAll('#goban .stone.black:not(.ghost)').length === 1"
        " && document.querySelectorAll('#goban .stone.white:not(.ghost)').length === 1",
        timeout=20000,
    )
    assert page.locator("#status").inner_text().startswith("Your move (Black), move 3")
    assert page.locator("#goban .last").count() == 1


def test_the_game_resumes_after_a_server_restart(page, site: Site) -> None:
    game_id = new_game(page, site)
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    site.restart()
    page.goto(f"{site.url}/game/{game_id}/")
    status_starts(page, "Your move (Black), move 3")
    assert (stones(page, "black"), stones(page, "white")) == (1, 1)
    click_point(page, "C3")
    status_starts(page, "Your move (Black), move 5")
    assert (stones(page, "black"), stones(page, "white")) == (2, 2)


def test_at_the_end_dead_stones_are_toggled_and_the_score_shown(page, site: Site) -> None:
    game_id = new_game(page, site)
    site.set_sgf(game_id, "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])")  # the bot passed
    page.reload()
    status_starts(page, "Your move")
    page.click("#pass")
    page.click("#pass-anyway")  # the board is open: the page asks first
    status_starts(page, "Both passed")
    before = page.locator("#score").inner_text()
    assert before.startswith("Score: black")
    dead_before = page.locator("#goban .stone.dead").count()
    click_point(page, "C7")
    page.wait_for_function(
        "(n) => document.querySelectorAll('#goban .stone.dead').length !== n", arg=dead_before)
    assert page.locator("#score").inner_text() != before
    page.click("#accept")
    status_starts(page, "Game over:")
    result = page.locator("#status").inner_text().removeprefix("Game over: ")
    assert result in page.locator("#score").inner_text()


def test_upload_analyse_to_100_percent_and_see_the_win_rate_graph(page, site: Site) -> None:
    upload(page, site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")  # the position analysis of move 0
    assert page.locator("#goban .played-rank").text_content().startswith("#")  # E5 ringed, with its rank
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)
    assert page.locator("#progress").get_attribute("max") == "8"
    assert page.evaluate("document.getElementById('progress').value") == 8
    points = page.locator("#graph .graph-line").get_attribute("points").split()
    assert len(points) == 8
    mistakes = page.locator("#mistakes").inner_text()
    assert mistakes.startswith("Move ") or mistakes == "No mistakes found."  # the list is filled in
    page.locator("#graph").click(position={"x": 5, "y": 5})  # the graph's left end: move 0
    assert page.locator("#move-label").inner_text() == "0 / 7"
    page.keyboard.press("End")
    assert page.locator("#move-label").inner_text() == "7 / 7"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "6 / 7"
    assert "search" in page.locator("#played").inner_text()
    searched = page.locator("#candidate-list li.searched").all_inner_texts()
    visits = [int(re.search(r", (\d+) visits?", text).group(1)) for text in searched]
    assert visits and visits == sorted(visits, reverse=True)  # the search's order


def test_a_candidates_variation_shows_numbered_under_the_mouse_on_the_board_or_the_list(page, site) -> None:
    upload(page, site, REVIEW_SGF)
    page.keyboard.press("End")
    page.wait_for_selector("#goban .candidates circle")
    before = (stones(page, "black"), stones(page, "white"))
    move = page.locator("#candidate-list li.best").get_attribute("data-move")
    page.locator("#goban .candidates circle.best").hover()
    page.wait_for_function(
        "() => document.getElementById('line-info').textContent.startsWith('Variation of')"
    )
    line = page.locator("#line-info").inner_text()
    assert line.startswith(f"Variation of {move}: 1. {move}")
    shown = len(line.split(": ", 1)[1].split())  // 2  # "1. D4 2. C3 ...": the line's moves
    assert page.locator("#goban .candidates").count() == 0  # the line replaces the overlays
    numbers = page.locator("#goban .stones text.number").all_text_contents()
    assert "1" in numbers and len(numbers) <= shown  # its stones carry their numbers
    assert stones(page, "black") + stones(page, "white") <= sum(before) + shown
    assert page.locator("#candidate-list li.shown").get_attribute("data-move") == move
    page.mouse.move(1, 1)  # off the board: the position again
    page.wait_for_selector("#goban .candidates circle")
    assert (stones(page, "black"), stones(page, "white")) == before
    page.locator("#candidate-list li[data-move]").nth(1).hover()  # from the list too
    second = page.locator("#candidate-list li[data-move]").nth(1).get_attribute("data-move")
    page.wait_for_function(
        "(m) => document.getElementById('line-info').textContent.startsWith('Variation of ' + m)", arg=second)


def test_a_variation_played_out_takes_captured_stones_off_and_stops_at_an_occupied_point(page, site) -> None:
    page.goto(site.url + "/new")
    board = "".join((
        ".X...",
        "XO...",
        ".X...",
        ".....",
        ".....",
    ))
    shown = page.evaluate("""async (board) => {
        const { playLine } = await import('/static/frontend/js/pv.js');
        const take = playLine(board, 5, 'B', ['C4', 'pass', 'E1', 'D1']);
        const stop = playLine(board, 5, 'W', ['E5', 'B4', 'D1']);
        return [take.board, [...take.numbers], stop.board, [...stop.numbers]];
    }""", board)
    assert shown[0] == "".join((
        ".X...",
        "X.X..",  # C4 captured the white stone at B4
        ".X...",
        ".....",
        "...OX",  # E1 black (move 3), then D1 white (move 4)
    ))
    assert dict(shown[1]) == {7: 1, 24: 3, 23: 4}
    assert shown[2] == board[:4] + "O" + board[5:] and dict(shown[3]) == {4: 1}  # B4 is taken: the line ends


def test_the_pages_game_tree_names_its_nodes_and_moves_along_the_variation_last_visited(page, site) -> None:
    page.goto(site.url + "/new")
    found = page.evaluate("""async () => {
        const { GameTree } = await import('/static/frontend/js/review/tree.js');
        // start -> B E5 -> W C7 (main) -> B G7 -> W A1 (a variation past the end); and W G3 (a
        // variation) -> B D4
        const tree = new GameTree([
            { move: null, parent: null, children: [1], main: true },
            { move: ['B', 'E5'], parent: 0, children: [2, 4], main: true },
            { move: ['W', 'C7'], parent: 1, children: [3], main: true },
            { move: ['B', 'G7'], parent: 2, children: [6], main: true },
            { move: ['W', 'G3'], parent: 1, children: [5], main: false },
            { move: ['B', 'D4'], parent: 4, children: [], main: false },
            { move: ['W', 'A1'], parent: 3, children: [], main: false },  // played on past the end
        ]);
        const before = tree.along(0, 3);
        tree.chosen(5);
        return [tree.name(5), tree.find('BE5 WG3'), tree.find('BE5 WD4'), before, tree.along(0, 3),
                tree.along(5, 1), tree.sibling(4, 1), tree.forkDepth(5), tree.mainAt(9), tree.moves(5)];
    }""")
    assert found == ["BE5 WG3 BD4", 4, None, 3, 5, 1, 2, 1, 3, [["B", "E5"], ["W", "G3"], ["B", "D4"]]]


def test_arrow_keys_still_move_through_the_game_after_a_click_on_a_show_checkbox(page, site: Site) -> None:
    """A checkbox takes Space only: ← → Home End pressed on it are the page's; a menu keeps its keys."""
    upload(page, site, REVIEW_SGF)
    status_starts(page, "7 moves.")
    page.click("#show-numbers")
    assert page.evaluate("document.activeElement.id") == "show-numbers"
    page.keyboard.press("ArrowRight")
    assert page.locator("#move-label").inner_text() == "1 / 7"
    page.keyboard.press("End")
    assert page.locator("#move-label").inner_text() == "7 / 7"
    page.keyboard.press("Home")
    assert page.locator("#move-label").inner_text() == "0 / 7"
    page.keyboard.press(" ")
    assert not page.is_checked("#show-numbers")  # Space still ticks the box
    page.focus("#graph-mode")
    page.keyboard.press("ArrowRight")
    assert page.locator("#move-label").inner_text() == "0 / 7"


def test_stepping_quickly_through_a_game_asks_for_the_first_and_the_last_positions_only(page, site) -> None:
    """The review asks the server once the board settles, so a key held down stays well within the
    address's message budget (docs/protocol.md) and the position it stops on gets its analysis."""
    black = [c + r for r in "abcd" for c in "abcdefghi"]
    white = [c + r for r in "fghi" for c in "abcdefghi"]
    moves = "".join(f";B[{black[k]}];W[{white[k]}]" for k in range(15))  # 30 moves, no capture
    sent: list[dict] = []
    received: list[dict] = []

    def watch(ws: object) -> None:
        ws.on("framesent", lambda text: sent.append(json.loads(text)))
        ws.on("framereceived", lambda text: received.append(json.loads(text)))

    page.on("websocket", watch)
    upload(page, site, f"(;GM[1]FF[4]SZ[9]KM[7.5]{moves})")
    status_starts(page, "30 moves.")
    page.wait_for_selector("#goban .candidates circle")  # the start's analysis
    asked_before = len([m for m in sent if m["type"] == "analyze"])
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    assert page.locator("#move-label").inner_text() == "30 / 30"  # every position shown at once
    for _ in range(200):
        if any(m["type"] == "analysis" and m.get("move_number") == 30 for m in received):
            break
        page.wait_for_timeout(100)
    asked = [m["move_number"] for m in sent if m["type"] == "analyze"][asked_before:]
    assert 1 <= len(asked) <= 4 and asked[-1] == 30, asked
    assert any(m["type"] == "analysis" and m.get("move_number") == 30 for m in received)
    assert not [m for m in received if m["type"] == "error"]
    page.wait_for_selector("#goban .candidates circle")  # drawn on the position it stopped on


def test_feature_plane_viewer_and_ladder_overlay(page, site: Site) -> None:
    upload(page, site, LADDER_SGF)
    page.keyboard.press("End")
    page.check("#show-ladders")
    page.wait_for_selector("#goban .ladder-path")
    assert "white C3: capturable" in page.locator("#ladder-info").inner_text()
    page.select_option("#heatmap", "features")
    page.wait_for_selector("#goban .heat rect")
    plane = page.locator("#feature-plane").input_value()
    description = page.locator("#feature-description").inner_text()
    page.evaluate("document.activeElement.blur()")  # keys typed into a menu are the menu's
    page.keyboard.press("]")
    page.wait_for_function(
        "(before) => document.getElementById('feature-description').textContent !== before", arg=description
    )
    assert page.locator("#feature-plane").input_value() != plane
    page.select_option("#heatmap", "policy")
    page.wait_for_selector("#goban .heat rect")


@pytest.mark.parametrize("where", ["play", "review"])
def test_the_module_graph_loads_without_console_errors(page, site: Site, where: str) -> None:
    """Every module under frontend/static/ loads (200) and runs with no console error or failed request;
    only the review page carries the replay."""
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"{m.text} ({m.location['url']})"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    loaded: dict[str, int] = {}  # status of each static file, by its path under /static/
    page.on("response", lambda r: loaded.setdefault(r.url.partition("/static/")[2], r.status))  # the first
    if where == "review":
        upload(page, site, REVIEW_SGF)
        status_starts(page, "7 moves.")
        page.wait_for_selector("#goban .candidates circle")  # move 0's analysis, asked and drawn
    else:
        new_game(page, site)
        status_starts(page, "Your move")
    modules = ROOT / "frontend" / "static"
    expected = {path.relative_to(modules).as_posix(): 200 for path in modules.rglob("*.js")}
    if where == "review":
        del expected["frontend/new-game.js"]  # the new-game page's own entry, loaded on the way to play
    assert {name: status for name, status in loaded.items() if name.endswith(".js")} == expected
    assert problems == []
    assert page.locator("#timeline").count() == (where == "review")


def test_the_pages_run_under_their_content_security_policy_with_no_violation(page, site: Site) -> None:
    """Upload, review (its websocket and analysis drawn) and play under the site's policy: the browser
    reports no violation, and an inline script, which the policy forbids, is refused."""
    violations: list[str] = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    upload(page, site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")  # the websocket answered the analysis
    new_game(page, site)
    status_starts(page, "Your move")
    assert violations == []
    response = page.goto(site.url + "/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    inline = "() => { const s = document.createElement('script'); s.textContent = 'window.ran = 1';"
    with page.expect_console_message(lambda m: "Content Security Policy" in m.text, timeout=5000):
        page.evaluate(inline + " document.body.append(s); }")
    assert page.evaluate("() => window.ran") is None and len(violations) == 1


def test_the_new_game_komi_follows_the_handicap_and_rules_until_the_player_types_one(page, site) -> None:
    problems: list[str] = []
    page.on("console", lambda m: m.type == "error" and problems.append(m.text))
    page.goto(f"{site.url}/new")
    komi = page.locator("#id_komi")
    assert komi.input_value() == "7.5"
    page.select_option("#id_rules", "japanese")
    assert komi.input_value() == "6.5"
    page.fill("#id_handicap", "4")
    assert komi.input_value() == "0.5"
    page.fill("#id_handicap", "0")
    page.select_option("#id_rules", "aga")
    assert komi.input_value() == "7.5"
    page.fill("#id_komi", "5")
    page.fill("#id_handicap", "3")
    assert komi.input_value() == "5" and problems == []


def test_the_clock_counts_down_the_player_on_the_move_and_ends_the_game_on_time(page, site) -> None:
    page.goto(f"{site.url}/new")
    main, periods = page.locator("#id_time_main"), page.locator("#id_time_periods")
    assert not main.is_visible() and not periods.is_visible()  # no clock: nothing to set
    page.select_option("#id_time_system", "fischer")
    assert main.is_visible() and not periods.is_visible()
    start_timed_game(page, "byoyomi", {"main": "0", "period": "6", "periods": "1"})
    assert "clock: 1×6 s byo-yomi" in page.locator(".meta").first.inner_text()
    status_starts(page, "Your move")
    assert page.locator("#clock-B.running").is_visible() and "(1 left)" in page.inner_text("#clock-B")
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")  # the bot replied within its 6 seconds
    assert page.inner_text("#clock-W") == "White 0:06 (1 left)"  # a move within the period keeps it
    page.wait_for_function("() => document.getElementById('clock-B').textContent === 'Black 0:02 (1 left)'",
                           timeout=10000)
    assert page.locator("#clock-B.low").count() == 1
    status_starts(page, "Game over: W+T", timeout=15000)  # the page asked; the server ended it
    assert not page.locator("#clock-B.running").count()
    # Canadian overtime as the page counts and shows it (analysis/play/clock.py's rules)
    shown = page.evaluate("""async () => {
      const { clockText, timeLeft } = await import("/static/frontend/js/play/clock.js");
      const c = { system: "canadian", main: 600, period: 300, periods: 25 };
      const turns = [[{ main: 600, periods: 0 }, 30], [{ main: 10, periods: 0 }, 40],
                     [{ main: 100, periods: 2 }, 20], [{ main: 5, periods: 1 }, 6],
                     [{ main: 0, periods: 0 }, 0]];
      return turns.map(([player, spent]) => {
        const left = timeLeft(c, player, spent);
        return [clockText(c, left), left.total];
      });
    }""")
    assert shown == [["9:30 + 25/5:00", 870], ["4:30 for 25 moves", 270], ["1:20 for 2 moves", 80],
                     ["0:00 for 1 move", -1], ["5:00 for 25 moves", 300]]
    page.goto(f"{site.url}/new")
    page.select_option("#id_time_system", "canadian")
    assert main.is_visible() and periods.is_visible()
    # the fields are named for the clock, and Canadian proposes its usual period
    assert page.inner_text('label[for="id_time_periods"]') == "Moves to make in each Canadian period:"
    assert (page.input_value("#id_time_period"), periods.input_value()) == ("300", "25")
    page.select_option("#id_time_system", "fischer")
    assert page.input_value("#id_time_period") == "10"  # Fischer's own increment, not the 300 s
    page.select_option("#id_time_system", "canadian")
    page.fill("#id_time_periods", "20")  # typed: kept when the clock changes
    page.select_option("#id_time_system", "byoyomi")
    assert periods.input_value() == "20"
    assert page.inner_text('label[for="id_time_periods"]').startswith("Byo-yomi periods")


def start_timed_game(page, system: str, fields: dict[str, str]) -> None:
    """On the new-game page: a 9x9 game against the rules bot with the clock ``system`` and its
    ``fields`` (main, period, periods); wait for its board."""
    page.select_option("#id_time_system", system)
    for name, value in fields.items():
        page.fill(f"#id_time_{name}", value)
    page.select_option("#id_size", "9")
    page.select_option("#id_bot_level", "rules")
    page.click("button[type=submit]")
    page.wait_for_selector("#goban .grid")


def test_the_clock_pauses_on_the_players_turn_and_nothing_is_played_until_it_resumes(page, site) -> None:
    page.goto(f"{site.url}/new")
    start_timed_game(page, "fischer", {"main": "5", "period": "10"})
    status_starts(page, "Your move")
    page.click("#pause")
    status_starts(page, "Paused: resume the clock")
    assert page.inner_text("#pause") == "Resume clock" and page.locator("#pass").is_disabled()
    assert not page.locator("#clock-B.running").count()
    shown = page.inner_text("#clock-B")
    click_point(page, "E5")  # refused while paused: no stone
    page.wait_for_timeout(1500)
    assert stones(page, "black") == 0 and page.inner_text("#clock-B") == shown  # the clock stands still
    page.click("#pause")
    status_starts(page, "Your move")
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    assert stones(page, "black") == 1


def test_the_new_game_and_games_pages_fit_a_phone(browser, site: Site) -> None:
    """The new-game form (its levels' long names) and the list of games fit a phone (the board
    pages: the test after this one)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(site.url + "/new")
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= PHONE["width"], f"the new-game page scrolls sideways: {scroll_width}px"
        new_game(page, site)
        page.goto(site.url + "/games")
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= PHONE["width"], f"the games page scrolls sideways: {scroll_width}px"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "phone-games.png"), full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("where", ["play", "review", "compare"])
def test_board_pages_on_a_phone_fit_and_keep_the_moves_analysis_near_the_board(browser, site, where) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        if where == "play":
            new_game(page, site)
            status_starts(page, "Your move")
            assert not page.locator("#clocks").is_visible()  # a game without a clock shows none
            near = "#status"
        else:
            upload(page, site, REVIEW_SGF)
            near = "#candidate-list li"
            if where == "compare":
                page.click("#compare")
                near = "#list-a li"
            page.wait_for_selector(near)
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= PHONE["width"], f"the {where} page scrolls sideways: {scroll_width}px"
        board = page.locator("#goban-b" if where == "compare" else "#goban").bounding_box()
        assert board["x"] >= 0 and board["x"] + board["width"] <= PHONE["width"] and board["width"] > 340
        below = page.locator(near).first.bounding_box()["y"] - (board["y"] + board["height"])
        assert 0 < below < 220, f"the {where} page's {near} is {below}px under the board"
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"phone-near-{where}.png"), full_page=True)
        if where == "play":  # the header of a signed-in player: two rows at most
            page.goto(site.url + "/accounts/signup/")
            page.fill("#id_username", "phone-player")
            page.fill("#id_password1", "a long Go proverb 19x19")
            page.fill("#id_password2", "a long Go proverb 19x19")
            page.click("main button[type=submit]")
            page.wait_for_selector("#signed-in")
            assert page.locator(".site-header").bounding_box()["height"] <= 80
    finally:
        context.close()


@pytest.fixture(scope="module")
def two_network_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The site with two next-move networks: the default weights and a small untrained net."""
    weights = tmp_path_factory.mktemp("weights")
    shutil.copy(ROOT / "weights" / "policy.pt", weights / "policy.pt")
    torch.manual_seed(0)
    small = build(GoloisConfig(get_feature_set("golois").num_planes, 1, 8, value_head=True))
    checkpoint.save(weights / "small.pt", small, "golois-b1c8")
    write_zoo(weights, "golois", [
        {"name": "golois", "file": "policy.pt", "role": "next", "value_head": True,
         "title": "the default net"},
        {"name": "small", "file": "small.pt", "role": "next", "value_head": True,
         "title": "an untrained net"},
    ])
    served = Site(tmp_path_factory.mktemp("site"), GOWEB_WEIGHTS_DIR=str(weights))
    served.start()
    try:
        yield served
    finally:
        served.stop()


def test_compare_two_networks_move_by_move(page, two_network_site: Site) -> None:
    site = two_network_site
    upload(page, site, REVIEW_SGF)
    page.click("#compare")
    page.wait_for_selector("#summary tbody tr")
    assert (page.locator("#net-a").input_value(), page.locator("#net-b").input_value()) == ("golois", "small")
    rows = page.locator("#summary tbody tr")
    assert rows.count() == 2 and rows.nth(0).inner_text().startswith("golois")
    assert all("%" in rows.nth(i).inner_text() for i in range(2))
    assert page.locator("#goban-a .candidates circle").count() == 10
    assert page.locator("#goban-b .candidates circle").count() == 10
    assert page.locator("#list-a li").count() == 10 and page.locator("#list-b li").count() == 10
    assert page.locator("#list-a-name").inner_text() == "golois"  # over the list, not its first item
    shared = page.locator("#list-a li.shared").count()
    assert shared == page.locator("#goban-a .cand.shared").count()  # the same moves, marked on the board
    assert "ranked golois #" in page.locator("#played").inner_text()
    page.select_option("#surprise-filter", "b")  # the untrained net misses most moves
    first = page.locator("#surprises li a").first
    move = int(first.inner_text().split(":")[0].removeprefix("move "))
    first.click()
    assert page.locator("#move-label").inner_text() == f"{move - 1} / 7"
    page.keyboard.press("ArrowRight")
    assert page.locator("#move-label").inner_text() == f"{move} / 7"
    assert page.locator("#net-b option[value=golois]").is_disabled()  # A shows it: B cannot


def test_without_score_leads_the_circles_show_win_rates_and_say_so(page, two_network_site: Site) -> None:
    upload(page, two_network_site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")
    page.select_option("#network", "small")  # a value head and no score head: searched by itself
    page.wait_for_function(
        "() => document.getElementById('candidate-list').textContent.includes('No score leads')"
    )
    assert page.locator("#circle-figure").input_value() == "score"
    figures = page.locator("#goban .candidates text.figure").all_text_contents()
    assert figures and all(f.isdigit() for f in figures)  # the mover's win rate in percent
    assert page.locator("#candidate-list li.searched").first.evaluate("li => li.value") == 1


def serve_score_net(tmp_path_factory: pytest.TempPathFactory, ownership_gain: float) -> Iterator[Site]:
    """Serve the site whose default next-move network is an untrained golois-score-b6c64 (score and
    ownership heads), its ownership head's last layer multiplied by ``ownership_gain``."""
    weights = write_score_weights(tmp_path_factory.mktemp("weights"), ownership_gain=ownership_gain)
    served = Site(tmp_path_factory.mktemp("site"), GOWEB_WEIGHTS_DIR=str(weights))
    served.start()
    try:
        yield served
    finally:
        served.stop()


@pytest.fixture(scope="module")
def score_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The score network's site, the ownership x10 so that the map has strong points too."""
    yield from serve_score_net(tmp_path_factory, 10)


@pytest.fixture(scope="module")
def sure_ownership_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The score network's site, the ownership x30: sure enough of points under stones to call some
    stones dead."""
    yield from serve_score_net(tmp_path_factory, 30)


# territory.js: a stone on a point the other side owns this much is dead; fainter points stay bare
DEAD, FAINT = 0.5, 0.05


def overlay_dead(board: str, black_ownership: list[float]) -> set[int]:
    """The stones the map calls dead: on points the other side owns at least DEAD."""
    return {p for p, v in enumerate(black_ownership)
            if (board[p] == "X" and v <= -DEAD) or (board[p] == "O" and v >= DEAD)}


def expected_overlay(
    board: str, black_ownership: list[float], dead: set[int] | None = None
) -> tuple[dict[int, str], set[int]]:
    """The squares the overlay must draw ({point: owner "black"/"white"}) and the dead stones:
    ``dead`` (the player's marks) when given, else those the map calls dead. Empty points and the
    dead stones the other side owns get a square, unless the map is unsure there."""
    dead = overlay_dead(board, black_ownership) if dead is None else dead
    squares = {}
    for p, v in enumerate(black_ownership):
        owner = "X" if v > 0 else "O"
        if (board[p] == "." or (p in dead and board[p] != owner)) and abs(v) >= FAINT:
            squares[p] = "black" if v > 0 else "white"
    return squares, dead


def drawn_overlay(page) -> tuple[dict[int, str], set[int]]:
    """The territory squares on the board ({point: owner}) and the stones drawn dead."""
    squares = page.eval_on_selector_all(
        "#goban .territory rect", "rs => rs.map(r => [+r.dataset.point, r.classList[1]])")
    dead = page.eval_on_selector_all("#goban .stone.dead", "cs => cs.map(c => +c.dataset.point)")
    return dict(squares), set(dead)


def test_the_territory_toggle_draws_the_positions_ownership_on_the_review_board(page, score_site) -> None:
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    upload(page, score_site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('played').textContent.includes('search')")
    assert page.locator("#goban .territory").count() == 0
    page.check("#show-territory")  # asks the position again, with its ownership map
    page.wait_for_selector("#goban .territory rect")
    answer = next(m for m in frames if m["type"] == "analysis" and m.get("ownership"))
    assert answer["move_number"] == 7
    assert answer["to_play"] == "W" and len(answer["ownership"]) == 81
    black = [-v for v in answer["ownership"]]  # white to play: the map is White's
    board = page.evaluate("JSON.parse(document.getElementById('timeline').textContent).boards[7]")
    assert drawn_overlay(page) == expected_overlay(board, black)
    drawn = [c for c in answer["candidates"] if c["move"] != "pass"]  # pass has no point to circle
    percents = [math.floor(100 * c["prior"] + 0.5) for c in drawn if not c["visits"]]  # as Math.round
    labels = sorted(page.locator("#goban .candidates text.idea-prior").all_text_contents())
    assert labels == sorted(f"{p}" if p >= 1 else "<1" for p in percents)  # never a bare "0"
    visits = sorted(page.locator("#goban .candidates text.visits").all_text_contents())
    assert visits == sorted(str(c["visits"]) for c in drawn if c["visits"])
    assert page.locator("#territory-info").inner_text().startswith("Territory: each point's owner")
    page.uncheck("#show-territory")
    assert page.locator("#goban .territory").count() == 0
    assert page.locator("#territory-info").inner_text() == ""
    page.check("#show-territory")  # the map came already: drawn again at once
    page.wait_for_selector("#goban .territory rect")
    assert sum(m["type"] == "analysis" and m["move_number"] == 7 for m in frames) == 2


# An end of game on 9x9 with a made-up ownership map: Black's wall on column C, White's on column E,
# dame on column D; White's B8 is dead in Black's area, Black's H6 in White's; White's top right
# is not sure yet.
ENDGAME = [
    "..X.O....",
    ".OX.O....",
    "..X.O....",
    "..X.O..X.",
    "..X.O....",
    "..X.O....",
    "..X.O....",
    "..X.O....",
    "..X.O....",
]
ENDGAME_COLUMNS = [1.0, 0.9, 0.8, 0.0, -0.8, -0.6, -0.8, -0.9, -1.0]  # Black's ownership by column
B8, H6, A9, G9 = 1 * 9 + 1, 3 * 9 + 7, 0, 6


def endgame_ownership() -> list[float]:
    """Black's ownership of ENDGAME: by column, but only -0.3 in White's top right (rows 9 to 7)."""
    return [-0.3 if row < 3 and col > 4 else ENDGAME_COLUMNS[col] for row in range(9) for col in range(9)]


def test_a_review_counts_the_position_that_two_passes_ended_and_draws_the_counts_territory(
    page, site: Site
) -> None:
    black = "".join(f"[c{r}]" for r in "abcdefghi")  # Black's wall on column C
    white = "".join(f"[e{r}]" for r in "abcdefghi") + "[bb]"  # White's on E, and B8 inside Black's area
    upload(page, site, f"(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]AB{black}AW{white};B[];W[])")
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('played').textContent.includes('counted')")
    # area: Black 27 points (B8 dead), White 45 + 7.5 komi; column D is dame
    assert page.locator("#played").inner_text() == (
        "End of the game · two passes ended the game: counted W+25.5 by area (1 dead stone taken off)")
    assert page.locator("#candidate-list li").count() == 0
    page.check("#show-territory")
    page.wait_for_selector("#goban .territory rect")
    squares, dead = drawn_overlay(page)
    assert dead == {B8}
    assert squares[B8] == "black" and all(squares.get(row * 9 + 3) is None for row in range(9))
    assert page.locator("#territory-info").inner_text().startswith("Territory: the count's owner")


def test_the_review_of_a_counted_game_draws_the_stones_its_player_marked_dead_even_on_dame(
    page, site: Site
) -> None:
    game_id = new_game(page, site)
    black = "".join(f"[c{r}]" for r in "abcdefghi")  # Black's wall on C, White's on E, D5 on the dame
    white = "".join(f"[e{r}]" for r in "abcdefghi") + "[de]"
    site.set_sgf(game_id, f"(;GM[1]FF[4]SZ[9]KM[7.5]RU[Japanese]AB{black}AW{white};B[];W[])")
    with sqlite3.connect(site.database) as db:
        db.execute("UPDATE frontend_game SET phase = 'finished', dead = '[\"D5\"]', result = 'W+24.5',"
                   " rules = 'japanese' WHERE id = ?", (game_id,))
    page.goto(f"{site.url}/game/{game_id}/review")
    page.wait_for_selector("#goban .grid")
    page.keyboard.press("End")
    page.wait_for_function("() => document.getElementById('played').textContent.includes('counted')")
    # territory: Black 18 empty points + White's dead D5, White 36 + 7.5 komi
    assert "counted W+24.5 by territory (1 dead stone taken off)" in page.locator("#played").inner_text()
    page.check("#show-territory")
    page.wait_for_selector("#goban .territory rect")
    assert drawn_overlay(page)[1] == {4 * 9 + 3}  # D5, on a point the count leaves to nobody


def test_the_territory_overlay_sizes_squares_by_certainty_and_marks_dead_stones(page, site: Site) -> None:
    """The goban module itself, in Chromium, on a made-up map whose owners and dead stones are known."""
    board = "".join(ENDGAME)
    owned = endgame_ownership()
    page.goto(site.url + "/")
    page.evaluate(
        """async ({board, territory}) => {
          const { draw } = await import("/static/frontend/js/goban.js");
          const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
          svg.id = "goban";
          svg.setAttribute("class", "goban");
          svg.style.maxWidth = "560px";
          document.querySelector("main").replaceChildren(svg);
          draw(svg, { size: 9, board, territory, coords: true });
        }""",
        {"board": board, "territory": owned},
    )
    squares, dead = drawn_overlay(page)
    assert dead == {B8, H6}
    assert (squares[B8], squares[H6]) == ("black", "white")  # the owner's square on each dead stone
    assert (squares, dead) == expected_overlay(board, owned)
    live = {p for p, c in enumerate(board) if c != "."} - dead
    assert not live & set(squares) and not {p for p in squares if p % 9 == 3}  # live stones and dame bare
    assert len(squares) == 81 - 9 - len(live)
    sizes = dict(page.eval_on_selector_all(
        "#goban .territory rect", "rs => rs.map(r => [+r.dataset.point, +r.getAttribute('width')])"))
    assert sizes[A9] > sizes[G9] > 0  # Black's sure corner, White's unsure top right


def setup_stones(board: str, color: str) -> str:
    """The SGF setup values of ``board``'s stones of ``color`` ("X" or "O") on 9x9: "[cc][cd]..."."""
    return "".join(f"[{'abcdefghi'[p % 9]}{'abcdefghi'[p // 9]}]" for p, c in enumerate(board) if c == color)


def point_of(vertex: str, size: int = 9) -> int:
    """The board index of a GTP vertex."""
    return (size - int(vertex[1:])) * size + "ABCDEFGHJ".index(vertex[0])


def received(page, frames: list[dict], wanted, timeout: float = 20) -> dict:
    """The last of the websocket messages ``frames`` (filled as they come) that ``wanted(message)``
    accepts, once one came."""
    deadline = time.monotonic() + timeout
    while not (found := [m for m in frames if wanted(m)]):
        assert time.monotonic() < deadline, "the message did not come"
        page.wait_for_timeout(50)
    return found[-1]


def test_while_scoring_the_players_dead_marks_decide_which_stones_the_territory_draws_dead(
    page, sure_ownership_site: Site
) -> None:
    """ENDGAME as a game in its scoring phase, the territory shown: the map calls stones of Black's
    wall on column C dead, but the player's marks decide: the wall drawn alive and bare, marked
    dead, then alive again."""
    site = sure_ownership_site
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    game_id = new_game(page, site)
    endgame = "".join(ENDGAME)
    setup = f"AB{setup_stones(endgame, 'X')}AW{setup_stones(endgame, 'O')}"
    site.set_sgf(game_id, f"(;GM[1]FF[4]SZ[9]KM[7.5]{setup};B[ai];W[])")  # Black's A1, the bot passed
    page.reload()
    status_starts(page, "Your move")
    page.check("#show-territory")
    page.click("#pass")
    page.click("#pass-anyway")  # the playouts leave points of the board undecided: the page asks first
    status_starts(page, "Both passed")
    state = received(page, frames, lambda m: m["type"] == "state" and m["phase"] == "scoring")
    scored = state["move_number"]
    estimate = received(page, frames, lambda m: m["type"] == "estimate" and m["move_number"] == scored)
    page.wait_for_selector("#goban .territory rect")
    board, ownership = state["board"], estimate["ownership"]
    marks = {point_of(v) for v in state["dead"]}
    wall = {point_of(f"C{row}") for row in range(1, 10)}
    assert wall & overlay_dead(board, ownership) and not wall & marks  # the map and the player disagree
    assert drawn_overlay(page) == expected_overlay(board, ownership, marks)

    def toggle_wall(dead: set[int]) -> None:
        """Click the wall; once the server's marks are ``dead``, the board draws them."""
        click_point(page, "C5")
        received(page, frames, lambda m: m["type"] == "state" and {point_of(v) for v in m["dead"]} == dead)
        page.wait_for_function(
            "(n) => document.querySelectorAll('#goban .stone.dead').length === n", arg=len(dead))
        assert drawn_overlay(page) == expected_overlay(board, ownership, dead)

    toggle_wall(marks | wall)
    toggle_wall(marks)


ESTIMATE = re.compile(
    r"^Estimate: [BW]\+\d+\.\d ± \d+\.\d · Black's win rate \d+% · Count now: [BW]\+\d+\.\d by area$")


def test_estimate_score_shows_territory_and_lead_until_the_next_move_or_all_along(page, score_site) -> None:
    new_game(page, score_site)
    status_starts(page, "Your move")
    page.click("#estimate")
    page.wait_for_selector("#goban .territory rect")
    assert ESTIMATE.match(page.locator("#estimate-text").inner_text())
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    assert page.locator("#goban .territory").count() == 0
    assert page.locator("#estimate-text").inner_text() == ""
    page.check("#show-territory")  # from now on, after every move
    page.wait_for_selector("#goban .territory rect")
    click_point(page, "C3")
    status_starts(page, "Your move (Black), move 5")
    page.wait_for_function("() => document.querySelectorAll('#goban .territory rect').length > 0")
    assert ESTIMATE.match(page.locator("#estimate-text").inner_text())
    assert (stones(page, "black"), stones(page, "white")) == (2, 2)


def test_score_lead_graph_candidates_and_mistakes_by_points_lost(page, score_site: Site) -> None:
    upload(page, score_site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")
    leads = page.locator("#candidate-list li.searched").all_inner_texts()
    assert leads and all(re.search(r"wins \d+\.\d%, [BW]\+\d+\.\d, \d+ visits? · ", text) for text in leads)
    assert re.search(r"black win rate \d+\.\d%, [BW]\+\d+\.\d \(search", page.locator("#played").inner_text())
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)
    page.select_option("#graph-mode", "score")
    line = page.locator("#graph .graph-line.score")
    assert len(line.get_attribute("points").split()) == 8
    scale = int(re.search(r"up to (\d+) points", page.locator("#graph-legend").inner_text()).group(1))
    ys = [float(point.split(",")[1]) for point in line.get_attribute("points").split()]
    top, bottom = (float(page.locator("#graph .graph-value").nth(i).get_attribute("y")) for i in (0, 2))
    assert scale in (5, 10, 20, 30, 50, 100, 200, 400) and all(top <= y <= bottom for y in ys)
    page.select_option("#mistakes-by", "score")
    items = page.locator("#mistakes li").all_inner_texts()
    lost = [float(re.search(r": [−+](\d+\.\d) points", text).group(1)) for text in items]
    assert lost and lost == sorted(lost, reverse=True)  # ranked by the points lost
    page.select_option("#graph-mode", "winrate")
    assert page.locator("#graph-legend").inner_text().startswith("Black's win rate")
    # each player's summary: its judged moves, each in one class of loss
    assert page.locator("#summary-section").is_visible()
    rows = {r.locator("th").inner_text(): r.locator("td").all_inner_texts()
            for r in page.locator("#summary tr").all()[1:]}
    judged = [int(n) for n in rows["Moves judged"]]
    assert 0 < sum(judged) <= 7  # the record's 7 moves at most
    classes = ("Blunders", "Mistakes", "Inaccuracies", "Slack moves", "Fine moves", "Good moves")
    assert [sum(int(rows[c][i]) for c in classes) for i in (0, 1)] == judged
    assert all(re.fullmatch(r"\d+\.\d\d points", text) for text in rows["Mean loss"])
    assert all(re.fullmatch(r"\d+%", text) for text in rows["Search's choice"] + rows["Network's top 5"])


def test_candidates_name_the_side_whose_win_rate_they_give(page, score_site: Site) -> None:
    """The candidates' win rate is the mover's and says so; the lead names its side (B+/W+)."""
    upload(page, score_site, REVIEW_SGF)
    for label, mover in (("0 / 7", "Black"), ("1 / 7", "White")):
        assert page.locator("#move-label").inner_text() == label
        page.wait_for_selector("#candidate-list li")
        searched = page.locator("#candidate-list li.searched").all_inner_texts()
        figures = rf"^([A-T]\d+|pass): {mover} wins \d+\.\d%, [BW]\+\d+\.\d, \d+ visits? · "
        assert searched and all(re.search(figures, text) for text in searched)
        page.keyboard.press("ArrowRight")


# The figures of candidates.js: the least loss of each class, blunder first (analysis/review/summary.py).
BOUNDS = {"score": [12, 6, 3, 1.5, 0.5], "winrate": [0.2, 0.1, 0.05, 0.02, 0.01]}  # candidates.js


def loss_class(loss: float, measure: str) -> int:
    """The class of a loss as the page colours it: 0 a blunder, 5 a good move."""
    return next((i for i, least in enumerate(BOUNDS[measure]) if loss >= least), 5)


def circles(page) -> dict[str, dict]:
    """The candidates' circles on the board by point: their classes, texts and tooltip."""
    return page.evaluate("""() => {
        const n = JSON.parse(document.getElementById('timeline').textContent).size;
        const letters = 'ABCDEFGHJKLMNOPQRST';
        const out = {};
        for (const c of document.querySelectorAll('#goban .candidates circle')) {
            const x = +c.getAttribute('cx'), y = +c.getAttribute('cy');
            const texts = [...document.querySelectorAll('#goban .candidates text')]
                .filter((t) => +t.getAttribute('x') === x && Math.abs(+t.getAttribute('y') - y) < 0.5);
            out[letters[x] + (n - y)] = {cls: [...c.classList], texts: texts.map((t) => t.textContent),
                title: c.querySelector('title').textContent, fill: getComputedStyle(c).fill};
        }
        return out;
    }""")


def test_candidate_circles_carry_the_searchs_figures_coloured_by_what_they_lose(page, site: Site) -> None:
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    upload(page, site, REVIEW_SGF)
    page.wait_for_selector("#goban .candidates circle")
    answer = next(m for m in frames if m["type"] == "analysis" and m["move_number"] == 0)
    searched = [c for c in answer["candidates"] if c["visits"]]
    ideas = [c for c in answer["candidates"] if not c["visits"]]
    best = searched[0]
    assert best["move"] == answer["best"] and [c["visits"] for c in searched] == sorted(
        (c["visits"] for c in searched), reverse=True)
    drawn = circles(page)
    swatch = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.loss-legend .swatch')]
        .map((s) => [s.classList[1], getComputedStyle(s).backgroundColor]))""")
    for c in searched:  # Black to move: the mover's lead is Black's
        circle = drawn[c["move"]]
        k = loss_class(max(0.0, best["score_lead"] - c["score_lead"]), "score")
        assert f"loss-{k}" in circle["cls"] and ("best" in circle["cls"]) == (c is best)
        assert circle["fill"] == swatch[f"loss-{k}"]  # the legend's colour of its class
        lead = c["score_lead"]
        assert circle["texts"] == [f"{'+' if lead >= 0 else '−'}{abs(lead):.1f}", str(c["visits"])]
        assert f"network's prior {100 * c['prior']:.1f}%" in circle["title"]
    for c in ideas:
        assert drawn[c["move"]]["cls"] == ["cand", "idea"]
        assert f"{100 * c['prior']:.1f}% prior, not searched" in drawn[c["move"]]["title"]
    items = page.locator("#candidate-list li")
    assert items.evaluate_all("lis => lis.map(li => li.dataset.move || null)") == (
        [c["move"] for c in searched] + ([None] + [c["move"] for c in ideas] if ideas else []))
    assert page.locator("#candidate-list li.list-head").all_inner_texts() == (
        ["The network's ideas, not searched:"] if ideas else [])
    page.select_option("#circle-figure", "winrate")  # the win rate instead, coloured by win rate lost
    drawn = circles(page)
    for c in searched:
        k = loss_class(max(0.0, best["winrate"] - c["winrate"]), "winrate")
        assert drawn[c["move"]]["texts"] == [str(round(100 * c["winrate"])), str(c["visits"])]
        assert f"loss-{k}" in drawn[c["move"]]["cls"]


def test_the_graph_has_axes_marks_its_mistakes_and_the_wheel_steps_through_the_moves(page, site) -> None:
    upload(page, site, REVIEW_SGF)
    game_id = int(page.url.rstrip("/").split("/")[-2])
    black = [0.50, 0.45, 0.40, 0.20, 0.35, 0.33, 0.60, 0.58]  # 20 points a unit of win rate
    played = ["E5", "C7", "G7", "C3", "G3", "D6", "G5", None]
    best = ["D4", "C7", "C3", "G3", "D5", "F4", "E3", "pass"]
    rows = zip(black, played, best, strict=True)
    site.add_analysis(game_id, [made_up_entry(k, *row) for k, row in enumerate(rows)])
    page.reload()
    page.wait_for_function("() => document.getElementById('mistakes').textContent.startsWith('Move ')")
    assert page.locator("#graph").bounding_box()["height"] >= 150  # tall enough to read
    assert page.locator("#graph .graph-value").all_text_contents() == ["100%", "50%", "0%"]
    assert page.locator("#graph .graph-move").all_text_contents() == [str(m) for m in range(8)]
    # by points lost from 3 points: G7 (4), C3 (3), D6 (5.4); E5's 1 point and G3's 0.4 are under
    marks = page.locator("#graph .graph-mistake title").all_text_contents()
    assert [m.split(":")[0] for m in marks] == ["Move 3 Black G7", "Move 4 White C3", "Move 6 White D6"]
    page.fill("#mistake-threshold", "5")
    assert page.locator("#graph .graph-mistake").count() == 1
    cursor = page.locator("#graph .graph-cursor")
    at_start = float(cursor.get_attribute("x1"))
    page.evaluate("window.scrollTo(0, 0)")  # the threshold's field scrolled the page to it
    box = page.locator("#goban").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    shown = "(label) => document.getElementById('move-label').textContent === label"
    for _ in range(3):
        page.mouse.wheel(0, 100)  # one notch each
    page.wait_for_function(shown, arg="3 / 7")
    assert float(cursor.get_attribute("x1")) > at_start
    page.mouse.wheel(0, -100)
    page.wait_for_function(shown, arg="2 / 7")
    assert page.evaluate("window.scrollY") == 0  # the wheel moved through the game, not the page


def test_a_shared_review_ranks_the_saved_mistakes_by_points_lost_too(page, score_site: Site) -> None:
    """The read-only viewer of an analysed game switches "Rank by": the list re-ranks by points lost."""
    upload(page, score_site, REVIEW_SGF)
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)
    page.click("#share")
    page.goto(page.locator("#share-link").input_value())
    page.wait_for_function("() => document.getElementById('mistakes').textContent.startsWith('Move ')")
    assert page.locator("#shared-note").is_visible()
    assert page.locator("#mistakes-by").input_value() == "score"  # by points lost at first: leads came
    page.select_option("#mistakes-by", "winrate")
    by_winrate = page.locator("#mistakes li").all_inner_texts()
    assert by_winrate and all(re.search(r": [−+]\d+\.\d%, [−+]\d+\.\d points \(best", t) for t in by_winrate)
    page.select_option("#mistakes-by", "score")
    by_points = page.locator("#mistakes li").all_inner_texts()
    assert len(by_points) == len(by_winrate)
    assert all(re.search(r": [−+]\d+\.\d points, [−+]\d+\.\d% \(best", t) for t in by_points)
    signed = [re.search(r": ([−+])(\d+\.\d) points", text).groups() for text in by_points]
    lost = [float(points) if sign == "−" else -float(points) for sign, points in signed]
    assert lost == sorted(lost, reverse=True)  # ranked by the points lost, gains last
    assert page.locator("#summary-section").is_visible()  # the saved analysis's summary too


def test_the_records_comments_show_with_their_position_and_variations_are_named(page, site: Site) -> None:
    sgf = "(;GM[1]SZ[9]KM[7]C[Before the game];B[ee]C[The centre];W[cc](;B[gc])(;B[gg]C[Another]))"
    upload(page, site, sgf)
    assert page.locator("#record-comment").inner_text() == "Before the game"
    assert page.locator("#variations-note").inner_text() == "The record has 1 variation: see the game tree."
    page.wait_for_function("() => document.querySelectorAll('#tree .tree-node').length === 5")
    page.keyboard.press("ArrowRight")
    assert page.locator("#record-comment").inner_text() == "The centre"
    page.keyboard.press("ArrowRight")
    comment = page.locator("#record-comment")
    assert comment.inner_text() == "" and not comment.is_visible()
    assert page.locator("#goban .branch-letter").all_text_contents() == ["A", "B"]  # G7 and G3 next
    page.keyboard.press("ArrowRight")
    assert page.locator("#move-label").inner_text() == "3 / 3"
    page.keyboard.press("ArrowDown")  # the record's own variation: B G3
    assert page.locator("#move-label").inner_text() == "3 (variation)"
    assert page.locator("#record-comment").inner_text() == "Another"
    assert page.locator("#tree-info").inner_text().startswith("A variation from move 2, at move 3.")
    assert page.locator("#goban .last").count() == 1 and stones(page, "black") == 2


def test_a_variation_is_played_analysed_saved_downloaded_deleted_and_promoted(page, site: Site) -> None:
    upload(page, site, REVIEW_SGF)
    game_id = int(page.url.rstrip("/").split("/")[-2])
    status_starts(page, "7 moves.")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    click_point(page, "D4")  # Black's move 3 in the game was G7
    page.wait_for_function("() => document.getElementById('move-label').textContent === '3 (variation)'")
    assert page.locator("#tree-info").inner_text().startswith("A variation from move 2, at move 3.")
    assert "saved with the game" in page.locator("#tree-info").inner_text()
    page.wait_for_selector("#goban .candidates circle")  # the variation's position is analysed
    assert page.locator("#played").inner_text().startswith("End of the variation · black win rate")
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "2 / 7"
    page.keyboard.press("ArrowRight")  # back along the variation last visited
    assert page.locator("#move-label").inner_text() == "3 (variation)"
    page.locator("#candidate-list li").first.click()  # the candidate's line is played on
    page.wait_for_function("() => document.getElementById('move-label').textContent !== '3 (variation)'")
    assert int(page.locator("#move-label").inner_text().split()[0]) >= 4

    shown = page.locator("#move-label").inner_text()
    page.reload()  # saved with the game: the page comes back to the variation's node (its URL says it)
    status_starts(page, "7 moves.")
    page.wait_for_function("() => document.querySelectorAll('#tree .tree-node').length > 8")
    page.wait_for_function("(text) => document.getElementById('move-label').textContent === text", arg=shown)
    for _ in range(int(shown.split()[0]) - 3):
        page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "3 (variation)"
    assert page.locator("#played").inner_text().startswith("Next: White")  # the line goes on
    sgf = page.request.get(f"{site.url}/game/{game_id}/sgf").text()
    record = read_sgf(sgf)
    assert record.main_line_moves() == read_sgf(REVIEW_SGF).main_line_moves()
    fork = list(record.main_line())[2]
    variation = fork.children[1]
    assert variation.get("B") == "df" and variation.get("SBKV") is not None  # with its analysis
    assert "Black win rate" in variation.comment

    page.once("dialog", lambda dialog: dialog.accept())  # it asks first
    page.click("#delete-branch")  # the variation goes, and the board shows where it began
    page.wait_for_function("() => document.getElementById('move-label').textContent === '2 / 7'")
    assert page.locator("#tree .tree-node").count() == 8
    assert ";B[df]" not in page.request.get(f"{site.url}/game/{game_id}/sgf").text()
    click_point(page, "D4")
    page.wait_for_function("() => document.getElementById('move-label').textContent === '3 (variation)'")
    page.click("#promote-branch")  # the page comes back with the new main line, at the same move
    page.wait_for_function("() => document.getElementById('move-label').textContent === '3 / 3'")
    page.wait_for_function(
        "() => document.querySelectorAll('#tree .tree-node').length === 9"
    )  # the tree came
    assert page.locator("#move-label").inner_text() == "3 / 3"  # and the page stayed at its move
    assert page.locator("#variations-note").inner_text() == "The record has 1 variation: see the game tree."
    click_point(page, "G3")  # past the game's end: a variation, the game's record kept as it is
    page.wait_for_function("() => document.getElementById('move-label').textContent === '4 (variation)'")
    assert page.locator("#played").inner_text().startswith("End of the variation")
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "3 / 3"
    record = read_sgf(page.request.get(f"{site.url}/game/{game_id}/sgf").text())
    assert [to_gtp(point, 9) for _, point in record.main_line_moves()] == ["E5", "C7", "D4"]


def test_a_cancelled_analysis_resumes_and_an_analysed_sgf_uploaded_again_shows_its_analysis(page, site):
    upload(page, site, REVIEW_SGF)
    game_id = int(page.url.rstrip("/").split("/")[-2])
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)
    with sqlite3.connect(site.database) as db:  # as if cancelled after 3 positions
        query = "SELECT results FROM frontend_analysis WHERE game_id = ?"
        (results,) = db.execute(query, (game_id,)).fetchone()
        kept = json.loads(results)[:3]
        db.execute("UPDATE frontend_analysis SET status = 'cancelled', results = ? WHERE game_id = ?",
                   (json.dumps(kept), game_id))
    page.reload()
    status_starts(page, "Analysis cancelled after 3 positions")
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)
    with sqlite3.connect(site.database) as db:
        rows = db.execute("SELECT results FROM frontend_analysis WHERE game_id = ?", (game_id,)).fetchall()
    assert len(rows) == 1  # carried on, not started again
    assert json.loads(rows[0][0])[:3] == kept and len(json.loads(rows[0][0])) == 8
    assert len(page.locator("#graph .graph-line").get_attribute("points").split()) == 8

    analysed = page.request.get(f"{site.url}/game/{game_id}/sgf?analysis=1").text()
    assert "SBKV[" in analysed and "Loss of this move: " in analysed
    upload(page, site, analysed)  # the analysed SGF, uploaded again: its analysis shows at once
    status_starts(page, "Analysis complete.")
    assert len(page.locator("#graph .graph-line").get_attribute("points").split()) == 8
    assert page.locator("#mistakes li").count() >= 1
    assert page.locator("#record-comment").inner_text() == ""  # the site's lines are not the players'


def test_a_failed_analysis_says_why_and_one_of_other_moves_does_not_block_the_next(page, site: Site) -> None:
    upload(page, site, REVIEW_SGF)
    game_id = int(page.url.rstrip("/").split("/")[-2])
    current = read_sgf(REVIEW_SGF).fingerprint()
    site.add_analysis(game_id, [], status="failed", record=current, error="the network failed")
    page.reload()
    status_starts(page, "The last analysis failed: the network failed.")
    assert page.locator("#analyze-game").is_enabled()
    site.add_analysis(game_id, [], status="running", record="0" * 64)  # of moves since undone
    page.reload()
    status_starts(page, "7 moves.")  # not shown as running
    page.click("#analyze-game")
    status_starts(page, "Analysis complete.", timeout=60000)


def made_up_entry(k: int, black: float, played: str | None, best: str) -> dict:
    """A whole-game analysis entry of REVIEW_SGF's position ``k``: Black's win rate ``black``, and a
    score lead of 20 points a unit of win rate."""
    to_play = "BW"[k % 2]
    mover = black if to_play == "B" else 1 - black
    return {"move_number": k, "to_play": to_play, "black_winrate": black, "winrate": mover,
            "black_score_lead": round(20 * (black - 0.5), 1), "score_lead": None, "visits": 8,
            "best": best, "candidates": [], "played": played, "played_rank": 1}


def test_n_and_shift_n_step_through_the_mistakes_over_the_threshold_in_game_order(page, site: Site) -> None:
    upload(page, site, REVIEW_SGF)
    game_id = int(page.url.rstrip("/").split("/")[-2])
    played = ["E5", "C7", "G7", "C3", "G3", "D6", "G5", None]
    black = [0.50, 0.45, 0.40, 0.20, 0.35, 0.33, 0.60, 0.58]
    best = ["D4", "C7", "C3", "G3", "D5", "F4", "E3", "pass"]  # move 2 (C7) is the search's own choice
    rows = zip(black, played, best, strict=True)
    site.add_analysis(game_id, [made_up_entry(k, *row) for k, row in enumerate(rows)])
    page.reload()
    page.wait_for_function("() => document.getElementById('mistakes').textContent.startsWith('Move ')")
    # ranked by points lost at first (the analysis has score leads), from 3 points
    assert page.locator("#mistakes-by").input_value() == "score"
    assert page.locator("#mistake-threshold").input_value() == "3"
    page.select_option("#mistakes-by", "winrate")
    assert page.locator("#mistake-threshold").input_value() == "5"
    page.fill("#mistake-threshold", "10")
    page.locator("#mistake-threshold").blur()  # the keys are the page's again
    # over 10% win rate: move 3 (Black G7, -20%), move 4 (White C3, -15%), move 6 (White D6, -27%)
    assert page.locator("#mistakes .over-threshold").count() == 3
    shown = []
    for key in ["n", "n", "n", "n", "N"]:
        page.keyboard.press(key)
        shown.append((page.locator("#move-label").inner_text(), page.locator("#mistake-step").inner_text()))
    assert [label for label, _ in shown] == ["2 / 7", "3 / 7", "5 / 7", "5 / 7", "3 / 7"]
    assert shown[0][1].startswith("Mistake 1 of 3: Move 3 Black G7: −20.0%")
    assert shown[2][1].startswith("Mistake 3 of 3: Move 6 White D6: −27.0%")
    assert shown[3][1] == "No mistake over the threshold after move 5."
    page.select_option("#mistakes-by", "score")
    assert page.locator("#mistake-threshold").input_value() == "3"
    assert page.locator("#threshold-unit").inner_text() == "points"
    page.fill("#mistake-threshold", "5")  # only D6's 5.4 points
    page.keyboard.press("Home")
    page.click("#next-mistake")
    assert page.locator("#move-label").inner_text() == "5 / 7"
    page.fill("#mistake-threshold", "3")  # now C3's 3 points too, and G7's 4
    page.click("#prev-mistake")
    step = page.locator("#mistake-step").inner_text()
    assert step.startswith("Mistake 2 of 3: Move 4 White C3: −3.0 points")
    page.select_option("#mistakes-by", "winrate")  # each ranking keeps its own threshold
    assert page.locator("#mistake-threshold").input_value() == "10"


LONG_SGF = ("(;GM[1]FF[4]SZ[9]KM[7.5];B[dd];W[ei];B[hh];W[hb];B[ef];W[ah];B[ii];W[ia];B[ba];W[dh];B[be]"
            ";W[gd];B[ad];W[ih];B[ai];W[eg];B[ec];W[ae];B[ff];W[cb];B[bi];W[hi];B[he];W[ed])")


def analysis_row(site: Site) -> tuple[str, int]:
    """The status and saved positions of the site's latest whole-game analysis."""
    with sqlite3.connect(site.database) as db:
        latest = "SELECT status, results FROM frontend_analysis ORDER BY id DESC"
        status, results = db.execute(latest).fetchone()
    return status, len(json.loads(results))


def test_the_server_stops_within_seconds_mid_analysis_and_a_killed_ones_analysis_is_not_left_running(
    page, tmp_path: Path
) -> None:
    """In-process, stopping the server cancels a whole-game analysis after its current position,
    keeping what it saved (analysing again resumes it); a server killed outright leaves an analysis
    that the next one cancels."""
    site = Site(tmp_path, GOWEB_REVIEW_VISITS="300", GOWEB_REVIEW_CHUNK="1")  # deep: 1,200 visits a position
    site.start()
    try:
        upload(page, site, LONG_SGF)
        saved = 0
        for graceful in (True, False):
            page.select_option("#depth", "deep")
            page.click("#analyze-game")  # the second time, the cancelled analysis carries on
            status_starts(page, f"Analysing: {saved + 1} / 25", timeout=60000)
            began = time.monotonic()
            if graceful:
                site.process.terminate()
            else:
                site.process.kill()
            site.process.wait(timeout=60)
            stopped_in = time.monotonic() - began
            status, saved = analysis_row(site)
            assert 1 <= saved < 25
            if graceful:
                assert stopped_in < 15 and status == "cancelled"
            else:
                assert status == "running"  # nobody left to say otherwise, until the next server
            site.start()
            page.reload()
            status_starts(page, f"Analysis cancelled after {saved} position")
            assert page.locator("#analyze-game").is_enabled() and analysis_row(site) == ("cancelled", saved)
    finally:
        site.stop()


def sign_up(page, site: Site, name: str) -> None:
    """Sign up as ``name`` from the site's form; returns on "My games"."""
    page.goto(site.url + "/accounts/signup/")
    page.fill("#id_username", name)
    page.fill("#id_password1", "a long Go proverb 19x19")
    page.fill("#id_password2", "a long Go proverb 19x19")
    page.click("main button[type=submit]")
    page.wait_for_url(site.url + "/games")


def test_accounts_adopt_the_sessions_games_and_a_share_link_opens_in_another_browser(
    browser, site: Site
) -> None:
    """Sign up adopts this browser's game; its share link opens read-only in a second browser
    context, which cannot open the game itself, even signed in; log out and in again."""
    errors: list[str] = []
    contexts = [browser.new_context(viewport={"width": 1000, "height": 800}) for _ in range(2)]
    owner, viewer = (context.new_page() for context in contexts)
    for page in (owner, viewer):
        page.on("pageerror", lambda e: errors.append(str(e)))
    name = f"ada{free_port()}"
    try:
        upload(owner, site, REVIEW_SGF)
        game_id = int(owner.url.split("/")[-2])
        sign_up(owner, site, name)
        assert "1 game of this browser moved to your account." in owner.locator(".messages").inner_text()
        assert owner.locator("#signed-in").inner_text() == name
        assert owner.locator(f'table.games a[href="/game/{game_id}/review"]').count() >= 1

        owner.goto(f"{site.url}/game/{game_id}/review")
        owner.click("#share")
        link = owner.locator("#share-link").input_value()
        assert link.startswith(f"{site.url}/shared/")

        viewer.goto(link)
        status_starts(viewer, "7 moves.")
        viewer.wait_for_selector("#goban .candidates circle")  # the viewer's own position analysis
        assert viewer.locator("#shared-note").is_visible()
        assert viewer.locator("#analyze-game, #download, #share").count() == 0
        viewer.keyboard.press("End")
        assert viewer.locator("#move-label").inner_text() == "7 / 7"
        click_point(viewer, "A1")  # past the game's end: a variation, the game's record kept as it is
        viewer.wait_for_function(
            "() => document.getElementById('move-label').textContent === '8 (variation)'"
        )
        viewer.keyboard.press("ArrowLeft")
        assert viewer.locator("#move-label").inner_text() == "7 / 7"
        viewer.keyboard.press("ArrowLeft")
        click_point(viewer, "A1")  # a variation of the viewer's own, which the owner's game never gets
        viewer.wait_for_function(
            "() => document.getElementById('move-label').textContent === '7 (variation)'"
        )
        assert "explored here only" in viewer.locator("#tree-info").inner_text()
        assert viewer.locator("#promote-branch").count() == 0
        viewer.wait_for_selector("#goban .candidates circle")  # analysed like any position
        with sqlite3.connect(site.database) as db:
            (sgf,) = db.execute("SELECT sgf FROM frontend_game WHERE id = ?", (game_id,)).fetchone()
        assert len(list(read_sgf(sgf).lines())) == 1 and "[ai]" not in sgf
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        viewer.screenshot(path=str(SCREENSHOTS / "accounts-shared-review.png"), full_page=True)
        for url in (f"/game/{game_id}/review", f"/game/{game_id}/sgf"):
            response = viewer.goto(site.url + url)
            assert response.status == 403
        assert "This game belongs to another account." in viewer.content()
        sign_up(viewer, site, name + "b")
        assert viewer.locator("table.games").count() == 0
        assert viewer.goto(f"{site.url}/game/{game_id}/").status == 403

        owner.goto(site.url + "/games")
        owner.click("#logout")
        owner.goto(site.url + "/games")
        assert "No games yet" in owner.locator("main").inner_text()
        owner.goto(site.url + "/accounts/login/")
        owner.fill("#id_username", name)
        owner.fill("#id_password", "a long Go proverb 19x19")
        owner.click("main button[type=submit]")
        owner.wait_for_url(site.url + "/games")
        assert owner.locator(f'table.games a[href="/game/{game_id}/review"]').count() >= 1
        assert errors == []
    finally:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        owner.screenshot(path=str(SCREENSHOTS / "accounts-owner.png"), full_page=True)
        viewer.screenshot(path=str(SCREENSHOTS / "accounts-viewer.png"), full_page=True)
        for context in contexts:
            context.close()
