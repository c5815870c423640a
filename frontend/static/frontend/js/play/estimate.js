/**
 * The play page's score estimate (`estimate` in docs/protocol.md): "Estimate score" shows the
 * network's territory and score lead with Black's win rate until the next move; "Show territory
 * while playing" keeps them on, estimating again after every move. Neither while the clock is
 * paused (free thinking time).
 */

import { $, checked } from "../dom.js";
import { leadText } from "../score.js";
import { isPaused } from "./clock.js";

export class ScoreEstimate {
  #socket;
  #render;
  #moveNumber = null;
  #paused = false;
  #shown = null;

  /** Estimate over `socket`; `render()` redraws the board when the estimate comes or goes. */
  constructor(socket, render) {
    this.#socket = socket;
    this.#render = render;
    socket.on("estimate", (m) => this.#received(m));
    $("estimate").onclick = () => this.#ask();
    $("show-territory").onchange = () => {
      if (checked("show-territory")) this.#ask();
      else this.#clear();
      this.#render();
    };
  }

  /** Black's ownership of the position on the board (n*n in -1..1), or null when none is shown. */
  get territory() {
    return this.#shown?.ownership ?? null;
  }

  /**
   * Follow the game's `state`: a new position drops the estimate shown, and asks for its own when
   * the territory is kept on. The caller redraws.
   */
  follow(state) {
    this.#paused = isPaused(state);
    if (state.move_number === this.#moveNumber) return;
    this.#moveNumber = state.move_number;
    this.#clear();
    if (checked("show-territory")) this.#ask();
  }

  /**
   * Ask for the estimate of the position on the board (none before the first state came, nor
   * while the clock is paused: the panel disables the button and the territory's checkbox then).
   */
  #ask() {
    if (this.#moveNumber === null || this.#paused) return;
    $("estimate-text").textContent = "Estimating…";
    this.#socket.send({ type: "estimate", move_number: this.#moveNumber });
  }

  /** Show an `estimate` message, unless it is of a position the game has left. */
  #received(m) {
    if (m.move_number !== this.#moveNumber) return;
    this.#shown = m;
    $("estimate-text").textContent = estimateText(m);
    this.#render();
  }

  #clear() {
    this.#shown = null;
    $("estimate-text").textContent = "";
  }
}

/**
 * The estimate `m` in words: "Estimate: B+3.5 ± 8.0 · Black's win rate 62% · Count now: W+0.5 by
 * area", and what it lacks. The network's estimate projects the end of the game; the count is of
 * the board as it stands, dead stones removed (the better guide once the borders are settled).
 */
function estimateText(m) {
  const parts = [];
  const lead = m.black_score_lead;
  if (lead !== null) parts.push(`${leadText(lead)} ± ${m.score_stdev.toFixed(1)}`);
  if (m.black_winrate !== null) parts.push(`Black's win rate ${(100 * m.black_winrate).toFixed(0)}%`);
  const lacks = m.message ? ` (${m.message})` : "";
  const count = m.black_count === null
    ? " · Count now: not while one side alone has stones"
    : ` · Count now: ${leadText(m.black_count)} by ${m.count_kind}`;
  return `Estimate: ${parts.join(" · ") || "none"}${lacks}${count}`;
}
