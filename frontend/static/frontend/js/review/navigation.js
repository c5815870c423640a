/**
 * Moving through the reviewed game: the « ◀ ▶ » buttons, ← → Home End, a click on the win-rate
 * graph, and a click on the point of the move played next.
 */

import { pointOf } from "../coords.js";
import { $ } from "../dom.js";
import { pointAt } from "../goban.js";
import { moveAt } from "../graph.js";
import { bindMoveButtons } from "../move-buttons.js";

/** Call `go(move number)` on each way of moving through `review`, its board being `svg`. */
export function bindNavigation(svg, review, go) {
  bindMoveButtons(go, () => review.k, review.last);
  $("graph").addEventListener("click", (event) => go(moveAt($("graph"), event, review.last)));
  svg.addEventListener("click", (event) => {
    const p = pointAt(svg, event, review.size);
    const next = review.next;
    if (p !== null && next && p === pointOf(next[1], review.size)) go(review.k + 1);
  });
}
