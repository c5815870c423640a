/**
 * Each player's game in figures, from the whole-game analysis (`summary` in `analysis_done`,
 * docs/protocol.md; analysis/review/summary.py makes it), as KaTrain's game report: how many moves
 * fell in each class of loss, the mean loss, and how often the move was the search's choice or
 * among the network's top 5.
 */

import { lossRange } from "../candidates.js";
import { $ } from "../dom.js";

/** Each class of loss, blunders first, with its range of points and of win rate (candidates.js `lossRange`). */
const CLASSES = ["Blunders", "Mistakes", "Inaccuracies", "Slack moves", "Fine moves", "Good moves"].map((label, i) => [
  label,
  lossRange(i, "score"),
  lossRange(i, "winrate"),
]);

/** "42%" for 0.42, "–" when unknown. */
const percent = (share) => (share === null || share === undefined ? "–" : `${Math.round(100 * share)}%`);

/** A table row: a header cell `label` (with a `title`), then one cell per text of `cells`. */
function row(label, title, cells) {
  const tr = document.createElement("tr");
  const th = document.createElement("th");
  th.scope = "row";
  th.textContent = label;
  if (title) th.title = title;
  tr.appendChild(th);
  for (const text of cells) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  }
  return tr;
}

/** The mean loss of player summary `s` in its measure: "1.83 points" or "3.20%". */
function meanLoss(s) {
  if (s.mean_loss === null) return "–";
  return s.measure === "points" ? `${s.mean_loss.toFixed(2)} points` : `${(100 * s.mean_loss).toFixed(2)}%`;
}

/** Show `summary` ({B, W}, or null: nothing analysed yet) in the page's summary table. */
export function showSummary(summary) {
  const table = $("summary");
  table.replaceChildren();
  $("summary-section").hidden = !summary;
  if (!summary) return;
  const { B: black, W: white } = summary;
  const head = document.createElement("tr");
  for (const text of ["", "Black", "White"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = text;
    head.appendChild(th);
  }
  const byPoints = black.measure === "points";
  table.append(
    head,
    row("Moves judged", "", [black.moves, white.moves].map(String)),
    row("Mean loss", byPoints ? "score lead lost a move" : "win rate lost a move", [meanLoss(black), meanLoss(white)]),
    ...CLASSES.map(([label, points, winrate], i) =>
      row(label, `lost ${byPoints ? points : `${winrate} of win rate`}`, [black.classes[i], white.classes[i]].map(String)),
    ),
    row("Search's choice", "the move the search liked best", [percent(black.best), percent(white.best)]),
    row("Network's top 5", "among the network's five likeliest moves", [percent(black.top), percent(white.top)]),
  );
}
