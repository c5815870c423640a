/**
 * A candidate's principal variation played out on the board, as Lizzie and KaTrain show it under
 * the mouse: its moves numbered 1, 2, 3... in turn from the player to move, captures taken off.
 * The server checked the line's legality when it searched it; a move onto a stone (which a
 * well-formed line never has) ends the line shown.
 */

import { pointOf } from "./coords.js";

const STONE = { B: "X", W: "O" };

/**
 * The board `board` (a string of ".XO", `n` by `n`) after the moves `pv` (GTP vertices, "pass"
 * allowed) played in turn from `toPlay` ("B" or "W"): `{board, numbers}` with `numbers` a Map of
 * each point still holding a stone of the line to its move number.
 */
export function playLine(board, n, toPlay, pv) {
  const cells = [...board];
  const numbers = new Map();
  let color = toPlay;
  for (const [i, vertex] of pv.entries()) {
    const p = pointOf(vertex, n);
    if (p !== null) {
      if (cells[p] !== ".") break;
      cells[p] = STONE[color];
      numbers.set(p, i + 1);
      for (const q of neighbours(p, n)) {
        if (cells[q] === STONE[other(color)]) removeIfDead(cells, q, n, numbers);
      }
      removeIfDead(cells, p, n, numbers); // a suicide the rules allow
    }
    color = other(color);
  }
  return { board: cells.join(""), numbers };
}

const other = (color) => (color === "B" ? "W" : "B");

function neighbours(p, n) {
  const r = Math.floor(p / n);
  const c = p % n;
  const out = [];
  if (r > 0) out.push(p - n);
  if (r < n - 1) out.push(p + n);
  if (c > 0) out.push(p - 1);
  if (c < n - 1) out.push(p + 1);
  return out;
}

/** Take the string at `p` off `cells` if it has no liberty. */
function removeIfDead(cells, p, n, numbers) {
  const stone = cells[p];
  const string = [p];
  const seen = new Set(string);
  for (let i = 0; i < string.length; i++) {
    for (const q of neighbours(string[i], n)) {
      if (cells[q] === ".") return;
      if (cells[q] === stone && !seen.has(q)) {
        seen.add(q);
        string.push(q);
      }
    }
  }
  for (const q of string) {
    cells[q] = ".";
    numbers.delete(q);
  }
}
