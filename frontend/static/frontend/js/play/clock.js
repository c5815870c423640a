/**
 * The play page's clocks (`clock` in the state message, docs/protocol.md): each player's time as
 * the server last counted it, counted down here for the player on the move from the turn's
 * `elapsed` seconds, so the browser's own clock never matters. When the running clock passes
 * zero it shows the time as run out (never a negative time or count of periods) and the page asks
 * the server for the state: the server, which keeps the time, ends the game. It asks only over an
 * open connection (a request is never queued: the server sends the state when the socket opens
 * again) and at most once a second.
 */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";

const TICK_MS = 200;
const ASK_EVERY_MS = 1000; // at most one state request a second while a clock shows no time
const LOW_SECONDS = 10;
const OUT_OF_TIME = "0:00 (out of time)";

export class GameClock {
  #socket;
  #clock = null;
  #received = 0;
  #asked = 0;
  #timer = null;

  /** Count down the clocks of the state messages of `socket`. */
  constructor(socket) {
    this.#socket = socket;
  }

  /** Show the clock of the state message `m` (hidden for a game without one). */
  follow(m) {
    this.#clock = m.clock;
    this.#received = performance.now();
    clearInterval(this.#timer);
    $("clocks").hidden = !m.clock;
    if (m.clock && m.clock.running) this.#timer = setInterval(() => this.#show(), TICK_MS);
    this.#show();
  }

  #show() {
    const c = this.#clock;
    if (!c) return;
    const spent = c.running ? c.elapsed + (performance.now() - this.#received) / 1000 : c.elapsed;
    for (const color of ["B", "W"]) {
      const left = timeLeft(c, c[color], color === (c.running || c.paused) ? spent : 0);
      const el = $(`clock-${color}`);
      el.textContent = `${COLOR_NAMES[color]} ${left.total < 0 ? OUT_OF_TIME : clockText(c, left)}`;
      el.classList.toggle("running", color === c.running);
      el.classList.toggle("low", color === c.running && shown(c, left) < LOW_SECONDS);
      if (color === c.running && left.total < 0) this.#askForTheState();
    }
  }

  #askForTheState() {
    const now = performance.now();
    if (now - this.#asked < ASK_EVERY_MS) return;
    if (this.#socket.sendNow({ type: "state" })) this.#asked = now;
  }
}

/** Whether the game of the state message `m` has its clock paused. */
export function isPaused(m) {
  return Boolean(m && m.clock && m.clock.paused);
}

/**
 * A player's time after `spent` seconds of the turn, under the clock `c` (as analysis/play/clock.py
 * counts it): `main` seconds of main time, byo-yomi `periods` left (Canadian: the period's moves
 * left) and `period` seconds left in the present one, and the `total` left (below 0: out of time;
 * byo-yomi's periods and seconds then stay at 0, never below).
 */
export function timeLeft(c, player, spent) {
  if (c.system === "fischer") {
    const main = player.main - spent;
    return { main, periods: 0, period: 0, total: main };
  }
  if (c.system === "canadian") return canadianLeft(c, player, spent);
  const total = player.main + player.periods * c.period - spent;
  if (spent <= player.main) {
    const period = player.periods ? c.period : 0;
    return { main: player.main - spent, periods: player.periods, period, total };
  }
  if (total < 0) return { main: 0, periods: 0, period: 0, total };
  const over = spent - player.main;
  const used = Math.ceil(over / c.period) - 1;
  return { main: 0, periods: player.periods - used, period: c.period * (used + 1) - over, total };
}

/**
 * Canadian overtime: `player.periods` moves left in `player.main` seconds (0 moves: main time, with
 * a whole period of `c.periods` moves ahead).
 */
function canadianLeft(c, player, spent) {
  if (player.periods) {
    const period = player.main - spent;
    return { main: 0, periods: player.periods, period, total: period };
  }
  const total = player.main + c.period - spent;
  if (spent <= player.main) return { main: player.main - spent, periods: c.periods, period: c.period, total };
  return { main: 0, periods: c.periods, period: total, total };
}

/** The seconds the clock shows: the main time, or once in byo-yomi what is left of the period. */
function shown(c, left) {
  return c.periods && left.main <= 0 ? left.period : left.main;
}

/**
 * "9:41 + 5×30s", "0:23 (3 left)" in byo-yomi, "9:41 + 25/5:00" and "3:20 for 12 moves" Canadian,
 * "4:35 +10s" under Fischer, "1:59" absolute.
 */
export function clockText(c, left) {
  if (c.system === "fischer") return `${minutes(left.main)} +${c.period}s`;
  if (c.system === "canadian") {
    if (left.main > 0) return `${minutes(left.main)} + ${c.periods}/${minutes(c.period)}`;
    return `${minutes(left.period)} for ${left.periods} move${left.periods === 1 ? "" : "s"}`;
  }
  if (!c.periods) return minutes(left.main);
  if (left.main > 0) return `${minutes(left.main)} + ${left.periods}×${c.period}s`;
  return `${minutes(left.period)} (${left.periods} left)`;
}

function minutes(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
