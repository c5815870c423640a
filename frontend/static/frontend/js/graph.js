/**
 * The win-rate graph: black's win rate by move (100 wide, 30 high, black winning at the top), with a
 * cursor on the move shown.
 */

import { el } from "./svg.js";

/** Draw `entries` (whole-game analysis, by move number) of a game of `last` moves; the cursor at move `k`. */
export function drawGraph(g, entries, k, last) {
  g.replaceChildren();
  const w = Math.max(last, 1);
  el("rect", { x: 0, y: 0, width: 100, height: 30, class: "graph-bg" }, g);
  el("line", { x1: 0, y1: 15, x2: 100, y2: 15, class: "graph-mid" }, g);
  const pts = entries
    .map((e, i) => (e && e.black_winrate !== null ? `${(100 * i) / w},${30 * (1 - e.black_winrate)}` : null))
    .filter(Boolean);
  if (pts.length) el("polyline", { points: pts.join(" "), class: "graph-line" }, g);
  el("line", { x1: (100 * k) / w, y1: 0, x2: (100 * k) / w, y2: 30, class: "graph-cursor" }, g);
}

/** The move number under a click on the graph. */
export function moveAt(g, event, last) {
  const box = g.getBoundingClientRect();
  return Math.round(((event.clientX - box.left) / box.width) * last);
}
