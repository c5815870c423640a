/**
 * What the review board shows: the position at the move shown, with the overlays that the Show
 * toggles (the territory among them) and the heatmap menu pick, or a candidate's variation.
 */

import { candidateMarks } from "../candidates.js";
import { pointOf } from "../coords.js";
import { $, checked } from "../dom.js";
import { moveNumbers } from "../move-numbers.js";
import { playLine } from "../pv.js";
import { blackOwnership } from "../territory.js";

/**
 * The goban's view (goban.js `draw`) of the move shown; `viewer` is the feature-plane viewer. A
 * candidate's variation under the mouse replaces it: the line's stones, numbered, and no overlay.
 */
export function boardView(review, viewer) {
  const n = review.size;
  const a = review.analysis;
  const line = review.line;
  if (line) {
    const { board, numbers } = playLine(review.board, n, a.to_play, line.pv?.length ? line.pv : [line.move]);
    return { size: n, board, numbers, coords: checked("show-coords"), last: null };
  }
  const position = review.position;
  const next = review.next;
  return {
    size: n,
    board: review.board,
    last: review.lastMove,
    coords: checked("show-coords"),
    numbers: checked("show-numbers") ? moveNumbers(review.lineMoves, review.k, review.board, n) : null,
    marks: checked("show-candidates") && a ? candidateMarks(a, $("circle-figure").value) : null,
    ladders: checked("show-ladders") && position ? position.ladders : null,
    territory: territory(position),
    dead: countedDead(position, n),
    heat: heat(review, viewer),
    played: next && checked("show-played") ? { move: next[1], rank: review.playedRank } : null,
  };
}

/** Black's ownership map of `position` when the Territory toggle is on and it came, else null. */
function territory(position) {
  const owned = checked("show-territory") && position ? position.ownership : null;
  return owned ? blackOwnership(owned, position.to_play) : null;
}

/**
 * The stones the count of an ended position took off, while the territory shows (undefined
 * otherwise: the territory's own dead stones). The count's map leaves dead stones in a neutral
 * area unowned, so the map alone would not show them dead.
 */
function countedDead(position, n) {
  if (!checked("show-territory") || !position?.counted) return undefined;
  return new Set(position.counted.dead.map((vertex) => pointOf(vertex, n)));
}

/** The heatmap the menu picks (policy, back prediction or feature plane), or null. */
function heat(review, viewer) {
  const mode = $("heatmap").value;
  const position = review.position;
  const n = review.size;
  if (mode === "policy" && position) return position.policy.slice(0, n * n);
  if (mode === "backpred" && position && position.backpred) return position.backpred;
  if (mode === "features") return viewer.heat(review.k, review.asked.node);
  return null;
}
