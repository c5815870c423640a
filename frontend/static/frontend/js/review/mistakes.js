/**
 * The mistakes of the whole-game analysis: the list of the worst, ranked by the win rate or the
 * points they lost as the "rank by" menu says, each a link to the position before it; and the steps
 * from mistake to mistake in the order of the game (buttons, keys n and N) through every move that
 * lost at least the threshold the page sets, as KaTrain's "next mistake".
 */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";
import { markMistakes } from "../graph.js";
import { lacksScoreLeads } from "../score.js";
import { addShortcuts } from "../shortcuts.js";

/** How many mistakes the list shows, worst first. */
const LISTED = 10;
/**
 * The thresholds of the steps, in the menu's measures: percent of win rate, or points. At first
 * KaTrain's least inaccuracy (3 points, 5%): on 6 tygem 9d games of 2011-12 searched at 200 visits
 * with golois-score, 10% of win rate found no mistake in 4 of them and 5% none in 2 (a game that
 * one side leads by far moves its win rate little), while 3 points found 2 to 19 in each (BENCHMARKS.md).
 */
const thresholds = { winrate: 5, score: 3 };
/** Whether the player picked the ranking: until then it is by points lost where the analysis has score leads. */
let rankingPicked = false;

/** "−12.3%" for a loss of 0.123 win rate ("+..." for a gain). */
const winrateLost = (loss) => `${loss >= 0 ? "−" : "+"}${(100 * Math.abs(loss)).toFixed(1)}%`;

/** "−4.5 points" for 4.5 points lost ("+..." for a gain). */
const pointsLost = (points) => `${points >= 0 ? "−" : "+"}${Math.abs(points).toFixed(1)} points`;

/** What mistake `m` lost, the measure it is ranked by first (the points only when known). */
function lossText(m, by) {
  if (m.points_lost === null || m.points_lost === undefined) return winrateLost(m.loss);
  const both = [winrateLost(m.loss), pointsLost(m.points_lost)];
  return (by === "score" ? both.reverse() : both).join(", ");
}

/** "Move 57 Black Q16: −14.2% (best R16)". */
const mistakeText = (m, by) =>
  `Move ${m.move_number} ${COLOR_NAMES[m.color]} ${m.move}: ${lossText(m, by)} (best ${m.best})`;

/** The threshold of the ranking `by`, as the menu's measure: a win rate (0..1) or points. */
function threshold(by) {
  const value = Number($("mistake-threshold").value);
  const positive = Number.isFinite(value) && value > 0 ? value : 0;
  return by === "score" ? positive : positive / 100;
}

/** The mistakes of `review` that lost at least the threshold, in the order of the game. */
function overThreshold(review, by) {
  const least = threshold(by);
  const measure = (m) => (by === "score" ? m.points_lost : m.loss);
  return review.mistakes[by].filter((m) => measure(m) >= least).sort((a, b) => a.move_number - b.move_number);
}

/**
 * Show the mistakes of `review` (`review.mistakes`: {winrate, score}, docs/protocol.md
 * `analysis_done`, every move that lost, worst first) in the order the menu picks, the worst
 * LISTED; a click calls `go(move number)`. Nothing to show before a whole-game analysis.
 */
export function showMistakes(review, go) {
  if (review.mistakes && !rankingPicked) rankBy(lacksScoreLeads(review.entries) ? "winrate" : "score");
  showThresholdUnit();
  if (!review.mistakes) return;
  const by = $("mistakes-by").value;
  const mistakes = review.mistakes[by];
  const least = threshold(by);
  const ol = $("mistakes");
  ol.replaceChildren();
  for (const m of mistakes.slice(0, LISTED)) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "#";
    a.textContent = mistakeText(m, by);
    if ((by === "score" ? m.points_lost : m.loss) >= least) a.className = "over-threshold";
    a.onclick = (e) => {
      e.preventDefault();
      go(m.move_number - 1);
    };
    li.appendChild(a);
    ol.appendChild(li);
  }
  if (!mistakes.length) {
    const li = document.createElement("li");
    const noLeads = by === "score" && lacksScoreLeads(review.entries);
    li.textContent = noLeads ? "No score leads: the network has no score head." : "No mistakes found.";
    ol.appendChild(li);
  }
  $("mistake-step").textContent = "";
  markMistakes($("graph"), overThreshold(review, by).map((m) => ({ move_number: m.move_number, text: mistakeText(m, by) })));
}

/** Rank the mistakes `by` "winrate" or "score", with that ranking's threshold. */
function rankBy(by) {
  if ($("mistakes-by").value === by) return;
  $("mistakes-by").value = by;
  $("mistake-threshold").value = thresholds[by];
}

/** The threshold's unit follows the ranking: a win rate in percent, or points. */
function showThresholdUnit() {
  $("threshold-unit").textContent = $("mistakes-by").value === "score" ? "points" : "% win rate";
}

/**
 * Step from the move shown (`review.k`) to the position before the next (`direction` 1) or the
 * previous (-1) mistake over the threshold, calling `go(move number)`; say which it is, or that
 * there is none that way.
 */
function step(review, go, direction) {
  const by = $("mistakes-by").value;
  if (!review.mistakes) {
    $("mistake-step").textContent = "Analyse the game first: its mistakes come from the analysis.";
    return;
  }
  const over = overThreshold(review, by);
  const before = (m) => m.move_number - 1;
  const target =
    direction > 0 ? over.find((m) => before(m) > review.k) : over.findLast((m) => before(m) < review.k);
  if (!target) {
    const way = direction > 0 ? "after" : "before";
    $("mistake-step").textContent = `No mistake over the threshold ${way} move ${review.k}.`;
    return;
  }
  go(before(target));
  const index = over.indexOf(target) + 1;
  $("mistake-step").textContent = `Mistake ${index} of ${over.length}: ${mistakeText(target, by)}`;
}

/**
 * Bind the mistakes' controls: the ranking (each with its own threshold) and the threshold redraw
 * the list; the steps move `go`.
 */
export function bindMistakes(review, go) {
  const by = () => $("mistakes-by").value;
  $("mistake-threshold").value = thresholds[by()];
  $("mistakes-by").onchange = () => {
    rankingPicked = true;
    $("mistake-threshold").value = thresholds[by()];
    showMistakes(review, go);
  };
  $("mistake-threshold").oninput = () => {
    thresholds[by()] = $("mistake-threshold").value;
    showMistakes(review, go);
  };
  $("next-mistake").onclick = () => step(review, go, 1);
  $("prev-mistake").onclick = () => step(review, go, -1);
  addShortcuts(() => ({ n: () => step(review, go, 1), N: () => step(review, go, -1) }));
  showThresholdUnit();
}
