/**
 * Moving through a game shown move by move: the « ◀ ▶ » buttons (ids first, prev, next, last) and
 * the keys ← → Home End, shared by the review and compare pages.
 */

import { $ } from "./dom.js";
import { addShortcuts } from "./shortcuts.js";

/**
 * Call `go(move number)` from the buttons and keys; `at()` is the move shown, `last` the last one (a
 * number, or a function asked at each press: the end of the line shown).
 */
export function bindMoveButtons(go, at, last) {
  const end = typeof last === "function" ? last : () => last;
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(at() - 1);
  $("next").onclick = () => go(at() + 1);
  $("last").onclick = () => go(end());
  addShortcuts(() => ({
    ArrowLeft: () => go(at() - 1),
    ArrowRight: () => go(at() + 1),
    Home: () => go(0),
    End: () => go(end()),
  }));
}
