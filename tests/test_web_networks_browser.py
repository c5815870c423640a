# ruff: noqa: F811 - pytest passes the fixtures imported below to the tests by name
"""The "look inside the networks" pages in Chromium (Playwright): the compare page shows only the
comparison its menus name and says when one was refused; the review page's back-prediction heatmap
is the menu's network's, and says why there is none; the feature viewer draws signed planes on a
diverging scale.

It serves the site as tests/test_web_browser.py does (its fixtures and helpers). The board
websocket goes through a relay in the test (Playwright's ``route_web_socket``), which can hold the
server's answers, deliver them late or out of order, refuse a request as a server over its cap
does, or add a stale answer of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from tests.test_web_browser import (  # noqa: F401 - the fixtures browser, page, site, two_network_site by name
    REVIEW_SGF,
    Site,
    browser,
    page,
    point_of,
    site,
    two_network_site,
    upload,
)

REFUSAL = ("too much work queued: you already have 4 position analyses queued or running;"
           " wait for one to finish")

# The page counts in window.__received the messages the relay has sent it, once its handlers have run:
# once the count reaches n, the page has handled the first n. (Routed, the page's socket is
# Playwright's stand-in, which hands each message to the page with dispatchEvent; the messages of
# the socket to the server are the browser's own events.)
COUNT_RECEIVED = """
window.__received = 0;
const dispatch = EventTarget.prototype.dispatchEvent;
EventTarget.prototype.dispatchEvent = function (event) {
  const result = dispatch.call(this, event);
  if (event.type === "message" && "readyState" in this) window.__received += 1;
  return result;
};
"""


class Relay:
    """The page's board websockets through the test: every message the page sends (``sent``) goes
    to the server unless ``refuse(message)`` (then the page gets the cap's error instead); each one
    the server sends goes to the page unless ``hold(message)`` (kept in ``held``), as the list
    ``rewrite(message)`` makes of it."""

    def __init__(self, page) -> None:
        self.page = page
        self.sent: list[dict] = []
        self.held: list[dict] = []
        self.delivered = 0
        self.refuse: Callable[[dict], bool] = lambda m: False
        self.hold: Callable[[dict], bool] = lambda m: False
        self.rewrite: Callable[[dict], list[dict]] = lambda m: [m]
        page.add_init_script(COUNT_RECEIVED)
        page.route_web_socket(re.compile(r".*/ws/board/.*"), self.route)

    def route(self, ws) -> None:
        self.ws = ws  # the page's latest socket (a new one on each page)
        self.delivered = 0
        server = ws.connect_to_server()

        def up(text: str) -> None:
            message = json.loads(text)
            self.sent.append(message)
            if self.refuse(message):
                self.deliver({"type": "error", "message": REFUSAL})
            else:
                server.send(text)

        def down(text: str) -> None:
            message = json.loads(text)
            if self.hold(message):
                self.held.append(message)
                return
            for each in self.rewrite(message):
                self.deliver(each)

        ws.on_message(up)
        server.on_message(down)

    def deliver(self, message: dict) -> None:
        self.delivered += 1
        self.ws.send(json.dumps(message))

    def handled(self) -> None:
        """Wait until the page has handled every message delivered to it."""
        self.page.wait_for_function("(n) => window.__received >= n", arg=self.delivered)

    def compares(self) -> list[str]:
        """The networks B of the page's compare requests, in order."""
        return [m["b"] for m in self.sent if m["type"] == "compare"]


def wait_for(page, condition: Callable[[], bool], timeout: float = 60) -> None:
    for _ in range(int(timeout * 20)):
        if condition():
            return
        page.wait_for_timeout(50)
    raise AssertionError("the condition did not come true")


def summary_names(page) -> list[str]:
    return page.eval_on_selector_all("#summary tbody tr", "rows => rows.map((r) => r.cells[0].textContent)")


def two_rows(page) -> None:
    """Wait until the per-game table shows a comparison (it takes a while on the CPU)."""
    rows = "() => document.querySelectorAll('#summary tbody tr').length === 2"
    page.wait_for_function(rows, timeout=120000)


def open_compare(page, site: Site) -> None:
    upload(page, site, REVIEW_SGF)
    page.click("#compare")
    page.wait_for_selector("#summary tbody tr", timeout=120000)
    assert summary_names(page) == ["golois-score", "golois-score-b12c128"]


def test_compare_drops_answers_to_menus_since_changed_and_asks_one_pair_at_a_time(page, site: Site) -> None:
    """The audit's switching of network B: answers late and out of order never show under menus
    naming other networks, and the switches made while one comparison is on its way do not pile up
    requests (against the cap of 4 queued analyses): the menus' pair is asked for once it answers."""
    relay = Relay(page)
    open_compare(page, site)
    first = next(m for m in reversed(relay.sent) if m["type"] == "compare")
    assert (first["a"], first["b"]) == ("golois-score", "golois-score-b12c128")
    relay.hold = lambda m: m["type"] == "comparison"
    for name in ["darkforest", "golois", "barratt"]:
        page.select_option("#net-b", name)
    wait_for(page, lambda: len(relay.held) == 1)  # darkforest's answer, held
    assert relay.compares()[-2:] == ["golois-score-b12c128", "darkforest"]  # golois, barratt: not yet
    assert page.locator("#status").inner_text() == "Comparing golois-score and barratt on every move…"
    assert summary_names(page) == [] and page.locator("#goban-b .candidates circle").count() == 0

    relay.hold = lambda m: m["type"] == "comparison" and m["networks"][1] == "barratt"  # the answer to come
    stale = relay.held.pop()
    assert stale["networks"] == ["golois-score", "darkforest"]
    relay.deliver(stale)
    relay.deliver({**stale, "networks": ["golois-score", "golois-score-b12c128"],
                   "summary": {"golois-score": stale["summary"]["golois-score"],
                               "golois-score-b12c128": stale["summary"]["darkforest"]}})
    relay.handled()
    assert summary_names(page) == [] and page.locator("#goban-b .candidates circle").count() == 0
    assert page.locator("#list-b-name").inner_text() == ""
    assert page.locator("#status").inner_text() == "Comparing golois-score and barratt on every move…"
    assert relay.compares()[-1] == "barratt"  # asked once darkforest's answer came; golois never

    wait_for(page, lambda: len(relay.held) == 1)
    relay.hold = lambda m: False
    relay.deliver(relay.held.pop())
    two_rows(page)
    assert summary_names(page) == ["golois-score", "barratt"]
    assert page.locator("#list-b-name").inner_text() == "barratt"
    assert page.locator("#status").inner_text().startswith("7 moves compared")
    assert relay.compares().count("golois") == 0 and page.locator("#error").inner_text() == ""


def test_a_refused_comparison_says_so_instead_of_compared_and_is_asked_again_from_a_button(
    page, site: Site
) -> None:
    relay = Relay(page)
    open_compare(page, site)
    relay.refuse = lambda m: m["type"] == "compare"
    page.select_option("#net-b", "darkforest")
    page.wait_for_function("() => !document.getElementById('retry').hidden")
    status = page.locator("#status").inner_text()
    assert status.startswith("golois-score and darkforest were not compared")
    assert "moves compared" not in status
    assert page.locator("#error").inner_text() == REFUSAL
    assert summary_names(page) == []  # not the comparison of the networks asked before

    relay.refuse = lambda m: False
    page.click("#retry")
    assert page.locator("#retry").is_hidden()
    two_rows(page)
    assert summary_names(page) == ["golois-score", "darkforest"]
    assert page.locator("#status").inner_text().startswith("7 moves compared")
    assert page.locator("#error").inner_text() == ""


def heat_cells(page) -> list[dict]:
    """The heatmap's squares drawn on the review board: point, opacity, class."""
    return page.eval_on_selector_all("#goban g.heat rect", """rects => rects.map((r) => ({
        x: Number(r.getAttribute("x")) + 0.5, y: Number(r.getAttribute("y")) + 0.5,
        opacity: Number(r.getAttribute("fill-opacity")), neg: r.classList.contains("neg")}))""")


def points(cells: list[dict], size: int = 9) -> set[int]:
    return {round(c["y"]) * size + round(c["x"]) for c in cells}


def test_a_back_prediction_heatmap_of_another_network_than_the_menus_is_not_shown(page, site: Site) -> None:
    """An answer whose heatmap another back-prediction network made (one asked before the menu
    changed, come late) is dropped; one that does not say which network made it is taken."""
    relay = Relay(page)
    answers: list[dict] = []

    def kept(m: dict) -> list[dict]:
        if m["type"] == "analysis" and m.get("move_number") == 7 and m.get("backpred"):
            answers.append(m)
        return [m]

    relay.rewrite = kept
    upload(page, site, REVIEW_SGF)
    assert page.locator("#backpred-network").input_value() == "backpred"
    page.select_option("#heatmap", "backpred")
    page.keyboard.press("End")
    wait_for(page, lambda: bool(answers))
    relay.handled()
    real = answers[0]
    relay.deliver({**real, "backpred_network": "tk-cnn1", "backpred": [1.0] * 81})  # come late
    relay.handled()
    assert real.get("backpred_network", "backpred") == "backpred"
    drawn = points(heat_cells(page))
    assert drawn == {p for p, v in enumerate(real["backpred"]) if v > 0.005} and len(drawn) < 81

    unknown = {k: v for k, v in real.items() if k != "backpred_network"} | {"backpred": [1.0] * 81}
    relay.deliver(unknown)  # from a server that does not say: taken
    relay.handled()
    assert len(heat_cells(page)) == 81


def ladder_info_says(page, text: str) -> None:
    page.wait_for_function(
        "(text) => document.getElementById('ladder-info').textContent.includes(text)", arg=text, timeout=60000
    )


def test_at_the_start_back_prediction_says_no_move_was_played_not_that_no_network_is_installed(
    page, site: Site
) -> None:
    upload(page, site, REVIEW_SGF)
    page.select_option("#heatmap", "backpred")
    page.keyboard.press("Home")
    ladder_info_says(page, "no move was played yet")
    assert "installed" not in page.locator("#ladder-info").inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#goban g.heat rect")
    assert page.locator("#ladder-info").inner_text() == ""


def test_without_a_back_prediction_network_shipped_the_page_says_none_is_installed(
    page, two_network_site: Site
) -> None:
    upload(page, two_network_site, REVIEW_SGF)
    assert page.locator("#backpred-network option").count() == 0
    page.select_option("#heatmap", "backpred")
    page.keyboard.press("ArrowRight")
    ladder_info_says(page, "No back-prediction network is installed")


def show_plane(page, feature_set: str, plane: str) -> None:
    page.select_option("#feature-set", feature_set)
    page.select_option("#feature-plane", plane)


def test_a_signed_feature_plane_is_drawn_on_a_diverging_scale_and_a_constant_one_evenly(
    page, site: Site
) -> None:
    """tk-oneplane's "stones +1/-1" at the end of REVIEW_SGF (White to play): White's stones (+1)
    red, Black's (-1) blue, the empty points clear; the komi plane (+7.5/15 for White) the same
    middling red on every point, and the legend says the value."""
    upload(page, site, REVIEW_SGF)
    page.keyboard.press("End")
    page.uncheck("#show-candidates")
    page.select_option("#heatmap", "features")
    show_plane(page, "tk-oneplane", "stones +1/-1")
    page.wait_for_function("() => document.querySelectorAll('#goban g.heat rect').length === 7")
    cells = heat_cells(page)
    black = {point_of(v) for v in ["E5", "G7", "G3", "G5"]}
    white = {point_of(v) for v in ["C7", "C3", "D6"]}
    assert points([c for c in cells if c["neg"]]) == black  # the opponent's -1
    assert points([c for c in cells if not c["neg"]]) == white  # the mover's +1
    assert {c["opacity"] for c in cells} == {0.85}  # |v| = 1 everywhere: the same strength
    legend = page.locator("#feature-legend").inner_text()
    assert "blue: negative" in legend and "Here from -1 to 1." in legend
    fill = "r => getComputedStyle(r).fill"
    assert page.locator("#goban g.heat rect.neg").first.evaluate(fill) != page.locator(
        "#goban g.heat rect:not(.neg)").first.evaluate(fill)

    show_plane(page, "golois-komi", "komi for us")
    page.wait_for_function("() => document.querySelectorAll('#goban g.heat rect').length === 81")
    cells = heat_cells(page)
    assert not any(c["neg"] for c in cells)
    assert {round(c["opacity"], 3) for c in cells} == {round(0.5 * 0.85 + 0.1, 3)}  # 0.5 of the range's 1
    assert "Every point is 0.5 here." in page.locator("#feature-legend").inner_text()

    show_plane(page, "golois-komi", "our stones")  # a plane of 0 and 1: as before, red on 1 only
    page.wait_for_function("() => document.querySelectorAll('#goban g.heat rect').length === 3")
    assert points(heat_cells(page)) == white and not any(c["neg"] for c in heat_cells(page))
