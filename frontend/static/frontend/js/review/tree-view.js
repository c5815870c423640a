/**
 * The game tree drawn beside the review board, as Sabaki draws it: one dot per move, the main line
 * along the top, each variation on a row of its own from the move it branches at; a click on a dot
 * shows its position. On the board, the next moves of the position shown get letters (A: the line
 * goes on with it) when it has variations. The line under the buttons says where the node shown
 * lies and whether the variations are saved.
 */

import { pointOf } from "../coords.js";
import { $ } from "../dom.js";
import { el } from "../svg.js";

const STEP = 16; // pixels between two moves, and between two rows
const MARGIN = 10;
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** Each node's row: a first child stays on its parent's row, each other child opens a new one. */
function rows(tree) {
  const row = [0];
  let last = 0;
  tree.nodes.forEach((node, i) => {
    node.children.forEach((child, j) => {
      row[child] = j === 0 ? row[i] : ++last;
    });
  });
  return row;
}

/** The centre of node `i` in the drawing. */
const place = (tree, row, i) => ({ x: MARGIN + STEP * tree.depth(i), y: MARGIN + STEP * row[i] });

/**
 * The tree's drawing, kept while the tree and the node shown stay the same; `visit(node)` is
 * called on a click on a dot.
 */
export class TreeView {
  #drawn = { tree: null, node: null };

  constructor(visit) {
    $("tree").addEventListener("click", (event) => {
      const node = event.target.closest("[data-node]")?.dataset.node;
      if (node !== undefined) visit(Number(node));
    });
  }

  /** Draw `review`'s tree (again only when it or the node shown changed), and the line about it. */
  show(review) {
    $("tree-info").textContent = treeInfo(review);
    $("delete-branch").disabled = review.onMain;
    const promote = $("promote-branch");
    if (promote) promote.disabled = review.onMain;
    if (!review.onMain) $("move-label").textContent = `${review.k} (variation)`;
    if (this.#drawn.tree === review.tree && this.#drawn.node === review.node) return;
    this.#drawn = { tree: review.tree, node: review.node };
    drawTree($("tree"), review.tree, review.node);
  }
}

function drawTree(svg, tree, current) {
  const row = rows(tree);
  const nodes = tree.nodes;
  const width = MARGIN * 2 + STEP * Math.max(...nodes.map((_, i) => tree.depth(i)));
  const height = MARGIN * 2 + STEP * Math.max(...row);
  svg.replaceChildren();
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const lines = el("g", { class: "tree-lines" }, svg);
  nodes.forEach((node, i) => {
    if (node.parent === null) return;
    const [a, b] = [place(tree, row, node.parent), place(tree, row, i)];
    el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: node.main ? "main" : "" }, lines);
  });
  const path = new Set(tree.path(current));
  nodes.forEach((node, i) => {
    const { x, y } = place(tree, row, i);
    const color = node.move ? (node.move[0] === "B" ? "black" : "white") : "start";
    const classes = ["tree-node", color, path.has(i) ? "on-line" : "", i === current ? "current" : ""];
    const dot = el("circle", { cx: x, cy: y, r: 5, class: classes.join(" ").trim(), "data-node": i }, svg);
    el("title", {}, dot, node.move ? `${tree.depth(i)}. ${node.move[0]} ${node.move[1]}` : "start");
  });
  const { x, y } = place(tree, row, current);
  const wrap = svg.parentElement;
  wrap.scrollLeft = x - wrap.clientWidth / 2;
  wrap.scrollTop = y - wrap.clientHeight / 2;
}

/** Where the node shown lies, and what becomes of the variations made here. */
function treeInfo(review) {
  const tree = review.tree;
  const variations = tree.nodes.filter((node, i) => i && !node.main && tree.nodes[node.parent].main).length;
  const count = `${variations} variation${variations === 1 ? "" : "s"}`;
  const kept = review.saved === false ? "explored here only: they are not saved" : "saved with the game";
  const where = review.onMain
    ? `Main line, move ${review.k}.`
    : `A variation from move ${tree.forkDepth(review.node)}, at move ${review.k}.`;
  const cut = review.treeCut ? " It is too big to show whole: its last variations are left out." : "";
  return `${where} The tree has ${count} (${kept}).${cut} Click a point to play it, a candidate in the list (or shift-click its circle) to play its line; ↑ ↓ switch variations.`;
}

/**
 * Letter the next moves of the position shown on the board `svg` when it has more than one (A: the
 * line goes on with it), as Sabaki marks them.
 */
export function drawBranchMarks(svg, review) {
  const tree = review.tree;
  const children = tree.nodes[review.node].children;
  if (children.length < 2 || review.line) return;
  const n = review.size;
  const g = el("g", { class: "branch-marks" }, svg);
  const next = tree.next(review.node);
  const ordered = [next, ...children.filter((c) => c !== next)];
  ordered.forEach((child, i) => {
    const p = pointOf(tree.nodes[child].move[1], n);
    if (p === null) return;
    const [x, y] = [p % n, Math.floor(p / n)];
    el("circle", { cx: x, cy: y, r: 0.3, class: "branch-mark" }, g);
    el("text", { x, y, class: "branch-letter" }, g, LETTERS[i]);
  });
}
