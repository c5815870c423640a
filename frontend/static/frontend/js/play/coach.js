/**
 * The play page's coach, as KaTrain's teaching mode: on request a hint (the network's top 3 for
 * the player's move, from the `analyze` answer's candidates); optionally, after each of the
 * player's moves, the points it lost (the search's score lead for the player before the move
 * against after it; the win rate where the network has no score head); and optionally an automatic
 * undo of a move that lost more than a threshold, with the search's better move shown.
 *
 * Its analyses go through the board's `analyze` (docs/protocol.md) at the fast depth, one at a
 * time: a new request would replace the player's waiting one, and the server's per-user caps
 * apply to each. A position is named by the moves that lead to it, so an undo never mixes two.
 * While the clock is paused (free thinking time) the coach gives nothing: no hint, and the
 * teaching's analyses wait until the clock runs again. (The panel, panel.js, disables the Hint
 * button when a hint cannot be had.)
 */

import { $, checked } from "../dom.js";
import { isPaused } from "./clock.js";

const DEPTH = "fast";
const HINTS = 3;
const STALE_MS = 60000; // a request unanswered this long (refused, or lost) no longer blocks the next
const FINE = 0.5; // points (or 1% of win rate): a move that loses no more is fine

const lineKey = (moves, k) => moves.slice(0, k).map((m) => m.join("")).join(" ");
/** Whether the position `key` is on the line to the position `line` (or is it). */
const onLine = (key, line) => key === "" || line === key || line.startsWith(`${key} `);

export class Coach {
  #socket;
  #render;
  #human;
  #state = null;
  #results = new Map(); // position key -> its analysis
  #queue = []; // [{moveNumber, key}] to analyse, in order
  #asked = null; // {moveNumber, key, at}
  #hintKey = null; // the position whose hints were asked for
  #judged = new Set(); // keys of the positions after the player's moves already judged
  #pending = new Map(); // key after the player's move -> {k, move, beforeKey}: judgements waiting
  #better = null; // {key, move}: after an automatic undo, the search's move there

  /** Coach the player of colour `human` over `socket`; `render()` redraws the board. */
  constructor(socket, render, human) {
    this.#socket = socket;
    this.#render = render;
    this.#human = human;
    socket.on("analysis", (m) => this.#received(m));
    $("hint").onclick = () => this.#askHint();
  }

  /** Follow the game's `state`: judge the player's move just played when teaching is on. */
  follow(state) {
    this.#state = state;
    const k = state.move_number;
    const key = lineKey(state.moves, k);
    this.#queue = this.#queue.filter((q) => onLine(q.key, key));
    if (this.#hintKey !== key) this.#hintKey = null;
    this.#next(); // the analyses held while the clock was paused
    const last = state.moves[k - 1];
    if (!checked("teach") || state.phase !== "playing" || !last || last[0] !== this.#human) return;
    if (last[1] === "pass" || this.#judged.has(key)) return;
    this.#judged.add(key);
    const beforeKey = lineKey(state.moves, k - 1);
    this.#pending.set(key, { k, move: last[1], beforeKey });
    $("coach-text").textContent = `Judging your move ${last[1]}…`;
    this.#want(k - 1, beforeKey);
    this.#want(k, key);
  }

  /** What to draw on the current position: `hints` ([{move, prior, rank}]) and `better` (a vertex). */
  marks() {
    if (!this.#state) return null;
    const key = lineKey(this.#state.moves, this.#state.move_number);
    const hinted = this.#hintKey === key ? this.#results.get(key) : null;
    const hints = hinted ? topMoves(hinted) : null;
    const better = this.#better?.key === key ? this.#better.move : null;
    return hints || better ? { hints, better } : null;
  }

  #humanToPlay() {
    const s = this.#state;
    return s !== null && s.phase === "playing" && s.to_play === this.#human && !isPaused(s);
  }

  #askHint() {
    if (!this.#humanToPlay()) return;
    const s = this.#state;
    const key = lineKey(s.moves, s.move_number);
    this.#hintKey = key;
    if (this.#results.has(key)) this.#showHint(key);
    else {
      $("coach-text").textContent = "Thinking of a hint…";
      this.#want(s.move_number, key, true);
    }
  }

  #showHint(key) {
    const analysis = this.#results.get(key);
    const tops = topMoves(analysis).map((c) => `${c.move} ${(100 * c.prior).toFixed(0)}%`);
    const best = analysis.best ? `; the search prefers ${analysis.best}` : "";
    $("coach-text").textContent = `Hint: the network's top ${tops.length}: ${tops.join(", ")}${best}`;
    this.#render();
  }

  /** Queue the analysis of the position `key` after `moveNumber` moves (first when `urgent`). */
  #want(moveNumber, key, urgent = false) {
    if (this.#results.has(key) || this.#asked?.key === key) return;
    if (this.#queue.some((q) => q.key === key)) return;
    if (urgent) this.#queue.unshift({ moveNumber, key });
    else this.#queue.push({ moveNumber, key });
    this.#next();
  }

  #next() {
    if (isPaused(this.#state)) return; // no analysis in free thinking time
    if (this.#asked && Date.now() - this.#asked.at < STALE_MS) return;
    this.#asked = null;
    const q = this.#queue.shift();
    if (!q) return;
    this.#asked = { ...q, at: Date.now() };
    this.#socket.send({
      type: "analyze", move_number: q.moveNumber, depth: DEPTH, ladders: false, backpred: false,
    });
  }

  #received(m) {
    const asked = this.#asked;
    if (!asked || m.node || m.move_number !== asked.moveNumber) return;
    this.#asked = null;
    this.#results.set(asked.key, m);
    if (asked.key === this.#hintKey) this.#showHint(asked.key);
    this.#judgeReady();
    this.#next();
  }

  /** Judge each of the player's moves whose analyses, before and after it, are both in. */
  #judgeReady() {
    for (const [key, judgement] of this.#pending) {
      const before = this.#results.get(judgement.beforeKey);
      const after = this.#results.get(key);
      if (!before || !after) continue;
      this.#pending.delete(key);
      this.#verdict({ ...judgement, key }, before, after);
    }
  }

  /** Say what the move of `judgement` lost; take it back if teaching undoes it and it is still the last. */
  #verdict(judgement, before, after) {
    const loss = moveLoss(before, after, this.#human);
    $("coach-text").textContent = lossText(judgement.move, loss, before.best);
    $("teach-unit").textContent = loss.unit; // the threshold is in the unit the network allows
    const s = this.#state;
    const last = s.phase === "playing" && !isPaused(s) && s.move_number <= judgement.k + 1
      && lineKey(s.moves, judgement.k) === judgement.key;
    if (!last || !checked("teach-undo") || loss.value <= Number($("teach-threshold").value)) return;
    if (!this.#socket.sendNow({ type: "undo" })) return; // a game action: never queued for a later connection
    this.#better = { key: judgement.beforeKey, move: before.best };
    $("coach-text").textContent += " — taken back: try the marked move";
  }
}

/** The network's top moves of `analysis` (by prior, whatever order the list comes in), with their rank. */
function topMoves(analysis) {
  return (analysis.candidates ?? [])
    .filter((c) => c.move !== "pass")
    .sort((a, b) => b.prior - a.prior)
    .slice(0, HINTS)
    .map((c, i) => ({ move: c.move, prior: c.prior, rank: i + 1 }));
}

/**
 * What the player `human`'s move lost between the analyses `before` and `after` it: `{value, unit}`,
 * in points from the score leads, or in percent of win rate without them.
 */
export function moveLoss(before, after, human) {
  const sign = human === "B" ? 1 : -1;
  if ((before.black_score_lead ?? null) !== null && (after.black_score_lead ?? null) !== null) {
    return { value: sign * (before.black_score_lead - after.black_score_lead), unit: "points" };
  }
  return { value: 100 * sign * (before.black_winrate - after.black_winrate), unit: "% of win rate" };
}

function lossText(move, loss, best) {
  const amount = `${Math.max(0, loss.value).toFixed(1)} ${loss.unit}`;
  if (loss.value <= FINE) return `Your move ${move}: fine (it lost ${amount})`;
  const better = best && best !== move ? `; the search preferred ${best}` : "";
  return `Your move ${move} lost ${amount}${better}`;
}
