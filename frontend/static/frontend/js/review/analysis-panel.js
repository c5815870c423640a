/**
 * The review page's analysis of the move shown, in words: the move played next with its rank and
 * the search's win rate and score lead (or the count, once two passes ended the game), the
 * candidate list (each with the mover's win rate and the score lead) and the variation shown, what
 * the territory overlay shows, and the ladders (or why the back-prediction heatmap is missing).
 */

import { COLOR_NAMES } from "../colors.js";
import { $, checked } from "../dom.js";
import { ladderText } from "../ladders.js";
import { leadText } from "../score.js";
import { lossClass, lossMeasure, lossOf, lossWords, searchText, splitCandidates } from "../candidates.js";

export function showAnalysis(review) {
  $("played").textContent = playedText(review);
  showCandidates(review.analysis, review.lineMove);
  $("line-info").textContent = lineText(review);
  $("territory-info").textContent = territoryInfo(review);
  $("ladder-info").textContent = ladderInfo(review);
}

function playedText(review) {
  const a = review.analysis;
  const next = review.next;
  const rank = review.playedRank;
  let text = next ? `Next: ${COLOR_NAMES[next[0]]} ${next[1]}` : review.onMain ? "End of the game" : "End of the variation";
  if (rank) text += `, ${networkOf(a)}'s choice #${rank}`;
  if (a?.counted) return `${text} · ${countedText(a.counted)}`;
  if (a && a.black_winrate !== null && a.black_winrate !== undefined) {
    const winrate = (100 * a.black_winrate).toFixed(1);
    const lead = a.black_score_lead ?? null;
    const score = lead === null ? "" : `, ${leadText(lead)}`;
    text += ` · black win rate ${winrate}%${score} (search, ${a.visits} visits; best ${a.best})`;
  }
  return text;
}

/**
 * The network whose policy ranked the moves of analysis `a`: a position's analysis names it; a
 * whole-game analysis is the default network's, which the networks menu lists first.
 */
function networkOf(a) {
  return a?.network ?? $("network").options[0]?.value ?? "the network";
}

/** The count of a position that two passes ended (the analysis counts it instead of searching). */
function countedText(counted) {
  const dead = counted.dead.length;
  const stones = dead === 1 ? "1 dead stone" : `${dead} dead stones`;
  const result = counted.result === "0" ? "a draw" : counted.result;
  return `two passes ended the game: counted ${result} by ${counted.kind} (${stones} taken off)`;
}

/**
 * List the candidates of analysis `a` (none without one) as candidates.js splits them: the moves
 * the search visited in its order, each with the mover's win rate ("White wins 49.0%"), the score
 * lead from Black's side ("W+0.4" names the side that leads), visits, what it loses against the
 * search's best (in the measure the circles' menu picks) and the network's prior, a swatch of its
 * circle's colour; then, apart, the network's ideas the search did not visit, with their priors.
 */
function showCandidates(a, lineMove) {
  const ol = $("candidate-list");
  ol.replaceChildren();
  if (!a) return;
  const { searched, ideas } = splitCandidates(a);
  const measure = lossMeasure(searched, $("circle-figure").value);
  if (searched.length && measure !== $("circle-figure").value) {
    listHead(ol, "No score leads (the network has no score head): the circles show win rates.");
  }
  const item = (c, text, cls) => {
    const li = document.createElement("li");
    li.textContent = text;
    li.dataset.move = c.move;
    li.className = cls;
    li.classList.toggle("shown", c.move === lineMove);
    ol.appendChild(li);
    return li;
  };
  searched.forEach((c, i) => {
    const loss = lossOf(c, searched[0], measure);
    const visits = `${c.visits} visit${c.visits === 1 ? "" : "s"}`;
    const prior = `prior ${(100 * c.prior).toFixed(1)}%`;
    const li = item(c, `${c.move}: ${searchText(c, a.to_play)}, ${visits} · ${lossWords(c, searched[0], measure)} · ${prior}`,
      `searched loss-${lossClass(loss, measure)}${c === searched[0] ? " best" : ""}`);
    li.value = i + 1; // numbered in the search's order, whatever note comes first
  });
  if (!ideas.length) return;
  listHead(ol, "The network's ideas, not searched:");
  for (const c of ideas) item(c, `${c.move}: prior ${(100 * c.prior).toFixed(1)}%`, "idea");
}

/** Add a line of `text` to list `ol` that is no item of it (no number, no move). */
function listHead(ol, text) {
  const li = document.createElement("li");
  li.className = "list-head";
  li.textContent = text;
  ol.appendChild(li);
}

/** The variation the board shows, move by move, or how to see one. */
function lineText(review) {
  const line = review.line;
  if (!review.analysis?.candidates?.length) return "";
  if (!line) return "Point at a candidate, on the board or in the list, to see its variation.";
  const moves = line.pv?.length ? line.pv : [line.move];
  return `Variation of ${line.move}: ${moves.map((v, i) => `${i + 1}. ${v}`).join(" ")}`;
}

/** What the territory overlay shows of the move shown (nothing while it is off). */
function territoryInfo(review) {
  if (!checked("show-territory")) return "";
  const position = review.position;
  if (!position || position.ownership === undefined) return "Asking for the territory…";
  if (position.ownership === null) {
    return `The network ${position.network} has no ownership head: no territory to show.`;
  }
  if (position.counted) return "Territory: the count's owner of each point; faded stones are dead.";
  return (
    "Territory: each point's owner in the network's eyes " +
    "(bigger squares: surer); faded stones are dead."
  );
}

function ladderInfo(review) {
  const position = review.position;
  if (!position) return "";
  if ($("heatmap").value === "backpred" && !position.backpred) return noBackpredText(position);
  return checked("show-ladders") ? ladderText(position.ladders) : "";
}

/**
 * Why analysis `position` has no back-prediction heatmap: no network of the kind is shipped (the
 * back-prediction menu lists none), or no move was played yet, so there is none to predict.
 */
function noBackpredText(position) {
  if (!$("backpred-network").options.length) return "No back-prediction network is installed (weights/backpred.pt).";
  if (position.move_number === 0) return "No back prediction at the start: no move was played yet, so there is none to predict.";
  return "This position's analysis has no back-prediction heatmap.";
}
