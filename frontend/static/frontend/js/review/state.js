/** The review page's state: the replay (timeline), the move shown, and the analyses received so far. */

import { pointOf } from "../coords.js";

export class Review {
  /** `timeline`: {size, moves ([[color, vertex]]), boards (the board after each move, from move 0)}. */
  constructor(timeline) {
    this.timeline = timeline;
    this.size = timeline.size;
    this.last = timeline.moves.length;
    this.k = 0;
    this.entries = []; // whole-game analysis, by move number
    this.mistakes = null; // its mistakes, ranked both ways: {winrate, score}
    this.positions = new Map(); // position analysis (with policy, ladders), by move number
    this.lineMove = null; // the candidate whose variation the board shows (under the mouse), or null
  }

  /**
   * Keep the position analysis `m`, unless one of the same move with the ownership map that `m`
   * lacks came first (`m` answered an earlier request, made before the Territory toggle was on).
   */
  keep(m) {
    const known = this.positions.get(m.move_number);
    if (known?.ownership !== undefined && m.ownership === undefined) return;
    this.positions.set(m.move_number, m);
  }

  /** Show move `to`, kept within the game (and no candidate's variation). */
  moveTo(to) {
    this.k = Math.max(0, Math.min(this.last, to));
    this.lineMove = null;
  }

  /** The candidate of the move shown whose variation is shown ({move, pv, winrate...}), or null. */
  get line() {
    return this.analysis?.candidates?.find((c) => c.move === this.lineMove) ?? null;
  }

  get board() {
    return this.timeline.boards[this.k];
  }

  /** The vertex of the move that led to the position shown, or null at the start. */
  get lastMove() {
    return this.k ? this.timeline.moves[this.k - 1][1] : null;
  }

  /** The move played from the position shown ([color, vertex]), undefined at the end. */
  get next() {
    return this.timeline.moves[this.k];
  }

  /** The position analysis of the move shown, if it came. */
  get position() {
    return this.positions.get(this.k);
  }

  /** The best analysis there is of the move shown: the position's, else the whole game's entry. */
  get analysis() {
    return this.position || this.entries[this.k];
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
