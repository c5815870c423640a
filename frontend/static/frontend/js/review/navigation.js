/**
 * Moving through the reviewed game: the « ◀ ▶ » buttons and ← → Home End along the line shown (a
 * variation's too), and a click on the win-rate graph. (A click on the board plays, or follows, a
 * move: variations.js.)
 */

import { $ } from "../dom.js";
import { moveAt } from "../graph.js";
import { bindMoveButtons } from "../move-buttons.js";

/**
 * Call `along(move number)` on each way of moving along the line `review` shows (its board being
 * `svg`), and `go(move number)` on a click on the graph, which shows a move of the main line.
 */
export function bindNavigation(svg, review, go, along) {
  bindMoveButtons(along, () => review.k, () => review.lineEnd);
  $("graph").addEventListener("click", (event) => go(moveAt($("graph"), event, review.last)));
}
