/**
 * The play page's Pass button: on a board that is not settled yet (the state's `settled`, from the
 * engine's playouts: points still undecided, or dame left) a pass asks first, in the page, as
 * KaTrain and OGS players expect; on a settled board it passes at once. The key `p` clicks the
 * button (play.js), so it asks alike.
 */

import { $ } from "../dom.js";

export class PassButton {
  #act;
  #current;

  /** Pass with `act(message)` (play.js: sent over an open connection only); `current()` gives the last state message. */
  constructor(act, current) {
    this.#act = act;
    this.#current = current;
    $("pass").onclick = () => this.#ask();
    $("pass-anyway").onclick = () => {
      this.hide();
      this.#act({ type: "pass" });
    };
    $("pass-cancel").onclick = () => this.hide();
  }

  /** Hide the question (a new state came: it asks again on the next pass). */
  hide() {
    $("pass-confirm").hidden = true;
  }

  #ask() {
    if (this.#current()?.settled !== false) {
      this.#act({ type: "pass" });
      return;
    }
    $("pass-confirm").hidden = false;
    $("pass-cancel").focus(); // Enter keeps playing: passing takes the deliberate click
  }
}
