/**
 * The feature-plane viewer: menus of the feature sets and their planes, `[` `]` to step through the
 * planes, and the plane received for a move as a heatmap. It is active while the heatmap menu
 * says "feature plane".
 */

import { $ } from "./dom.js";
import { addShortcuts } from "./shortcuts.js";

export class FeatureViewer {
  #sets;
  #ask;
  #plane = null;

  /**
   * `featureSets`: {set name: [{name, description}]}; `ask(set, plane)` asks the server for a
   * plane of the move shown.
   */
  constructor(featureSets, ask) {
    this.#sets = featureSets;
    this.#ask = ask;
    for (const name of Object.keys(featureSets)) $("feature-set").add(new Option(name, name));
    this.#fillPlanes();
    $("feature-set").onchange = () => {
      this.#fillPlanes();
      this.request();
    };
    $("feature-plane").onchange = () => this.request();
    addShortcuts(() => (this.active ? { "[": () => this.#step(-1), "]": () => this.#step(1) } : {}));
  }

  get active() {
    return $("heatmap").value === "features";
  }

  /** Show or hide the menus; when shown, ask for the chosen plane. */
  show(on) {
    $("feature-viewer").hidden = !on;
    if (on) this.request();
  }

  request() {
    this.#ask($("feature-set").value, $("feature-plane").value);
  }

  /** Keep a `features` message: the plane shown, and its description and legend under the menus. */
  received(message) {
    this.#plane = message;
    $("feature-description").textContent = message.description;
    $("feature-legend").textContent = planeLegend(message);
  }

  /**
   * The plane of move `k` (of the variation's node named `node`, if given) as the heatmap draws it
   * (planeHeat), or null when none has come for that position.
   */
  heat(k, node) {
    const plane = this.#plane;
    if (!plane || plane.move_number !== k || plane.node !== node) return null;
    return planeHeat(plane);
  }

  #fillPlanes() {
    const planes = this.#sets[$("feature-set").value];
    $("feature-plane").replaceChildren(...planes.map((p) => new Option(p.name, p.name)));
  }

  #step(delta) {
    const select = $("feature-plane");
    select.selectedIndex = (select.selectedIndex + delta + select.options.length) % select.options.length;
    this.request();
  }
}

/** Whether feature plane `plane` (a `features` message) takes negative values (its range, or here). */
const signed = (plane) => plane.low < 0 || plane.values.some((v) => v < 0);

/** The largest size of a value of signed `plane`: its range's, or a bigger one here. */
const bound = (plane) => Math.max(Math.abs(plane.low), Math.abs(plane.high), ...plane.values.map(Math.abs)) || 1;

/**
 * The heatmap of feature plane `plane` (overlays.js `drawHeat`): a plane that takes negative values
 * on a diverging scale, v / max |v| in [-1, 1] (0 clear, the sign a colour, the size its shade; the
 * largest size is the plane's range's, so a constant plane such as the komi shows as much as it
 * is); any other from its low (clear) to its high, in [0, 1].
 */
export function planeHeat(plane) {
  if (signed(plane)) {
    const most = bound(plane);
    return plane.values.map((v) => v / most);
  }
  const span = plane.high - plane.low || 1;
  return plane.values.map((v) => (v - plane.low) / span);
}

const figure = (v) => String(Number(v.toFixed(3)));

/** What the heatmap of `plane` shows, in words, with the values of the position shown. */
export function planeLegend(plane) {
  const values = plane.values;
  const least = Math.min(...values);
  const most = Math.max(...values);
  const colours = signed(plane)
    ? `Red: positive, blue: negative, stronger the further from 0 (full at ±${figure(bound(plane))}); 0 is clear.`
    : `Red, shaded from ${figure(plane.low)} (clear) to ${figure(plane.high)}.`;
  const here = least === most ? `Every point is ${figure(least)} here.` : `Here from ${figure(least)} to ${figure(most)}.`;
  return `${colours} ${here}`;
}
