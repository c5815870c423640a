/** Board coordinates: GTP vertices (no letter I) to rows, columns and point indices and back; star points. */

export const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

export const toGtp = (row, col, size) => `${LETTERS[col]}${size - row}`;

/** `{row, col}` of a vertex, or null for a pass (or no vertex). */
export function fromGtp(vertex, size) {
  if (!vertex || vertex === "pass") return null;
  return { row: size - Number(vertex.slice(1)), col: LETTERS.indexOf(vertex[0]) };
}

/** Point index (`row * size + col`, row by row from the top left) of a vertex, or null for a pass. */
export function pointOf(vertex, size) {
  const p = fromGtp(vertex, size);
  return p ? p.row * size + p.col : null;
}

/** `[row, col]` of the star points (hoshi) of a board. */
export function starPoints(size) {
  if (size < 7) return [];
  const e = size >= 13 ? 3 : 2;
  const far = size - 1 - e;
  const middle = (size - 1) / 2;
  if (size < 13 && size % 2) return [[e, e], [e, far], [far, e], [far, far], [middle, middle]];
  const lines = size % 2 ? [e, middle, far] : [e, far];
  return lines.flatMap((r) => lines.map((c) => [r, c]));
}
