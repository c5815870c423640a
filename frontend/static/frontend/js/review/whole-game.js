/**
 * The whole-game analysis on the review page: its buttons (it searches to the depth the menu
 * picks), progress bar and status line, and the
 * entries and mistakes (ranked by win rate and by points lost) it streams (`analysis_started`,
 * `progress`, `analysis_done`, `analysis_cancelled`, `cancelling`, `analysis_state` in
 * docs/protocol.md).
 */

import { $ } from "../dom.js";
import { bindMistakes, showMistakes } from "./mistakes.js";
import { showSummary } from "./summary.js";

/** A list item saying `text`. */
function listItem(text) {
  const li = document.createElement("li");
  li.textContent = text;
  return li;
}

/** The status line of an analysis cancelled after `done` positions: its mistakes are theirs. */
const cancelledText = (done) =>
  done
    ? `Analysis cancelled after ${done} position${done === 1 ? "" : "s"}: the mistakes listed are those of the moves analysed.`
    : "Analysis cancelled before its first position.";

/**
 * Follow the whole-game analysis of `review` over `socket`. `render()` redraws the move shown,
 * `showGraph()` only the graph, `go(k)` moves to move `k`; `readOnly`: the page has no buttons to
 * start or cancel the analysis (a shared review), though its viewer may still rank the mistakes.
 */
export function followWholeGameAnalysis(socket, review, { render, showGraph, go, readOnly }) {
  const status = (text) => {
    $("status").textContent = text;
  };
  const setAnalysing = (on) => {
    if (!readOnly) {
      $("cancel").hidden = !on;
      $("analyze-game").disabled = on;
    }
    $("progress").hidden = !on; // a finished analysis says so in the status line
  };
  const setProgress = (max, value) => {
    $("progress").max = max;
    $("progress").value = value;
  };
  /** Whether message `m` is about an analysis of the game as the page shows it (not of moves since
   * undone, added or replaced, maybe in another tab, whose analysis the page does not follow). */
  const ours = (m) => !m.record || m.record === review.timeline.record;
  socket.on("analysis_started", (m) => {
    if (!ours(m)) {
      // started by another tab or window on the game as it now stands: its moves are not those shown
      status("An analysis of the game as it now stands started (from another tab or window): reload the page to follow it.");
      return;
    }
    review.entries.length = 0;
    const kept = m.results ?? []; // a cancelled analysis resumed: its positions done stay
    kept.forEach((e) => {
      review.entries[e.move_number] = e;
    });
    review.mistakes = null;
    showSummary(null);
    $("mistakes").replaceChildren(listItem("The analysis is running: its mistakes come when it ends."));
    status(
      kept.length
        ? `Analysis resumed after ${kept.length} position${kept.length === 1 ? "" : "s"}: the next one comes in a moment…`
        : "Analysis started: its first position comes in a moment…",
    );
    setAnalysing(true);
    render();
  });
  socket.on("progress", (m) => {
    if (!ours(m)) return;
    setAnalysing(true);
    review.entries[m.entry.move_number] = m.entry;
    setProgress(m.total, m.done);
    status(`Analysing: ${m.done} / ${m.total} positions`);
    if (m.entry.move_number === review.k) render();
    else showGraph();
  });
  const keepMistakes = (m) => {
    review.mistakes = { winrate: m.mistakes, score: m.point_mistakes ?? [] };
    showMistakes(review, go);
    showSummary(m.summary ?? null);
  };
  socket.on("analysis_done", (m) => {
    if (!ours(m)) return;
    setAnalysing(false);
    status("Analysis complete.");
    keepMistakes(m);
  });
  socket.on("analysis_cancelled", (m) => {
    if (!ours(m)) return;
    setAnalysing(false);
    status(cancelledText(m.done));
    if (m.done) keepMistakes(m);
  });
  socket.on("analysis_failed", (m) => {
    if (!ours(m)) return;
    setAnalysing(false);
    status(`${m.message[0].toUpperCase()}${m.message.slice(1)}.`);
  });
  socket.on("cancelling", () => status("Cancelling…"));
  socket.on("analysis_state", (m) => {
    m.results.forEach((e) => {
      review.entries[e.move_number] = e;
    });
    setProgress(Math.max(m.total, 1), m.results.length);
    setAnalysing(m.status === "pending" || m.status === "running");
    if (m.status === "done") status("Analysis complete.");
    if (m.status === "cancelled") status(cancelledText(m.results.length));
    if (m.status === "failed") status(`The last analysis failed: ${m.error}.`);
    if (m.results.length) keepMistakes(m);
    render();
  });
  bindMistakes(review, go);
  if (readOnly) return;
  $("analyze-game").onclick = () => socket.send({ type: "analyze_game", depth: $("depth").value });
  $("cancel").onclick = () => socket.send({ type: "cancel_analysis" });
}
