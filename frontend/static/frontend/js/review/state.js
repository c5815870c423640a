/**
 * The review page's state: the replay (timeline) of the main line, the game tree (tree.js: the
 * record's variations and the player's) with the node shown, and the analyses received so far.
 */

import { pointOf } from "../coords.js";
import { GameTree } from "./tree.js";

export class Review {
  /** `timeline`: {size, moves ([[color, vertex]]), boards (the board after each move, from move 0)}. */
  constructor(timeline) {
    this.timeline = timeline;
    this.size = timeline.size;
    this.last = timeline.moves.length;
    this.tree = GameTree.mainLine(timeline.moves);
    this.node = 0; // the node shown, an index into the tree
    this.saved = null; // whether the variations made are saved with the game (the tree message says)
    this.treeCut = false; // whether the tree was too big to come whole
    this.entries = []; // whole-game analysis, by move number
    this.mistakes = null; // its mistakes, ranked both ways: {winrate, score}
    this.positions = new Map(); // position analysis (with policy, ladders), by move number
    this.variationPositions = new Map(); // position analysis of variations' nodes, by node name
    this.lineMove = null; // the candidate whose variation the board shows (under the mouse), or null
  }

  /** The move number of the node shown: its depth in the tree. */
  get k() {
    return this.tree.depth(this.node);
  }

  /** Whether the node shown is on the main line (the timeline's move `k`). */
  get onMain() {
    return this.tree.nodes[this.node].main;
  }

  /** The fields that name the position shown to the server: none on the main line, else its node. */
  get asked() {
    return this.onMain ? {} : { node: this.tree.name(this.node) };
  }

  /** Whether analysis (or feature plane) message `m` is of the position shown. */
  shows(m) {
    return m.node ? !this.onMain && m.node === this.tree.name(this.node) : this.onMain && m.move_number === this.k;
  }

  /**
   * Keep the position analysis `m`, unless one of the same move with the ownership map that `m`
   * lacks came first (`m` answered an earlier request, made before the Territory toggle was on).
   */
  keep(m) {
    const [store, key] = m.node ? [this.variationPositions, m.node] : [this.positions, m.move_number];
    const known = store.get(key);
    if (known?.ownership !== undefined && m.ownership === undefined) return;
    store.set(key, m);
  }

  /** Show node `node` of the tree (and no candidate's variation). */
  show(node) {
    this.node = node;
    this.tree.chosen(node);
    this.lineMove = null;
  }

  /** Show move `to` of the main line, kept within the game. */
  moveTo(to) {
    this.show(this.tree.mainAt(Math.max(0, Math.min(this.last, to))));
  }

  /** Show the node at depth `to` of the line shown (forward: the variations last visited). */
  moveAlong(to) {
    this.show(this.tree.along(this.node, to));
  }

  /** The depth of the end of the line shown (the variations last visited). */
  get lineEnd() {
    return this.tree.depth(this.tree.along(this.node, Infinity));
  }

  /** The moves from the start to the node shown ([[color, vertex]]). */
  get lineMoves() {
    return this.tree.moves(this.node);
  }

  /** The players' comment on the position shown: the tree's once it came (edited comments too). */
  get comment() {
    return this.tree.nodes[this.node].comment ?? (this.onMain ? this.timeline.comments[this.k] : "");
  }

  /** The candidate of the move shown whose variation is shown ({move, pv, winrate...}), or null. */
  get line() {
    return this.analysis?.candidates?.find((c) => c.move === this.lineMove) ?? null;
  }

  get board() {
    return this.onMain ? this.timeline.boards[this.k] : this.tree.nodes[this.node].board;
  }

  /** The vertex of the move that led to the position shown, or null at the start. */
  get lastMove() {
    return this.tree.nodes[this.node].move?.[1] ?? null;
  }

  /**
   * The move played from the position shown ([color, vertex]), undefined at the end: the game's
   * on the main line, a variation's first next move in it.
   */
  get next() {
    if (this.onMain) return this.timeline.moves[this.k];
    const [first] = this.tree.nodes[this.node].children;
    return first === undefined ? undefined : this.tree.nodes[first].move;
  }

  /** The position analysis of the move shown, if it came. */
  get position() {
    return this.onMain ? this.positions.get(this.k) : this.variationPositions.get(this.tree.name(this.node));
  }

  /**
   * The best analysis there is of the move shown: the position's, else the whole game's entry (or
   * the one a variation's node saved).
   */
  get analysis() {
    return this.position || (this.onMain ? this.entries[this.k] : this.tree.nodes[this.node].analysis);
  }

  /** The network's rank of the move played next (1 = its first choice), or null when unknown. */
  get playedRank() {
    const a = this.analysis;
    const next = this.next;
    return next && a ? a.played_rank || policyRank(a.policy, next[1], this.size) : null;
  }
}

/** Rank of `vertex` in `policy` (size*size + 1 priors, pass last), or null without a policy. */
function policyRank(policy, vertex, n) {
  if (!policy) return null;
  const index = pointOf(vertex, n) ?? n * n;
  return policy.filter((x) => x > policy[index]).length + 1;
}
