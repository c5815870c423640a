/**
 * The coach's marks on the play board (coach.js): the hint's top moves as numbered circles with
 * the network's prior, and the better move after an automatic undo as a green ring.
 */

import { fromGtp } from "../coords.js";
import { el } from "../svg.js";

/** Draw `marks` ({hints: [{move, prior, rank}] or null, better: a vertex or null}) over `board`. */
export function drawCoachMarks(svg, marks, board, n) {
  const g = el("g", { class: "coach" }, svg);
  for (const hint of marks.hints ?? []) {
    const p = fromGtp(hint.move, n);
    if (!p || board[p.row * n + p.col] !== ".") continue;
    const title = `#${hint.rank}: the network's prior ${(100 * hint.prior).toFixed(1)}%`;
    const circle = el("circle", { cx: p.col, cy: p.row, r: 0.42, class: `hint rank-${hint.rank}` }, g);
    el("title", {}, circle, title);
    el("text", { x: p.col, y: p.row, class: "hint-rank" }, g, String(hint.rank));
  }
  const better = fromGtp(marks.better, n);
  if (better && board[better.row * n + better.col] === ".") {
    el("circle", { cx: better.col, cy: better.row, r: 0.44, class: "better" }, g);
  }
}
