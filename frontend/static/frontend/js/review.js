/**
 * The review page: the replay of a game from its timeline (with the record's comments), the
 * analysis of each position asked of the server as it is shown (with its ownership map while the
 * Territory toggle is on), the whole-game analysis and its graph (win rate or score lead), overlays,
 * candidates' variations under the mouse, and the feature-plane viewer.
 */

import { $, checked, readJson } from "./dom.js";
import { FeatureViewer } from "./feature-viewer.js";
import { pointOf } from "./coords.js";
import { draw, pointAt } from "./goban.js";
import { drawGraph, graphLegend } from "./graph.js";
import { showAnalysis } from "./review/analysis-panel.js";
import { boardView } from "./review/board-view.js";
import { CommentBox } from "./review/comment-box.js";
import { bindNavigation } from "./review/navigation.js";
import { Place } from "./review/place.js";
import { Review } from "./review/state.js";
import { TreeView, drawBranchMarks } from "./review/tree-view.js";
import { bindBranching } from "./review/variations.js";
import { whenSettled } from "./review/settle.js";
import { followWholeGameAnalysis } from "./review/whole-game.js";
import { releaseMenus } from "./shortcuts.js";
import { bindWheel } from "./wheel.js";

const TOGGLES = ["show-candidates", "circle-figure", "show-played", "show-ladders", "show-numbers", "show-coords"];

/** The networks the menus name (an empty menu: the server's default), and the search depth. */
const networks = () => ({
  network: $("network").value,
  backpred_network: $("backpred-network").value,
  depth: $("depth").value,
});

/**
 * Whether analysis `m` answers the menus as they are now: its depth's visits, its network, and the
 * back-prediction network that made its heatmap (`backpred_network`: "" with no heatmap, so none
 * to mistake; missing from a server that does not say, so unknown and taken).
 */
function askedNow(m) {
  const visits = Number($("depth").selectedOptions[0].dataset.visits);
  const network = $("network").value;
  const backpred = $("backpred-network").value;
  const made = m.backpred_network; // "", null or missing: no heatmap, or a server that does not say
  return m.max_visits === visits && (!network || m.network === network) && (!backpred || !made || made === backpred);
}

/**
 * Whether the analysis of the move shown is still to ask: none came, or it lacks the ownership map
 * that the Territory toggle wants (the map is null, not missing, when the network has none).
 */
function analysisMissing(review) {
  const position = review.position;
  return !position || (checked("show-territory") && position.ownership === undefined);
}

/**
 * Run the review page over `socket`, from the `timeline` and `feature-sets` the template embeds;
 * `readOnly`: a shared review, which shows the whole-game analysis but cannot start or cancel it.
 */
export function reviewPage(socket, { readOnly }) {
  const svg = $("goban");
  const review = new Review(readJson("timeline"));
  const viewer = new FeatureViewer(readJson("feature-sets"), (set, plane) =>
    socket.send({ type: "features", move_number: review.k, set, plane, ...review.asked }),
  );
  const showGraph = () => {
    const mode = $("graph-mode").value;
    drawGraph($("graph"), review.entries, review.k, review.last, mode);
    $("graph-legend").textContent = graphLegend(review.entries, mode);
  };
  const treeView = new TreeView((node) => {
    review.show(node);
    request();
  });
  const commentBox = new CommentBox(socket, review);
  const place = new Place();
  const render = () => {
    draw(svg, boardView(review, viewer));
    drawBranchMarks(svg, review);
    $("move-label").textContent = `${review.k} / ${review.last}`;
    $("record-comment").textContent = review.comment;
    commentBox.show(review);
    showAnalysis(review);
    showGraph();
    treeView.show(review);
    place.keep(review);
  };
  /** Ask for what the move shown needs (its analysis, its feature plane), once the board settles. */
  const ask = whenSettled(() => {
    if (analysisMissing(review)) {
      const ownership = checked("show-territory");
      socket.send({ type: "analyze", move_number: review.k, ownership, ...review.asked, ...networks() });
    }
    if (viewer.active) viewer.request();
  });
  /** Show the move, and ask for what it needs. */
  const request = () => {
    ask();
    render();
  };
  const go = (to) => {
    review.moveTo(to);
    request();
  };
  const along = (to) => {
    review.moveAlong(to);
    request();
  };

  socket.on("state", () => {
    $("status").textContent = `${review.last} moves. Keys: ← → Home End (or the mouse wheel over the board) to move, n and N to the next and previous mistake, [ ] feature planes.`;
    socket.send({ type: "tree" });
    request();
  });
  socket.on("analysis", (m) => {
    if (!askedNow(m)) return; // an answer to menus since changed: their answer is on its way
    review.keep(m);
    if (review.shows(m)) render();
  });
  socket.on("features", (m) => {
    viewer.received(m);
    render();
  });
  followWholeGameAnalysis(socket, review, { render, showGraph, go, readOnly });
  bindNavigation(svg, review, go, along);
  bindWheel(svg, (step) => along(review.k + step));
  bindVariations(svg, review, render);
  bindBranching(socket, svg, review, { showNode: request, go, place });
  for (const id of TOGGLES) $(id).onchange = render;
  $("show-territory").onchange = request;
  $("graph-mode").onchange = showGraph;
  for (const id of ["network", "backpred-network", "depth"]) {
    $(id).onchange = () => {
      review.positions.clear();
      review.variationPositions.clear();
      request();
    };
  }
  releaseMenus();
  $("heatmap").onchange = () => {
    viewer.show(viewer.active);
    render();
  };
  render();
}

/**
 * Show a candidate's variation while the mouse is on its circle on the board (with the
 * candidates shown) or on its line in the list, as Lizzie and KaTrain do.
 */
function bindVariations(svg, review, render) {
  const show = (move) => {
    if (move === review.lineMove) return;
    review.lineMove = move;
    render();
  };
  const candidateAt = (p) => {
    const candidates = checked("show-candidates") ? review.analysis?.candidates ?? [] : [];
    return candidates.find((c) => pointOf(c.move, review.size) === p)?.move ?? null;
  };
  // Only the mouse moving counts: a list redrawn (or a page scrolled) under a still mouse is not
  // the player pointing at a candidate.
  let last = null;
  const moved = (event) => {
    const still = last && last.x === event.clientX && last.y === event.clientY;
    last = { x: event.clientX, y: event.clientY };
    return !still;
  };
  svg.addEventListener("mousemove", (event) => {
    if (!moved(event)) return;
    const p = pointAt(svg, event, review.size);
    // Over the variation's own stones, keep it: its first move's point holds a stone now.
    if (review.lineMove !== null && p === pointOf(review.lineMove, review.size)) return;
    show(p === null ? null : candidateAt(p));
  });
  svg.addEventListener("mouseleave", () => show(null));
  const list = $("candidate-list");
  list.addEventListener("mousemove", (event) => {
    if (moved(event)) show(event.target.closest("li")?.dataset.move ?? null);
  });
  list.addEventListener("mouseleave", () => show(null));
}
