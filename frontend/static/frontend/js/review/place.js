/**
 * The place the review page shows, kept in the URL's fragment as the player moves, so that a reload
 * (or the link) comes back to it: `#move=N` on the main line; a variation's node as the move of the
 * main line it leaves from and its own moves, `#move=N&variation=BD4.WF4`. A variation is found once
 * the tree comes; until then the fragment is left as it was.
 */

const PLACE = /^#move=(\d+)(?:&variation=([BW][A-Za-z0-9]+(?:\.[BW][A-Za-z0-9]+)*))?$/;

export class Place {
  #variation = null; // the variation's moves ("BD4 WF4") the fragment named, until the tree comes

  constructor() {
    const asked = PLACE.exec(location.hash);
    this.move = asked ? Number(asked[1]) : null; // the main line's move to show first
    if (asked?.[2]) this.#variation = asked[2].split(".").join(" ");
  }

  /**
   * The node of `tree` that the fragment named a variation's node by (undefined when it named none,
   * or the tree does not hold it); asked once, when the tree first comes.
   */
  take(tree) {
    const variation = this.#variation;
    this.#variation = null;
    if (variation === null) return undefined;
    return tree.find(`${tree.name(tree.mainAt(this.move))} ${variation}`);
  }

  /** Write the place `review` shows into the URL's fragment (none for the start of the game). */
  keep(review) {
    if (this.#variation !== null) return; // the tree is still to come: the variation stays asked
    const tree = review.tree;
    let hash = review.k ? `#move=${review.k}` : "";
    if (!review.onMain) {
      const fork = tree.forkDepth(review.node);
      const moves = tree.moves(review.node).slice(fork);
      hash = `#move=${fork}&variation=${moves.map((move) => move.join("")).join(".")}`;
    }
    if (location.hash !== hash) history.replaceState(history.state, "", hash || location.pathname + location.search);
  }
}
