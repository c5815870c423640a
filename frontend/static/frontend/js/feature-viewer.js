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

  /** Keep a `features` message: the plane shown, and its description under the menus. */
  received(message) {
    this.#plane = message;
    $("feature-description").textContent = message.description;
  }

  /**
   * The plane of move `k` (of the variation's node named `node`, if given) scaled to [0, 1], or
   * null when none has come for that position.
   */
  heat(k, node) {
    const plane = this.#plane;
    if (!plane || plane.move_number !== k || plane.node !== node) return null;
    const span = plane.high - plane.low || 1;
    return plane.values.map((v) => (v - plane.low) / span);
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
