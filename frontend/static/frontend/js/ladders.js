/**
 * The ladder overlay (`analysis.ladder.overlay`, docs/protocol.md): strings in a ladder with the
 * chase's path and the escape move, the ladder breakers, and a dashed red ring where the network
 * disagrees with the ladder search; `ladderText` says the same in words.
 */

import { fromGtp } from "./coords.js";
import { el } from "./svg.js";

export function drawLadders(svg, overlay, n) {
  const g = el("g", { class: "ladders" }, svg);
  for (const s of overlay.strings) drawLadderString(g, s, n);
  for (const b of overlay.breakers) {
    const p = fromGtp(b.point, n);
    const d = `M${p.col - 0.25},${p.row + 0.2} L${p.col},${p.row - 0.25} L${p.col + 0.25},${p.row + 0.2} Z`;
    el("path", { d, class: "ladder-breaker" }, g);
  }
}

function drawLadderString(g, s, n) {
  for (const v of s.stones) {
    const p = fromGtp(v, n);
    el("circle", { cx: p.col, cy: p.row, r: 0.5, class: `ladder-string ${s.status}` }, g);
  }
  if (s.pv.length) {
    const pts = s.pv.map((v) => fromGtp(v, n)).filter(Boolean).map((p) => `${p.col},${p.row}`);
    el("polyline", { points: pts.join(" "), class: `ladder-path ${s.status}` }, g);
  }
  if (s.saving_move) {
    const p = fromGtp(s.saving_move, n);
    el("rect", { x: p.col - 0.22, y: p.row - 0.22, width: 0.44, height: 0.44, class: "ladder-escape" }, g);
  }
  if (s.network?.disagrees) {
    const p = fromGtp(s.network.move, n);
    el("circle", { cx: p.col, cy: p.row, r: 0.42, class: "ladder-disagrees" }, g);
  }
}

/** Where the network disagrees with the ladder search about `s`, in words ("" where it agrees). */
function disagreement(s) {
  const view = s.network;
  return view?.disagrees ? ` — ${view.why} (${view.move} is its #${view.rank} move)` : "";
}

/** The ladder overlay in words: each string's colour, first stone, status and breakers. */
export function ladderText(overlay) {
  if (!overlay.strings.length) return "No string is in a ladder.";
  const breakers = (s) => (s.breakers.length ? ` (breakers ${s.breakers.join(" ")})` : "");
  return overlay.strings
    .map((s) => `${s.color} ${s.stones[0]}: ${s.status}${breakers(s)}${disagreement(s)}`)
    .join("; ");
}
