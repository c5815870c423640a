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
// Each field is named for the chosen clock, and each clock proposes its usual overtime when chosen
// (5 periods of 30 seconds, 25 moves in 5 minutes, an increment of 10 seconds), unless the player
// typed one.
const { time_system: clockSystem, time_main: mainTime, time_period: period, time_periods: periods } = form.elements;
const LABELS = {
  byoyomi: ["Byo-yomi period (seconds)", "Byo-yomi periods (none: absolute time)"],
  canadian: ["Canadian period (seconds)", "Moves to make in each Canadian period"],
  fischer: ["Increment after each move (seconds)", ""],
};
const PROPOSED = { byoyomi: ["30", "5"], canadian: ["300", "25"], fischer: ["10", null] };
let typedPeriod = false;

/** Show a field only if the clock uses it; a hidden one is disabled too (not sent, not checked). */
function showField(field, used) {
  field.closest("p").hidden = !used;
  field.disabled = !used;
}

function name(field, text) {
  const label = form.querySelector(`label[for="${field.id}"]`);
  if (label && text) label.textContent = `${text}:`;
}

function showClockFields() {
  const system = clockSystem.value;
  showField(mainTime, system !== "none");
  showField(period, system !== "none");
  showField(periods, system === "byoyomi" || system === "canadian");
  const [periodLabel, periodsLabel] = LABELS[system] ?? ["", ""];
  name(period, periodLabel);
  name(periods, periodsLabel);
}

/** A new clock chosen: its fields, and its usual period unless the player typed one. */
function chooseClock() {
  const system = clockSystem.value;
  if (!typedPeriod && PROPOSED[system]) {
    const [seconds, count] = PROPOSED[system];
    period.value = seconds;
    if (count !== null) periods.value = count;
  }
  showClockFields();
}

for (const field of [period, periods]) {
  field.addEventListener("input", () => {
    typedPeriod = true;
  });
}
clockSystem.addEventListener("change", chooseClock);
window.addEventListener("pageshow", showClockFields); // also when Back brings the page back filled in
showClockFields();
