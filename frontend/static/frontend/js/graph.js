/**
 * The game graph: Black's win rate or Black's score lead by move (100 wide, 30 high, Black ahead at
 * the top, even on the middle line; the score graph symmetric around 0 on a round scale), with a
 * cursor on the move shown, and its legend in words.
 */

import { lacksScoreLeads } from "./score.js";
import { el } from "./svg.js";

/** The score graph's scales (± points), the smallest that holds every lead is used. */
const SCORE_SCALES = [5, 10, 20, 30, 50, 100, 200, 400];

/** Black's win rate or score lead (`mode` "winrate" or "score") of an entry, or null when unknown. */
function blackValue(entry, mode) {
  return (mode === "score" ? entry?.black_score_lead : entry?.black_winrate) ?? null;
}

/** The score graph's scale for `entries` (sparse): the smallest round number of points above every lead. */
export function scoreScale(entries) {
  const top = entries.reduce((most, e) => Math.max(most, Math.abs(blackValue(e, "score") ?? 0)), 0);
  return SCORE_SCALES.find((scale) => scale >= top) ?? Math.ceil(top);
}

/**
 * Draw `entries` (whole-game analysis, by move number) of a game of `last` moves as `mode`
 * ("winrate" or "score"); the cursor at move `k`.
 */
export function drawGraph(g, entries, k, last, mode) {
  g.replaceChildren();
  const w = Math.max(last, 1);
  el("rect", { x: 0, y: 0, width: 100, height: 30, class: "graph-bg" }, g);
  el("line", { x1: 0, y1: 15, x2: 100, y2: 15, class: "graph-mid" }, g);
  const scale = scoreScale(entries);
  const y = mode === "score" ? (v) => 15 * (1 - v / scale) : (v) => 30 * (1 - v);
  const pts = entries
    .map((e, i) => [i, blackValue(e, mode)])
    .filter(([, v]) => v !== null)
    .map(([i, v]) => `${(100 * i) / w},${y(v)}`);
  if (pts.length) el("polyline", { points: pts.join(" "), class: `graph-line ${mode}` }, g);
  el("line", { x1: (100 * k) / w, y1: 0, x2: (100 * k) / w, y2: 30, class: "graph-cursor" }, g);
}

/** What the graph of `entries` in `mode` shows, in words (and why it is empty, when it is). */
export function graphLegend(entries, mode) {
  if (mode !== "score") return "Black's win rate: 100% at the top, 50% on the middle line.";
  if (lacksScoreLeads(entries)) return "No score leads: the network of this analysis has no score head.";
  const scale = scoreScale(entries);
  return `Black's score lead: B+${scale} at the top, even on the middle line, W+${scale} at the bottom.`;
}

/** The move number under a click on the graph. */
export function moveAt(g, event, last) {
  const box = g.getBoundingClientRect();
  return Math.round(((event.clientX - box.left) / box.width) * last);
}
