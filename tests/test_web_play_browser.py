# ruff: noqa: F811 - pytest passes the fixtures imported below to the tests by name
"""The play page in Chromium (Playwright): the bot plays on after an early pass, a pass on an open
board asks first, hints, the teaching mode, and each point's owner while the dead stones are marked;
a lost connection (nothing played or queued, the clock never below zero), the bot's pass after a
reload, the buttons disabled with a reason, nothing from the coach while the clock is paused, the
last move's mark over its number, the keys and looking back through the game, and who won.

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
    start_timed_game,
    status_starts,
    stones,
    upload,
)


def listen(page) -> list[dict]:
    """The board websocket's messages to the page, filled as they come."""
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda text: frames.append(json.loads(text))))
    return frames


def sent(page) -> list[dict]:
    """The page's messages on its board websockets, filled as they go."""
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda text: frames.append(json.loads(text))))
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


def both_passed(page, site: Site) -> int:
    """Open a new 9x9 game whose bot passed at move 4 and pass on the open board (past the page's
    question); return the game's id once both passed."""
    game_id = new_game(page, site)
    site.set_sgf(game_id, "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])")  # the bot passed
    page.reload()
    status_starts(page, "Your move")
    page.click("#pass")
    page.click("#pass-anyway")
    status_starts(page, "Both passed")
    return game_id


def test_while_the_dead_stones_are_marked_each_points_owner_is_shown_and_dead_stones_crossed(
    page, site: Site
) -> None:
    frames = listen(page)
    both_passed(page, site)
    state = received(page, frames, lambda m: m["type"] == "state" and m["phase"] == "scoring")
    if "C7" in state["dead"]:  # start from every stone alive
        click_point(page, "C7")
        count_is(page, "#goban .stone.dead", 0)
    assert page.locator("#goban .territory rect").count() == 0  # three stones in the open: all dame
    click_point(page, "C7")  # White's stone dead: Black's two stones own the board
    count_is(page, "#goban .territory rect.black", 79)
    assert page.locator("#goban .territory rect.white").count() == 0
    assert page.locator("#goban .dead-mark").count() == 1 and page.locator("#goban .stone.dead").count() == 1


def test_while_the_connection_is_down_nothing_is_played_or_queued_and_the_clock_never_goes_below_zero(
    page, site: Site
) -> None:
    out = sent(page)
    page.goto(f"{site.url}/new")
    start_timed_game(page, "byoyomi", {"main": "0", "period": "6", "periods": "1"})
    status_starts(page, "Your move")
    site.stop()
    try:
        status_starts(page, "Disconnected — reconnecting…")
        for button in ("pass", "undo", "resign", "hint", "estimate"):
            assert page.locator(f"#{button}").is_disabled(), button
        assert page.get_attribute("#pass", "title").startswith("Not connected")
        click_point(page, "E5")  # dropped, and said so: not played when the connection is back
        assert "your move E5 was not sent" in page.inner_text("#error")
        assert stones(page, "black") == 0
        page.wait_for_function(
            "() => document.getElementById('clock-B').textContent === 'Black 0:00 (out of time)'",
            timeout=15000)
        page.wait_for_timeout(7000)  # past the single period twice over: no count of periods below zero
        assert "-" not in page.inner_text("#clock-B") + page.inner_text("#clock-W")
        assert page.inner_text("#clock-B") == "Black 0:00 (out of time)"
    finally:
        site.start()
    status_starts(page, "Game over: W+T — you ran out of time: the bot won", timeout=30000)
    assert stones(page, "black") == 0 and page.inner_text("#error") == ""
    assert not [m for m in out if m["type"] in ("play", "pass", "undo", "resign")]
    assert len([m for m in out if m["type"] == "state"]) <= 2  # no pile of requests made while down


def test_after_a_reload_the_status_still_says_that_the_bot_passed(page, site: Site) -> None:
    game_id = new_game(page, site)
    site.set_sgf(game_id, "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese];B[ee];W[cc];B[gg];W[])")  # the bot passed
    page.reload()
    status_starts(page, "Your move (Black), move 5 — the bot passed")


WATCH_THE_BUTTONS = """() => {
  window.seen = [];
  const status = document.getElementById('status');
  const pass = document.getElementById('pass');
  new MutationObserver(() => window.seen.push([status.textContent, pass.disabled, pass.title]))
    .observe(status, { childList: true, characterData: true, subtree: true });
}"""


def test_undo_and_pass_are_disabled_with_the_reason_when_they_cannot_work(page, site: Site) -> None:
    new_game(page, site)
    status_starts(page, "Your move")
    undo = page.locator("#undo")
    assert undo.is_disabled() and undo.get_attribute("title").startswith("Nothing to take back")
    page.evaluate(WATCH_THE_BUTTONS)
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    thinking = [s for s in page.evaluate("window.seen") if s[0].startswith("The bot is thinking")]
    assert thinking and all(disabled and title == "The bot is thinking" for _, disabled, title in thinking)
    assert not undo.is_disabled() and undo.get_attribute("title").startswith("Take back your last move")
    assert not page.locator("#pass").is_disabled()

    page.goto(f"{site.url}/new")  # a handicap game: the bot moves first, and there is no move of mine to undo
    page.select_option("#id_size", "9")
    page.select_option("#id_bot_level", "rules")
    page.fill("#id_handicap", "2")
    page.click("button[type=submit]")
    page.wait_for_selector("#status")  # the game's page, not the form still going away
    status_starts(page, "Your move (Black), move 2")
    assert undo.is_disabled() and undo.get_attribute("title").startswith("Nothing to take back")


def test_hints_and_the_estimate_wait_while_the_clock_is_paused(page, site: Site) -> None:
    out = sent(page)
    page.goto(f"{site.url}/new")
    start_timed_game(page, "fischer", {"main": "120", "period": "10"})
    status_starts(page, "Your move")
    coach = ("#hint", "#estimate", "#show-territory")
    assert not any(page.locator(c).is_disabled() for c in coach)
    page.click("#pause")
    status_starts(page, "Paused: resume the clock")
    for control in coach:
        assert page.locator(control).is_disabled(), control
        assert "paused" in page.get_attribute(control, "title"), control
    page.keyboard.press("p")  # the keys act as the buttons: nothing while paused
    page.wait_for_timeout(500)
    assert not [m for m in out if m["type"] in ("analyze", "estimate", "pass")]
    page.click("#pause")
    status_starts(page, "Your move")
    assert not any(page.locator(c).is_disabled() for c in coach)
    assert page.get_attribute("#hint", "title") == "The network's top 3 moves for you, on the board"


def test_with_move_numbers_the_last_move_keeps_a_ring_and_its_number_stands_out(page, site: Site) -> None:
    frames = listen(page)
    new_game(page, site)
    status_starts(page, "Your move")
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    last = received(page, frames, lambda m: m["type"] == "state" and m["move_number"] == 2)["last_move"]
    page.check("#show-numbers")
    ring = page.locator("#goban .last.ring")
    assert ring.count() == 1 and page.locator("#goban .last").count() == 1
    x, y = int(ring.get_attribute("cx")), int(ring.get_attribute("cy"))
    assert f"{'ABCDEFGHJ'[x]}{9 - y}" == last
    assert page.locator("#goban .number.last-number").all_text_contents() == ["2"]
    page.uncheck("#show-numbers")
    assert page.locator("#goban .last").count() == 1 and page.locator("#goban .last.ring").count() == 0


def test_keys_pass_and_undo_and_look_back_through_the_game_while_playing(page, site: Site) -> None:
    out = sent(page)
    new_game(page, site)
    status_starts(page, "Your move")
    page.keyboard.press("u")  # nothing to take back: the disabled button ignores it
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    assert [m["type"] for m in out if m["type"] in ("undo", "play")] == ["play"]
    page.keyboard.press("u")
    status_starts(page, "Your move (Black), move 1")
    assert (stones(page, "black"), stones(page, "white")) == (0, 0)
    click_point(page, "E5")
    status_starts(page, "Your move (Black), move 3")
    click_point(page, "C3")
    status_starts(page, "Your move (Black), move 5")

    viewing = page.locator("#viewing")
    assert not viewing.is_visible() and page.inner_text("#move-label") == "4 / 4"
    page.keyboard.press("ArrowLeft")
    assert viewing.inner_text().startswith("Viewing move 3 of 4 — End")
    assert (stones(page, "black"), stones(page, "white")) == (2, 1)
    page.keyboard.press("Home")
    assert viewing.inner_text().startswith("Viewing move 0 of 4")
    assert (stones(page, "black"), stones(page, "white")) == (0, 0)
    plays = len([m for m in out if m["type"] == "play"])
    click_point(page, "G7")  # an earlier position: the board does not play
    page.wait_for_timeout(500)
    assert len([m for m in out if m["type"] == "play"]) == plays and "nudge" in viewing.get_attribute("class")
    page.keyboard.press("ArrowRight")
    assert viewing.inner_text().startswith("Viewing move 1 of 4") and stones(page, "black") == 1
    page.keyboard.press("End")
    assert not viewing.is_visible() and (stones(page, "black"), stones(page, "white")) == (2, 2)
    assert page.locator("#status").inner_text().startswith("Your move (Black), move 5")

    page.keyboard.press("p")  # an open board: the pass asks first, as the button does
    assert page.locator("#pass-confirm").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#pass-confirm").is_visible()
    assert not [m for m in out if m["type"] == "pass"]


def test_the_result_says_who_won_in_the_players_words(page, site: Site) -> None:
    both_passed(page, site)
    if page.locator("#goban .stone.dead").count() == 0:  # White's lone stone dead: Black owns the board
        click_point(page, "C7")
    page.wait_for_function("() => document.getElementById('score').textContent.endsWith("
                           "'→ B+73.5 — you would win by 73.5 points')")
    page.click("#accept")
    status_starts(page, "Game over: B+73.5 — you won by 73.5 points")

    new_game(page, site)
    status_starts(page, "Your move")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    status_starts(page, "Game over: W+R — you resigned")
    words = page.evaluate("""async () => {
      const { outcomeText } = await import("/static/frontend/js/play/panel.js");
      return [["W+R", "W"], ["B+T", "W"], ["W+T", "W"], ["W+57.5", "B"], ["B+1", "B"], ["0", "B"]]
        .map(([result, human]) => outcomeText(result, human));
    }""")
    assert words == ["the bot resigned: you won", "you ran out of time: the bot won",
                     "the bot ran out of time: you won", "the bot won by 57.5 points", "you won by 1 point",
                     "a draw"]


def test_display_settings_are_remembered_across_visits_and_board_pages(page, site: Site) -> None:
    game_id = new_game(page, site)
    assert page.is_checked("#show-coords") and not page.is_checked("#show-numbers")  # the defaults
    page.uncheck("#show-coords")
    page.check("#show-numbers")
    assert page.locator("#goban .coords").count() == 0
    page.reload()
    status_starts(page, "Your move")
    assert not page.is_checked("#show-coords") and page.is_checked("#show-numbers")
    assert page.locator("#goban .coords").count() == 0  # drawn as remembered from the start
    upload(page, site, "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])")  # the review page shares them
    assert not page.is_checked("#show-coords") and page.is_checked("#show-numbers")
    page.select_option("#graph-mode", "score")
    page.reload()
    page.wait_for_selector("#goban .grid")
    assert page.input_value("#graph-mode") == "score" and not page.is_checked("#show-coords")
    page.goto(f"{site.url}/game/{game_id}/")
    status_starts(page, "Your move")
    assert not page.is_checked("#teach")  # what asks the server for work starts afresh
