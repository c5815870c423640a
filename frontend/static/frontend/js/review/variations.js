/**
 * Variations on the review board, as in Sabaki and KaTrain: a click on a point plays it from the
 * position shown (a new branch of the game tree, or the move the tree holds there), a click on a
 * candidate in the list (or a shift-click on the board while its line shows) plays its whole line, Pass passes, and the tree's buttons delete a
 * variation (once the player confirms it) or make it the main line; ↑ ↓ switch between the
 * variations at the nearest fork. The server checks each move and answers with the `tree`
 * (docs/protocol.md): the owner's variations are saved with the game, a shared review's viewer
 * explores its own. A change made in another of the owner's tabs (`tree_changed`) is asked for.
 */

import { toGtp } from "../coords.js";
import { $ } from "../dom.js";
import { pointAt } from "../goban.js";
import { addShortcuts } from "../shortcuts.js";
import { GameTree } from "./tree.js";

/**
 * Run the variations of `review` over `socket` on the board `svg`: `showNode()` redraws and asks
 * for what the node shown needs, `go(k)` shows move k of the main line; the page starts at the
 * `place` its URL names (place.js: a branch just made the main line sets it before the reload).
 */
export function bindBranching(socket, svg, review, { showNode, go, place }) {
  const n = review.size;
  const playFrom = (moves) => socket.send({ type: "branch", node: review.tree.name(review.node), moves });
  const visit = (node) => {
    review.show(node);
    showNode();
  };
  socket.on("tree", (m) => {
    if (m.main_line_changed) {
      location.hash = `move=${review.tree.depth(m.current)}`;
      location.reload();
      return;
    }
    $("error").textContent = ""; // a move refused before is no longer the news
    const [name, k] = [review.tree.name(review.node), review.k];
    review.tree = new GameTree(m.nodes);
    review.saved = m.saved;
    review.treeCut = m.cut;
    const asked = place.take(review.tree); // the node the URL named when the page loaded, once
    visit(m.current ?? asked ?? review.tree.find(name) ?? review.tree.mainAt(k)); // else stay where the page is
  });
  socket.on("tree_changed", (m) => {
    if (m.main_line_changed) location.reload(); // the page is of another game now
    else socket.send({ type: "tree" });
  });
  svg.addEventListener("click", (event) => {
    const line = review.line;
    if (event.shiftKey && line) {
      playFrom(line.pv?.length ? line.pv : [line.move]); // the candidate's line under the mouse
      return;
    }
    const p = pointAt(svg, event, n);
    if (p === null) return;
    const vertex = toGtp(Math.floor(p / n), p % n, n);
    const known = review.tree.childPlaying(review.node, vertex);
    if (known !== undefined) visit(known);
    else if (review.board[p] === ".") playFrom([vertex]);
  });
  $("candidate-list").addEventListener("click", (event) => {
    const move = event.target.closest("li")?.dataset.move;
    const candidate = review.analysis?.candidates?.find((c) => c.move === move);
    if (candidate) playFrom(candidate.pv?.length ? candidate.pv : [candidate.move]);
  });
  $("pass-branch").onclick = () => playFrom(["pass"]);
  $("delete-branch").onclick = () => {
    const moves = review.tree.count(review.node);
    if (confirm(`Delete this variation: ${moves} move${moves === 1 ? "" : "s"} from move ${review.k} on? This cannot be undone.`)) {
      socket.send({ type: "delete_branch", node: review.tree.name(review.node) });
    }
  };
  const promote = $("promote-branch");
  if (promote) promote.onclick = () => socket.send({ type: "promote_branch", node: review.tree.name(review.node) });
  const switchVariation = (step) => {
    const tree = review.tree;
    let fork = review.node;
    while (tree.nodes[fork].parent !== null && tree.nodes[tree.nodes[fork].parent].children.length < 2) {
      fork = tree.nodes[fork].parent;
    }
    if (tree.nodes[fork].parent === null) return;
    visit(tree.along(tree.sibling(fork, step), review.k));
  };
  addShortcuts(() => ({ ArrowUp: () => switchVariation(-1), ArrowDown: () => switchVariation(1) }));
  if (place.move !== null) go(place.move);
}
