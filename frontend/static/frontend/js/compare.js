/**
 * The compare page: two next-move networks side by side on one game. The server sends the whole
 * comparison at once (a `comparison` message, docs/protocol.md); the page then moves through the
 * game with « ◀ ▶ », ← → Home End, or a click on a surprising move.
 *
 * The page asks for one comparison at a time: a menu changed while one is on its way is asked for
 * when that one's answer (or refusal) comes, so switching networks quickly does not pile requests
 * up against the cap of queued analyses. It shows only a comparison of the networks its menus name
 * now: an answer to menus since changed is dropped.
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

/** How long a request on its way holds back the next one (its answer may never come: a job withdrawn). */
const GIVE_UP_MS = 5 * 60 * 1000;

/** Whether the pairs of network names `x` and `y` are the same, in the same order. */
const samePair = (x, y) => Boolean(x && y) && x[0] === y[0] && x[1] === y[1];

/** Run the compare page over `socket`, from the `timeline` the template embeds. */
export function comparePage(socket) {
  const review = new Review(readJson("timeline"));
  // `asked`: the pair of the request on its way (null: none), whose answer or refusal is awaited
  const state = { review, result: null, asked: null, names: () => [$("net-a").value, $("net-b").value] };
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
  /** Show comparison `result` (null: none, while the menus' one is on its way). */
  const show = (result) => {
    state.result = result;
    if (result) {
      $("error").textContent = ""; // a refusal before is no longer the news
      showSummary(state);
      showSurprises(state, go);
    } else {
      $("summary").querySelector("tbody").replaceChildren();
      $("surprises").replaceChildren();
    }
    render();
  };
  /** Say the comparison shown is the menus' one. */
  const compared = () => {
    $("status").textContent = `${review.last} moves compared. Use ← → Home End to navigate.`;
  };
  /** Send the request of the menus' pair. */
  const send = () => {
    const [a, b] = state.names();
    state.asked = [a, b];
    state.askedAt = Date.now();
    socket.send({ type: "compare", a, b });
  };
  /** The menus changed (or the socket connected): drop what they no longer name, and ask for their pair. */
  const ask = () => {
    const [a, b] = state.names();
    excludeEachOther();
    $("retry").hidden = true;
    $("status").textContent = `Comparing ${a} and ${b} on every move…`;
    history.replaceState(null, "", `?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
    if (state.result && !samePair(state.result.networks, [a, b])) show(null);
    if (!state.asked || Date.now() - state.askedAt > GIVE_UP_MS) send(); // else sent when the answer on its way comes
  };
  /** The request on its way was answered or refused: ask for the menus' pair if it is another one. */
  const answered = () => {
    const was = state.asked;
    state.asked = null;
    if (!samePair(was, state.names())) send();
  };

  socket.on("state", () => {
    state.asked = null; // a new connection: an answer to the old one's request will not come
    ask();
  });
  socket.on("comparison", (m) => {
    const current = samePair(m.networks, state.names());
    if (samePair(m.networks, state.asked)) answered();
    if (!current) return; // an answer to menus since changed: theirs is asked for
    show(m);
    compared();
  });
  socket.on("error", (m) => {
    $("error").textContent = m.message;
    if (!state.asked) return;
    const refused = state.asked;
    answered(); // the page sends nothing else: the error refuses (or failed) the comparison on its way
    if (state.asked) return; // the menus changed meanwhile: their pair is asked for now
    if (state.result) compared(); // the menus' pair came before (a request again on reconnecting)
    else $("status").textContent = `${refused[0]} and ${refused[1]} were not compared (the message below says why).`;
    $("retry").hidden = false;
  });
  $("retry").onclick = ask;
  $("net-a").onchange = ask;
  $("net-b").onchange = ask;
  $("surprise-filter").onchange = () => showSurprises(state, go);
  bindMoveButtons(go, () => review.k, review.last);
  for (const id of ["goban-a", "goban-b"]) bindWheel($(id), (step) => go(review.k + step));
  render();
}
