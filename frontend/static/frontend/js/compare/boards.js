/** What each compare board shows: its network's top 10, the moves both networks rank, and the move played. */

/** The comparison's entry for the move shown, or undefined before the comparison came. */
export function entryOf(state) {
  return state.result?.positions[state.review.k];
}

/** The goban view (goban.js `draw`) of network `side` (0: A, 1: B) at the move shown. */
export function boardOf(state, side) {
  const review = state.review;
  const entry = entryOf(state);
  const name = state.result?.networks[side];
  const net = entry && entry.nets[name];
  const shared = new Set(entry ? entry.shared : []);
  const next = review.next;
  return {
    size: review.size,
    board: review.board,
    last: review.lastMove,
    coords: true,
    candidates: net ? net.top.map((c, order) => ({ ...c, order, shared: shared.has(c.move) })) : null,
    played: next ? { move: next[1], rank: net ? net.played_rank : null } : null,
  };
}
