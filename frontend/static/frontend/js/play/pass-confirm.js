/**
 * The play page's Pass button: on a board that is not settled yet (the state's `settled`, from the
 * engine's playouts: points still undecided, or dame left) a pass asks first, in the page, as
 * KaTrain and OGS players expect; on a settled board it passes at once.
 */

import { $ } from "../dom.js";

export class PassButton {
  #socket;
  #current;

  /** Pass over `socket`; `current()` gives the last state message. */
  constructor(socket, current) {
    this.#socket = socket;
    this.#current = current;
    $("pass").onclick = () => this.#ask();
    $("pass-anyway").onclick = () => {
      this.hide();
      this.#socket.send({ type: "pass" });
    };
    $("pass-cancel").onclick = () => this.hide();
  }

  /** Hide the question (a new state came: it asks again on the next pass). */
  hide() {
    $("pass-confirm").hidden = true;
  }

  #ask() {
    if (this.#current()?.settled !== false) {
      this.#socket.send({ type: "pass" });
      return;
    }
    $("pass-confirm").hidden = false;
    $("pass-cancel").focus(); // Enter keeps playing: passing takes the deliberate click
  }
}
