/**
 * What the goban draws over (or under) the stones: a heatmap, the network's candidate moves, the
 * ring on the move played next with its rank, and the ghost stone under the mouse.
 */

import { fromGtp } from "./coords.js";
import { el } from "./svg.js";

/**
 * Shade each point by its value in [-1, 1] (`heat`: n*n values, row by row): the bigger its size,
 * the stronger; 0 clear, a positive value red, a negative one blue (class `neg`).
 */
export function drawHeat(svg, heat, n) {
  const g = el("g", { class: "heat" }, svg);
  heat.forEach((v, p) => {
    if (Math.abs(v) > 0.005) shade(g, p, v, n);
  });
}

function shade(g, p, v, n) {
  const opacity = Math.min(0.85, Math.abs(v) * 0.85 + 0.1);
  const square = { x: (p % n) - 0.5, y: Math.floor(p / n) - 0.5, width: 1, height: 1 };
  el("rect", { ...square, "fill-opacity": opacity, ...(v < 0 ? { class: "neg" } : {}) }, g);
}

/**
 * Circle each candidate on an empty point with its prior in percent ("<1" below half a percent);
 * the first one (order 0) is the best, and one marked `shared` (in another network's top moves
 * too) gets a gold ring.
 */
export function drawCandidates(svg, candidates, board, n) {
  const g = el("g", { class: "candidates" }, svg);
  for (const c of candidates) {
    const p = fromGtp(c.move, n);
    if (!p || board[p.row * n + p.col] !== ".") continue;
    const cls = ["cand", c.order === 0 ? "best" : "", c.shared ? "shared" : ""].filter(Boolean).join(" ");
    el("circle", { cx: p.col, cy: p.row, r: 0.44, class: cls }, g);
    const percent = Math.round(c.prior * 100);
    el("text", { x: p.col, y: p.row }, g, percent >= 1 ? `${percent}` : "<1");
  }
}

/** Ring the move played next (`played`: {move, rank}), with the rank the network gave it. */
export function drawPlayed(svg, played, board, n) {
  const p = fromGtp(played.move, n);
  if (!p || board[p.row * n + p.col] !== ".") return;
  const g = el("g", { class: "played" }, svg);
  el("circle", { cx: p.col, cy: p.row, r: 0.47, class: "played-ring" }, g);
  if (!played.rank) return;
  // above right of the ring, but inside the board at its top and right edges (the coordinates are there)
  const dx = p.col === n - 1 ? -0.36 : 0.36;
  const dy = p.row === 0 ? 0.36 : -0.36;
  el("text", { x: p.col + dx, y: p.row + dy, class: "played-rank" }, g, `#${played.rank}`);
}

/** A translucent stone where a click would play (`ghost`: {point, color}). */
export function drawGhost(svg, ghost, n) {
  const p = ghost.point;
  const cls = `stone ghost ${ghost.color === "B" ? "black" : "white"}`;
  el("circle", { cx: p % n, cy: Math.floor(p / n), r: 0.45, class: cls }, svg);
}
