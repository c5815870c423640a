/** The list of the biggest mistakes of the whole-game analysis, each a link to the position before it. */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";

/** Show `mistakes` (docs/protocol.md, `analysis_done`); a click calls `go(move number)`. */
export function showMistakes(mistakes, go) {
  const ol = $("mistakes");
  ol.replaceChildren();
  for (const m of mistakes) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = "#";
    const loss = (100 * m.loss).toFixed(1);
    a.textContent = `Move ${m.move_number} ${COLOR_NAMES[m.color]} ${m.move}: −${loss}% (best ${m.best})`;
    a.onclick = (e) => {
      e.preventDefault();
      go(m.move_number - 1);
    };
    li.appendChild(a);
    ol.appendChild(li);
  }
  if (!mistakes.length) {
    const li = document.createElement("li");
    li.textContent = "No mistakes found.";
    ol.appendChild(li);
  }
}
