/**
 * The territory overlay: an ownership map (docs/protocol.md) as a square of the owner's colour on
 * each empty point, bigger where the network is surer, and the stones on points the other side
 * owns strongly marked dead (faded and crossed, with the owner's square on them), as KaTrain and
 * Lizzie do; while a game is scored, the player's marks decide which stones are dead instead, and
 * the count's owners (`countedOwnership`) can stand for the map.
 */

import { el } from "./svg.js";

/** A stone on a point the other side owns at least this much is dead. */
export const DEAD = 0.5;
/** Points owned less than this (dame, or the network unsure) stay bare. */
const FAINT = 0.05;
/** The side of the square of a point owned for certain (±1), in points. */
const FULL = 0.6;

/** Black's ownership (+1: Black owns the point) from `ownership`, the map of the player `toPlay`. */
export const blackOwnership = (ownership, toPlay) => (toPlay === "B" ? ownership : ownership.map((v) => -v));

/** The points of the stones on `board` that the other side owns at least DEAD (Black's `ownership`). */
export function deadStones(ownership, board) {
  const dead = new Set();
  ownership.forEach((v, p) => {
    if ((board[p] === "X" && v <= -DEAD) || (board[p] === "O" && v >= DEAD)) dead.add(p);
  });
  return dead;
}

/**
 * Draw Black's `ownership` (n*n values in -1..1) over the stones of `board`, `dead` (Set of points)
 * the stones drawn dead: on empty points, and on dead stones the other side owns, a square of the
 * owner's colour whose area grows with the certainty; the other stones bare.
 */
export function drawTerritory(svg, ownership, board, n, dead) {
  const g = el("g", { class: "territory" }, svg);
  ownership.forEach((v, p) => {
    const owner = v > 0 ? "X" : "O";
    const shaded = board[p] === "." || (dead.has(p) && board[p] !== owner);
    if (!shaded || Math.abs(v) < FAINT) return;
    const side = FULL * Math.sqrt(Math.abs(v));
    const cls = `owner ${v > 0 ? "black" : "white"}${dead.has(p) ? " on-dead" : ""}`;
    const square = { x: (p % n) - side / 2, y: Math.floor(p / n) - side / 2, width: side, height: side };
    el("rect", { ...square, class: cls, "data-point": p }, g);
  });
  for (const p of dead) if (board[p] !== ".") drawDeadMark(g, p, n);
}

/** A cross over the dead stone at `p`, so that it reads as a dead stone, not as the owner's point. */
function drawDeadMark(g, p, n) {
  const x = p % n;
  const y = Math.floor(p / n);
  const d = 0.22;
  el("path", { d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x + d} ${y - d}L${x - d} ${y + d}`, class: "dead-mark" }, g);
}

/** Black's ownership (1, -1, 0) from a count's owners (`owners`: "X", "O" or "." per point). */
export const countedOwnership = (owners) => [...owners].map((c) => (c === "X" ? 1 : c === "O" ? -1 : 0));
