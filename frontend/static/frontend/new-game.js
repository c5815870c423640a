/**
 * The new-game page's entry module: when the handicap or the rules change, the komi follows
 * (0.5 for a handicap game, the rules' usual komi for an even one, as OGS proposes), until the
 * player types a komi of their own. The proposals come from the server (`#komi-defaults`).
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
