/**
 * The review page: the replay of a game from its timeline, the analysis of each position asked of
 * the server as it is shown, the whole-game analysis, overlays and the feature-plane viewer.
 */

import { $, readJson } from "./dom.js";
import { FeatureViewer } from "./feature-viewer.js";
import { draw } from "./goban.js";
import { drawGraph } from "./graph.js";
import { showAnalysis } from "./review/analysis-panel.js";
import { boardView } from "./review/board-view.js";
import { bindNavigation } from "./review/navigation.js";
import { Review } from "./review/state.js";
import { followWholeGameAnalysis } from "./review/whole-game.js";

const TOGGLES = ["show-candidates", "show-played", "show-ladders", "show-numbers", "show-coords"];

/**
 * Run the review page over `socket`, from the `timeline` and `feature-sets` the template embeds;
 * `readOnly`: a shared review, which shows the whole-game analysis but cannot start or cancel it.
 */
export function reviewPage(socket, { readOnly }) {
  const svg = $("goban");
  const review = new Review(readJson("timeline"));
  const viewer = new FeatureViewer(readJson("feature-sets"), (set, plane) =>
    socket.send({ type: "features", move_number: review.k, set, plane }),
  );
  const showGraph = () => drawGraph($("graph"), review.entries, review.k, review.last);
  const render = () => {
    draw(svg, boardView(review, viewer));
    $("move-label").textContent = `${review.k} / ${review.last}`;
    showAnalysis(review);
    showGraph();
  };
  /** Ask for what the move shown needs (its analysis, its feature plane), and show it. */
  const request = () => {
    if (!review.positions.has(review.k)) socket.send({ type: "analyze", move_number: review.k });
    if (viewer.active) viewer.request();
    render();
  };
  const go = (to) => {
    review.moveTo(to);
    request();
  };

  socket.on("state", () => {
    $("status").textContent = `${review.last} moves. Use ← → Home End to navigate.`;
    request();
  });
  socket.on("analysis", (m) => {
    review.positions.set(m.move_number, m);
    if (m.move_number === review.k) render();
  });
  socket.on("features", (m) => {
    viewer.received(m);
    render();
  });
  followWholeGameAnalysis(socket, review, { render, showGraph, go, readOnly });
  bindNavigation(svg, review, go);
  for (const id of TOGGLES) $(id).onchange = render;
  $("heatmap").onchange = () => {
    viewer.show(viewer.active);
    render();
  };
  render();
}
