/**
 * The owner's box for the players' comment on the position shown, as Sabaki's and KaTrain's: typed
 * in, it is saved when it loses the focus (Save, Ctrl+Enter, or a click elsewhere) with the
 * `comment` message (docs/protocol.md), whose answer, the tree, brings the text back as saved;
 * Escape puts back the text as it was. While it has the focus, the keys are its own (shortcuts.js)
 * and the text being typed is left alone. A shared review has no box.
 */

import { $ } from "../dom.js";

export class CommentBox {
  #box = $("comment-edit");
  #editing = null; // while typing: the node's name and its comment as it was

  /** The box of `review`'s node shown, saved over `socket`. */
  constructor(socket, review) {
    const box = this.#box;
    if (!box) return;
    box.addEventListener("focus", () => {
      this.#editing = { node: review.tree.name(review.node), was: box.value };
    });
    box.addEventListener("blur", () => {
      const editing = this.#editing;
      this.#editing = null;
      if (editing && box.value !== editing.was) {
        socket.send({ type: "comment", node: editing.node, comment: box.value });
      }
    });
    box.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.#editing) box.value = this.#editing.was;
      if (event.key === "Escape" || (event.key === "Enter" && (event.ctrlKey || event.metaKey))) {
        event.preventDefault();
        box.blur();
      }
    });
    $("comment-save").onclick = () => box.blur();
  }

  /** Show the comment of `review`'s node shown, unless the player is typing one. */
  show(review) {
    if (this.#box && !this.#editing) this.#box.value = review.comment;
  }
}
