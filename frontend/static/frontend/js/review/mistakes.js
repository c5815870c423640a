/**
 * The list of the biggest mistakes of the whole-game analysis, ranked by the win rate or the points
 * they lost as the "rank by" menu says, each a link to the position before it.
 */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";
import { lacksScoreLeads } from "../score.js";

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

/**
 * Show the mistakes of `review` (`review.mistakes`: {winrate, score}, docs/protocol.md
 * `analysis_done`) in the order the menu picks; a click calls `go(move number)`. Nothing to show
 * before a whole-game analysis.
 */
export function showMistakes(review, go) {
  if (!review.mistakes) return;
  const by = $("mistakes-by").value;
  const mistakes = review.mistakes[by];
  const ol = $("mistakes");
  ol.replaceChildren();
  for (const m of mistakes) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "#";
    const move = `Move ${m.move_number} ${COLOR_NAMES[m.color]} ${m.move}`;
    a.textContent = `${move}: ${lossText(m, by)} (best ${m.best})`;
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
}
