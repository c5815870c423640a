/** Move numbers to write on the stones. */

import { pointOf } from "./coords.js";

/** Number of the last move played at each point still occupied on `board`, after the first `upto` moves. */
export function moveNumbers(moves, upto, board, size) {
  const numbers = new Map();
  moves.slice(0, upto).forEach(([, v], i) => {
    const p = pointOf(v, size);
    if (p !== null) numbers.set(p, i + 1);
  });
  for (const [point] of numbers) if (board[point] === ".") numbers.delete(point);
  return numbers;
}
