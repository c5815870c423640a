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

// The clock's settings show only for a game with a clock; the periods only for byo-yomi.
const { time_system: clockSystem, time_main: mainTime, time_period: period, time_periods: periods } = form.elements;

function showClockFields() {
  const system = clockSystem.value;
  mainTime.closest("p").hidden = system === "none";
  period.closest("p").hidden = system === "none";
  periods.closest("p").hidden = system !== "byoyomi";
}

clockSystem.addEventListener("change", showClockFields);
showClockFields();
