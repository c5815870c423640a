# ruff: noqa: F811 - pytest passes the fixtures imported below to the tests by name
"""The play page in Chromium (Playwright): the bot plays on after an early pass, a pass on an open
board asks first, hints, the teaching mode, and each point's owner while the dead stones are marked.

It serves the site as tests/test_web_browser.py does (its fixtures and helpers), with the shipped
networks: the search levels play with the default network on the CPU.
"""

from __future__ import annotations

import json

from tests.test_web_browser import (  # noqa: F401 - the fixtures browser, page and site are used by name
    Site,
    browser,
    click_point,
    new_game,
    page,
    received,
    site,
    status_starts,
)


def listen(page) -> list[dict]:
    """The board websocket's messages to the page, filled as they come."""
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    return frames


def coach_says(page, text: str) -> None:
    """Wait until the coach's line holds ``text``."""
    page.wait_for_function(
        "(text) => document.getElementById('coach-text').textContent.includes(text)", arg=text, timeout=60000)


def count_is(page, selector: str, n: int) -> None:
    """Wait until ``n`` elements match ``selector``."""
    page.wait_for_function(
        "([sel, n]) => document.querySelectorAll(sel).length === n", arg=[selector, n], timeout=10000)


def test_an_early_pass_asks_first_and_the_bot_answers_it_with_a_move_on_an_open_board(
    page, site: Site
) -> None:
    frames = listen(page)
    new_game(page, site, level="mcts-50")
    status_starts(page, "Your move")
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3", timeout=60000)
    page.click("#pass")
    assert page.locator("#pass-confirm").is_visible()  # the board is open: the page asks
    page.click("#pass-cancel")
    assert not page.locator("#pass-confirm").is_visible()
    assert page.locator("#status").inner_text().startswith("Your move (Black), move 3")  # nothing sent
    page.click("#pass")
    page.click("#pass-anyway")
    status_starts(page, "Your move (Black), move 5", timeout=60000)
    state = received(page, frames, lambda m: m["type"] == "state" and m["move_number"] == 4)
    assert state["phase"] == "playing" and state["moves"][2] == ["B", "pass"]
    assert state["moves"][3][0] == "W" and state["moves"][3][1] != "pass"  # the bot played on
    assert "the bot passed" not in page.locator("#status").inner_text()


def test_a_hint_shows_the_networks_top_3_for_the_players_move_on_the_board(page, site: Site) -> None:
    frames = listen(page)
    new_game(page, site, level="policy")
    status_starts(page, "Your move")
    page.click("#hint")
    page.wait_for_selector("#goban .coach .hint")
    analysis = received(page, frames, lambda m: m["type"] == "analysis")
    by_prior = sorted((c for c in analysis["candidates"] if c["move"] != "pass"), key=lambda c: -c["prior"])
    top3 = [c["move"] for c in by_prior[:3]]
    hinted = page.eval_on_selector_all(
        "#goban .coach .hint", "cs => cs.map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')])")
    assert [f"{'ABCDEFGHJ'[x]}{9 - y}" for x, y in hinted] == top3
    assert page.locator("#goban .coach .hint-rank").all_text_contents() == ["1", "2", "3"]
    assert page.locator("#coach-text").inner_text().startswith(f"Hint: the network's top 3: {top3[0]} ")
    click_point(page, "A1" if "A1" not in top3 else "J9")
    status_starts(page, "Your move (Black), move 3", timeout=60000)
    assert page.locator("#goban .coach").count() == 0  # a hint is for its position only


def test_teaching_says_what_each_move_lost_and_takes_back_a_move_over_the_threshold(page, site: Site) -> None:
    frames = listen(page)
    new_game(page, site, level="policy")
    status_starts(page, "Your move")
    page.check("#teach")
    click_point(page, "A1")
    coach_says(page, "Your move A1")
    verdict = page.locator("#coach-text").inner_text()
    before = received(page, frames, lambda m: m["type"] == "analysis" and m["move_number"] == 0)
    after = received(page, frames, lambda m: m["type"] == "analysis" and m["move_number"] == 1)
    lost = before["black_score_lead"] - after["black_score_lead"]
    assert f"{max(0.0, lost):.1f} points" in verdict
    status_starts(page, "Your move (Black), move 3", timeout=60000)

    page.check("#teach-undo")
    page.fill("#teach-threshold", "-1000")  # every move loses more than that: each is taken back
    click_point(page, "J9")
    coach_says(page, "taken back")
    status_starts(page, "Your move (Black), move 3", timeout=60000)
    best = received(page, frames, lambda m: m["type"] == "analysis" and m["move_number"] == 2)["best"]
    ring = page.locator("#goban .coach .better")
    ring.wait_for()
    x, y = int(ring.get_attribute("cx")), int(ring.get_attribute("cy"))
    assert f"{'ABCDEFGHJ'[x]}{9 - y}" == best


def test_while_the_dead_stones_are_marked_each_points_owner_is_shown_and_dead_stones_crossed(
    page, site: Site
) -> None:
    frames = listen(page)
    game_id = new_game(page, site)
    site.set_sgf(game_id, "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])")  # the bot passed
    page.reload()
    status_starts(page, "Your move")
    page.click("#pass")
    page.click("#pass-anyway")
    status_starts(page, "Both passed")
    state = received(page, frames, lambda m: m["type"] == "state" and m["phase"] == "scoring")
    if "C7" in state["dead"]:  # start from every stone alive
        click_point(page, "C7")
        count_is(page, "#goban .stone.dead", 0)
    assert page.locator("#goban .territory rect").count() == 0  # three stones in the open: all dame
    click_point(page, "C7")  # White's stone dead: Black's two stones own the board
    count_is(page, "#goban .territory rect.black", 79)
    assert page.locator("#goban .territory rect.white").count() == 0
    assert page.locator("#goban .dead-mark").count() == 1 and page.locator("#goban .stone.dead").count() == 1
