/**
 * The compare page: two next-move networks side by side on one game. The server sends the whole
 * comparison at once (a `comparison` message, docs/protocol.md); the page then moves through the
 * game with « ◀ ▶ », ← → Home End, or a click on a surprising move.
 */

import { $, readJson } from "./dom.js";
import { draw } from "./goban.js";
import { boardOf } from "./compare/boards.js";
import { showLists, showPlayed, showSummary, showSurprises } from "./compare/panel.js";
import { bindMoveButtons } from "./move-buttons.js";
import { Review } from "./review/state.js";
import { bindWheel } from "./wheel.js";

/** Each network menu greys out the network the other one shows: a network is compared with another. */
function excludeEachOther() {
  for (const [id, other] of [["net-a", "net-b"], ["net-b", "net-a"]]) {
    for (const option of $(id).options) option.disabled = option.value === $(other).value;
  }
}

/** Run the compare page over `socket`, from the `timeline` the template embeds. */
export function comparePage(socket) {
  const review = new Review(readJson("timeline"));
  const state = { review, result: null, names: () => [$("net-a").value, $("net-b").value] };
  const render = () => {
    $("move-label").textContent = `${review.k} / ${review.last}`;
    draw($("goban-a"), boardOf(state, 0));
    draw($("goban-b"), boardOf(state, 1));
    showPlayed(state);
    showLists(state);
  };
  const go = (to) => {
    review.moveTo(to);
    render();
  };
  const ask = () => {
    const [a, b] = state.names();
    excludeEachOther();
    $("status").textContent = `Comparing ${a} and ${b} on every move…`;
    history.replaceState(null, "", `?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
    socket.send({ type: "compare", a, b });
    render();
  };

  socket.on("state", ask);
  socket.on("comparison", (m) => {
    state.result = m;
    $("status").textContent = `${review.last} moves compared. Use ← → Home End to navigate.`;
    showSummary(state);
    showSurprises(state, go);
    render();
  });
  $("net-a").onchange = ask;
  $("net-b").onchange = ask;
  $("surprise-filter").onchange = () => showSurprises(state, go);
  bindMoveButtons(go, () => review.k, review.last);
  for (const id of ["goban-a", "goban-b"]) bindWheel($(id), (step) => go(review.k + step));
  render();
}
