/**
 * The board pages' entry module (play, review, compare): runs the page the layout's `data-page`
 * names over the websocket at the path in `data-socket` (docs/protocol.md): the game's board, or a
 * shared review's read-only one (`data-read-only`). No build step: the modules under js/ are native
 * ES modules, loaded by relative imports.
 */

import { comparePage } from "./js/compare.js";
import { $ } from "./js/dom.js";
import { playPage } from "./js/play.js";
import { rememberDisplay } from "./js/remembered.js";
import { reviewPage } from "./js/review.js";
import { BoardSocket } from "./js/socket.js";

const layout = document.querySelector(".board-layout");
const socket = new BoardSocket(layout.dataset.socket, () => {
  $("status").textContent = "Connection lost; reconnecting…";
});
socket.on("error", (m) => {
  $("error").textContent = m.message;
});
const pages = {
  play: () => playPage(socket, layout.dataset.human),
  review: () => reviewPage(socket, { readOnly: layout.dataset.readOnly === "true" }),
  compare: () => comparePage(socket),
};
rememberDisplay(); // before the page draws with them
pages[layout.dataset.page]();
socket.connect();
