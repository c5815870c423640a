/**
 * The game tree of the review page: the nodes of the server's `tree` message (docs/protocol.md),
 * or the main line alone until it comes; each node's depth, name (its line from the start, as the
 * server names it: "BE5 WC3") and moves, and the variation last visited at each node, which the
 * keys follow forward.
 */

export class GameTree {
  #depths = [];
  #names = [];
  #chosen = new Map(); // node -> the child last visited

  /** `nodes`: [{move ([color, vertex], null at the start), parent, children, main, ...}], parents first. */
  constructor(nodes) {
    this.nodes = nodes;
    for (const [i, node] of nodes.entries()) {
      this.#depths[i] = node.parent === null ? 0 : this.#depths[node.parent] + 1;
    }
  }

  /** The tree of the main line alone: `moves` ([[color, vertex]]). */
  static mainLine(moves) {
    const nodes = [{ move: null, parent: null, children: [], main: true }];
    moves.forEach((move, i) => {
      nodes[i].children.push(i + 1);
      nodes.push({ move, parent: i, children: [], main: true });
    });
    return new GameTree(nodes);
  }

  depth(i) {
    return this.#depths[i];
  }

  /** The nodes from the start to node `i`. */
  path(i) {
    const path = [];
    for (let at = i; at !== null; at = this.nodes[at].parent) path.push(at);
    return path.reverse();
  }

  /** The moves from the start to node `i` ([[color, vertex]]). */
  moves(i) {
    return this.path(i).slice(1).map((at) => this.nodes[at].move);
  }

  /** The server's name of node `i`: its moves, "BE5 WC3" ("" for the start). */
  name(i) {
    if (this.#names[i] === undefined) {
      const parent = this.nodes[i].parent;
      const own = parent === null ? "" : this.nodes[i].move.join("");
      const before = parent === null ? "" : this.name(parent);
      this.#names[i] = before && own ? `${before} ${own}` : before || own;
    }
    return this.#names[i];
  }

  /** The node named `name` (tree.name), or undefined when the tree has none. */
  find(name) {
    let at = 0;
    for (const word of name.split(" ").filter(Boolean)) {
      at = this.nodes[at].children.find((c) => this.nodes[c].move.join("") === word);
      if (at === undefined) return undefined;
    }
    return at;
  }

  /** The main line's node at depth `d` (its last one when the line is shorter). */
  mainAt(d) {
    let at = 0;
    while (this.depth(at) < d && this.nodes[this.nodes[at].children[0]]?.main) [at] = this.nodes[at].children;
    return at;
  }

  /** The child of node `i` that its line goes on with: the one last visited, else the first. */
  next(i) {
    return this.#chosen.get(i) ?? this.nodes[i].children[0];
  }

  /** The node at depth `d` of the line through node `i` (going forward, the variations last visited). */
  along(i, d) {
    let at = i;
    while (this.depth(at) > d) at = this.nodes[at].parent;
    while (this.depth(at) < d && this.next(at) !== undefined) at = this.next(at);
    return at;
  }

  /** Remember the line to node `i` as the one to go on with at each node before it. */
  chosen(i) {
    for (let at = i; this.nodes[at].parent !== null; at = this.nodes[at].parent) {
      this.#chosen.set(this.nodes[at].parent, at);
    }
  }

  /** How many moves node `i` and the nodes after it hold (those that deleting it takes away). */
  count(i) {
    return 1 + this.nodes[i].children.reduce((sum, child) => sum + this.count(child), 0);
  }

  /** The child of node `i` playing `vertex`, or undefined. */
  childPlaying(i, vertex) {
    return this.nodes[i].children.find((c) => this.nodes[c].move[1] === vertex);
  }

  /** The sibling `step` places from node `i` among its parent's children (wrapping), or `i` itself. */
  sibling(i, step) {
    const parent = this.nodes[i].parent;
    if (parent === null) return i;
    const siblings = this.nodes[parent].children;
    const index = siblings.indexOf(i);
    return siblings[(index + step + siblings.length) % siblings.length];
  }

  /** The depth where the line to node `i` leaves the main line (its depth when it does not). */
  forkDepth(i) {
    const off = this.path(i).find((at) => !this.nodes[at].main);
    return off === undefined ? this.depth(i) : this.depth(off) - 1;
  }
}
