/**
 * The search's candidates on the review board (candidates.js `candidateMarks`): a circle on each
 * visited move, coloured by its class of loss, carrying the mover's win rate or score lead above
 * its visits; a smaller dashed circle with its prior on each of the network's unvisited ideas. Each
 * circle's tooltip gives its figures and its prior.
 */

import { fromGtp } from "./coords.js";
import { el } from "./svg.js";

/** Draw `marks` ([{move, lines, cls, title}]) on the empty points of `board` (n×n). */
export function drawSearchMarks(svg, marks, board, n) {
  const g = el("g", { class: "candidates" }, svg);
  for (const mark of marks) {
    const p = fromGtp(mark.move, n);
    if (!p || board[p.row * n + p.col] !== ".") continue;
    const idea = mark.cls === "idea";
    const circle = el("circle", { cx: p.col, cy: p.row, r: idea ? 0.3 : 0.46, class: `cand ${mark.cls}` }, g);
    el("title", {}, circle, mark.title);
    if (idea) {
      el("text", { x: p.col, y: p.row, class: "idea-prior" }, g, mark.lines[0]);
      continue;
    }
    el("text", { x: p.col, y: p.row - 0.14, class: `figure ${mark.cls}` }, g, mark.lines[0]);
    el("text", { x: p.col, y: p.row + 0.2, class: `visits ${mark.cls}` }, g, mark.lines[1]);
  }
}
