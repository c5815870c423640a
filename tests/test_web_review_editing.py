"""The review page in Chromium (Playwright), as a KaTrain or Sabaki user edits a game: the comment
box, deleting a variation, the menus in a variation, the place kept in the URL, and two tabs open on
one review.  The site and browser are those of ``tests/test_web_browser.py``."""

from __future__ import annotations

import json

from tests import test_web_browser as web
from tests.test_web_browser import REVIEW_SGF, click_point, received, status_starts, upload

pytestmark = web.pytestmark
browser, page, site = web.browser, web.page, web.site  # the fixtures: Chromium, a fresh page, the site


def label_is(page, text: str) -> None:
    page.wait_for_function("(text) => document.getElementById('move-label').textContent === text", arg=text)


def comment_is(page, text: str) -> None:
    page.wait_for_function(
        "(text) => document.getElementById('record-comment').textContent === text", arg=text
    )


def sent_frames(page) -> list[dict]:
    """The messages the page sends on its websocket, filled as they go."""
    frames: list[dict] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda text: frames.append(json.loads(text))))
    return frames


def test_the_comment_box_keeps_the_keys_escape_puts_it_back_and_save_keeps_it_over_a_reload(page, site):
    sent = sent_frames(page)
    upload(page, site, REVIEW_SGF)
    status_starts(page, "7 moves.")
    page.keyboard.press("ArrowRight")
    page.click("#comment-edit")
    page.keyboard.type("Black takes the centre")
    page.keyboard.press("ArrowLeft")  # moves the caret, not the game
    page.keyboard.press("End")
    assert page.locator("#move-label").inner_text() == "1 / 7"
    page.keyboard.press("Escape")  # put back as it was, nothing sent
    assert page.input_value("#comment-edit") == ""
    assert page.evaluate("document.activeElement.id") != "comment-edit"
    assert not [m for m in sent if m["type"] == "comment"]
    page.click("#comment-edit")
    page.keyboard.type("Black takes the centre")
    page.click("#comment-save")
    comment_is(page, "Black takes the centre")
    assert [m for m in sent if m["type"] == "comment"] == [
        {"type": "comment", "node": "BE5", "comment": "Black takes the centre"}
    ]
    assert page.url.endswith("#move=1")  # the place, kept in the URL as the player moves
    page.reload()
    status_starts(page, "7 moves.")
    assert page.locator("#move-label").inner_text() == "1 / 7"  # the reload comes back to it
    assert page.locator("#record-comment").inner_text() == "Black takes the centre"
    assert page.input_value("#comment-edit") == "Black takes the centre"
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "0 / 7" and not page.url.endswith("#move=1")


def into_a_variation(page, site) -> None:
    """Upload the review game, go to move 2 and play D4 there: a variation's node, shown."""
    upload(page, site, REVIEW_SGF)
    status_starts(page, "7 moves.")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    click_point(page, "D4")
    label_is(page, "3 (variation)")


def test_a_variations_node_and_its_comment_come_back_after_a_reload(page, site) -> None:
    into_a_variation(page, site)  # Black's move 3 in the game was G7
    assert page.url.endswith("#move=2&variation=BD4")
    page.fill("#comment-edit", "D4 is slow")
    page.keyboard.press("Control+Enter")  # saved: the box gives the focus up
    comment_is(page, "D4 is slow")
    page.reload()
    status_starts(page, "7 moves.")
    label_is(page, "3 (variation)")  # once the tree came
    assert page.input_value("#comment-edit") == "D4 is slow"
    assert page.locator("#record-comment").inner_text() == "D4 is slow"


def test_deleting_a_variation_asks_first_naming_its_moves_and_a_no_keeps_it(page, site) -> None:
    into_a_variation(page, site)
    click_point(page, "F4")
    label_is(page, "4 (variation)")
    page.keyboard.press("ArrowLeft")
    label_is(page, "3 (variation)")
    nodes = page.locator("#tree .tree-node").count()
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#delete-branch")
    assert asked == ["Delete this variation: 2 moves from move 3 on? This cannot be undone."]
    page.wait_for_timeout(300)
    assert page.locator("#tree .tree-node").count() == nodes  # kept
    assert page.locator("#move-label").inner_text() == "3 (variation)"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete-branch")
    label_is(page, "2 / 7")
    assert page.locator("#tree .tree-node").count() == nodes - 2


def test_in_a_variation_a_new_depth_is_asked_again_and_the_arrows_move_once_the_menu_is_chosen(page, site):
    sent = sent_frames(page)
    into_a_variation(page, site)
    page.wait_for_selector("#goban .candidates circle")  # the variation's position is analysed
    page.focus("#depth")
    page.select_option("#depth", "fast")
    asked = received(page, sent, lambda m: m["type"] == "analyze" and m.get("depth") == "fast")
    assert asked["node"] == "BE5 WC7 BD4"
    assert page.evaluate("document.activeElement.tagName") == "BODY"  # the menu gave the focus up
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "2 / 7"
    page.focus("#comment-edit")  # a text field keeps its keys
    page.keyboard.press("ArrowLeft")
    assert page.locator("#move-label").inner_text() == "2 / 7"


def test_a_second_tab_follows_the_other_tabs_tree_changes_and_whole_game_analysis(browser, site) -> None:
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    try:
        first = context.new_page()
        upload(first, site, REVIEW_SGF)
        status_starts(first, "7 moves.")
        second = context.new_page()  # the same session: the owner's second tab
        second.goto(first.url)
        status_starts(second, "7 moves.")
        second.wait_for_function("() => document.querySelectorAll('#tree .tree-node').length === 8")
        first.fill("#comment-edit", "A note from the first tab")
        first.click("#comment-save")
        comment_is(second, "A note from the first tab")  # the start, which both tabs show
        first.keyboard.press("ArrowRight")
        click_point(first, "D4")
        second.wait_for_function("() => document.querySelectorAll('#tree .tree-node').length === 9")
        first.click("#analyze-game")
        status_starts(second, "Analysis complete.", timeout=60000)  # followed there too
        assert second.locator("#cancel").is_hidden()
    finally:
        context.close()


def test_an_analysis_of_other_moves_started_elsewhere_leaves_the_page_as_it_was(page, site) -> None:
    """Another tab's analysis of the game as it now stands (a variation made its main line there):
    this page says so and does not wait on it, though it follows one of its own moves."""
    upload(page, site, REVIEW_SGF)
    status_starts(page, "7 moves.")
    seen = page.evaluate("""async () => {
        const { followWholeGameAnalysis } = await import('/static/frontend/js/review/whole-game.js');
        const handlers = {};
        const socket = { on: (type, handler) => { handlers[type] = handler; }, send: () => {} };
        const review = { timeline: { record: 'ours' }, entries: [], mistakes: null, k: 0 };
        const noop = () => {};
        followWholeGameAnalysis(socket, review, { render: noop, showGraph: noop, go: noop, readOnly: false });
        const look = () => [document.getElementById('status').textContent,
                            document.getElementById('cancel').hidden];
        handlers.analysis_started({ analysis: 2, record: 'theirs', results: [] });
        const theirs = look();
        handlers.analysis_started({ analysis: 3, record: 'ours', results: [] });
        return [theirs, look()];
    }""")
    assert seen == [
        ["An analysis of the game as it now stands started (from another tab or window): reload the page to "
         "follow it.", True],
        ["Analysis started: its first position comes in a moment…", False],
    ]
