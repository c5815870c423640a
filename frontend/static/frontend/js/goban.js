/**
 * The SVG goban: wood, grid, star points, coordinates, stones with their move numbers and the
 * last-move mark, under the overlays of overlays.js, territory.js and ladders.js; and the point
 * under the mouse.
 */

import { LETTERS, fromGtp, pointOf, starPoints } from "./coords.js";
import { drawLadders } from "./ladders.js";
import { drawCandidates, drawGhost, drawHeat, drawPlayed } from "./overlays.js";
import { drawSearchMarks } from "./search-marks.js";
import { el } from "./svg.js";
import { deadStones, drawTerritory } from "./territory.js";

/**
 * Draw the goban. `view`: {size, board ("." "X" "O" string), last, numbers (Map), dead (Set of
 * points: the stones drawn dead, as the player marked them; absent, the territory's dead stones),
 * candidates ([{move, prior, order}]: the networks' top moves), marks (the search's candidates,
 * candidates.js `candidateMarks`), heat (array of n*n in [-1,1], overlays.js `drawHeat`),
 * territory (Black's ownership: n*n in -1..1), ladders (overlay), coords (bool), ghost ({point,
 * color}), played ({move, rank}: the move played next, ringed with the rank the network gave it)}.
 */
export function draw(svg, view) {
  const n = view.size;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `-1.3 -1.3 ${n + 1.6} ${n + 1.6}`);
  el("rect", { x: -1.3, y: -1.3, width: n + 1.6, height: n + 1.6, class: "wood" }, svg);
  drawGrid(svg, n);
  if (view.coords) drawCoords(svg, n);
  if (view.heat) drawHeat(svg, view.heat, n);
  const dead = view.dead ?? (view.territory ? deadStones(view.territory, view.board) : new Set());
  drawStones(svg, { ...view, dead });
  if (view.territory) drawTerritory(svg, view.territory, view.board, n, dead);
  if (view.last) drawLastMove(svg, view);
  if (view.ladders) drawLadders(svg, view.ladders, n);
  if (view.candidates) drawCandidates(svg, view.candidates, view.board, n);
  if (view.marks) drawSearchMarks(svg, view.marks, view.board, n);
  if (view.played) drawPlayed(svg, view.played, view.board, n);
  if (view.ghost) drawGhost(svg, view.ghost, n);
}

function drawGrid(svg, n) {
  const grid = el("g", { class: "grid" }, svg);
  for (let i = 0; i < n; i++) {
    el("line", { x1: 0, y1: i, x2: n - 1, y2: i }, grid);
    el("line", { x1: i, y1: 0, x2: i, y2: n - 1 }, grid);
  }
  for (const [r, c] of starPoints(n)) el("circle", { cx: c, cy: r, r: 0.1, class: "star" }, svg);
}

function drawCoords(svg, n) {
  const g = el("g", { class: "coords" }, svg);
  for (let i = 0; i < n; i++) {
    el("text", { x: i, y: -0.8 }, g, LETTERS[i]);
    el("text", { x: i, y: n - 0.1 }, g, LETTERS[i]);
    el("text", { x: -0.85, y: i }, g, String(n - i));
    el("text", { x: n - 0.15, y: i }, g, String(n - i));
  }
}

function drawStones(svg, view) {
  const n = view.size;
  const lastPoint = pointOf(view.last, n);
  const stones = el("g", { class: "stones" }, svg);
  for (let p = 0; p < n * n; p++) {
    const c = view.board[p];
    if (c === ".") continue;
    const cls = `stone ${c === "X" ? "black" : "white"}${view.dead?.has(p) ? " dead" : ""}`;
    el("circle", { cx: p % n, cy: Math.floor(p / n), r: 0.47, class: cls, "data-point": p }, stones);
    const num = view.numbers?.get(p);
    const on = c === "X" ? "on-black" : "on-white";
    const numberClass = `number ${on}${p === lastPoint ? " last-number" : ""}`;
    if (num) el("text", { x: p % n, y: Math.floor(p / n), class: numberClass }, stones, String(num));
  }
}

/**
 * The last move's mark: a dot on its stone, or where the stone carries its number a ring inside
 * the stone's edge, round the number (as Sabaki and KaTrain keep the last move marked), the
 * number drawn as the last one (`last-number`).
 */
function drawLastMove(svg, view) {
  const n = view.size;
  const p = fromGtp(view.last, n);
  const point = p ? p.row * n + p.col : null;
  if (point === null || view.board[point] === ".") return;
  const on = view.board[point] === "X" ? "on-black" : "on-white";
  if (!view.numbers?.has(point)) {
    el("circle", { cx: p.col, cy: p.row, r: 0.2, class: `last ${on}` }, svg);
    return;
  }
  el("circle", { cx: p.col, cy: p.row, r: 0.41, class: `last ring ${on}` }, svg);
}

/** Board point under a mouse event, or null. */
export function pointAt(svg, event, n) {
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  const local = pt.matrixTransform(svg.getScreenCTM().inverse());
  const col = Math.round(local.x);
  const row = Math.round(local.y);
  return row >= 0 && row < n && col >= 0 && col < n ? row * n + col : null;
}
