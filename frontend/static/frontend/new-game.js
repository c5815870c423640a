/**
 * The new-game page's entry module: when the handicap or the rules change, the komi follows
 * (0.5 for a handicap game, the rules' usual komi for an even one, as OGS proposes), until the
 * player types a komi of their own. The proposals come from the server (`#komi-defaults`). The
 * clock's settings show for a game with a clock.
 */

import { $, readJson } from "./js/dom.js";

const defaults = readJson("komi-defaults");
const form = $("new-game");
const { komi, handicap, rules } = form.elements;
let typed = false;

function propose() {
  if (typed) return;
  komi.value = Number(handicap.value) >= 2 ? defaults.handicap : defaults.even[rules.value];
}

komi.addEventListener("input", () => {
  typed = true;
});
handicap.addEventListener("input", propose);
rules.addEventListener("change", propose);

// The clock's settings show only for a game with a clock; the periods only for byo-yomi and Canadian.
const { time_system: clockSystem, time_main: mainTime, time_period: period, time_periods: periods } = form.elements;

/** Show a field only if the clock uses it; a hidden one is disabled too (not sent, not checked). */
function showField(field, used) {
  field.closest("p").hidden = !used;
  field.disabled = !used;
}

function showClockFields() {
  const system = clockSystem.value;
  showField(mainTime, system !== "none");
  showField(period, system !== "none");
  showField(periods, system === "byoyomi" || system === "canadian");
}

clockSystem.addEventListener("change", showClockFields);
window.addEventListener("pageshow", showClockFields); // also when Back brings the page back filled in
showClockFields();
