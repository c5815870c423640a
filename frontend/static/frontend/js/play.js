/**
 * The play page: the game against the bot as the server's `state` messages show it, a ghost stone
 * under the mouse on the human's turn, the score estimate's territory, the coach's hints and
 * verdicts (play/coach.js), a question before a pass on an open board, and clicks on the board: a
 * move while playing, a dead-or-alive toggle while scoring (each point's owner shown).
 */

import { pointOf, toGtp } from "./coords.js";
import { $, checked } from "./dom.js";
import { draw, pointAt } from "./goban.js";
import { moveNumbers } from "./move-numbers.js";
import { GameClock, isPaused } from "./play/clock.js";
import { Coach } from "./play/coach.js";
import { drawCoachMarks } from "./play/coach-marks.js";
import { ScoreEstimate } from "./play/estimate.js";
import { showState } from "./play/panel.js";
import { PassButton } from "./play/pass-confirm.js";
import { countedOwnership } from "./territory.js";

/** Run the play page over `socket` for the human playing colour `human` ("B" or "W"). */
export function playPage(socket, human) {
  const svg = $("goban");
  let state = null;
  let hover = null;
  const estimate = new ScoreEstimate(socket, () => render());
  const clock = new GameClock(socket);
  const pass = new PassButton(socket, () => state);
  const coach = new Coach(socket, () => render(), human);
  const render = () => {
    if (!state) return;
    draw(svg, boardView(state, human, hover, estimate.territory));
    const marks = coach.marks();
    if (marks) drawCoachMarks(svg, marks, state.board, state.size);
  };
  socket.on("state", (m) => {
    state = m;
    showState(m, human);
    pass.hide();
    coach.follow(m);
    clock.follow(m);
    estimate.follow(m);
    render();
  });
  svg.addEventListener("click", (event) => {
    if (state) clickPoint(socket, state, pointAt(svg, event, state.size));
  });
  svg.addEventListener("mousemove", (event) => {
    const p = state ? pointAt(svg, event, state.size) : null;
    if (p !== hover) {
      hover = p;
      render();
    }
  });
  svg.addEventListener("mouseleave", () => {
    hover = null;
    render();
  });
  bindButtons(socket, () => state);
  $("show-numbers").onchange = render;
  $("show-coords").onchange = render;
}

/**
 * The goban's view of `state`, with the ghost stone at `hover` when the human may play there and
 * the estimate's `territory` (Black's ownership, or null). Once the board is counted (while scoring
 * and after a counted end) the player's dead marks decide which stones are dead, not the territory,
 * and without the estimate shown the count's owner of each point is.
 */
function boardView(state, human, hover, territory) {
  const n = state.size;
  const humanToPlay = state.phase === "playing" && state.to_play === human && !isPaused(state);
  const canPlay = hover !== null && humanToPlay && state.board[hover] === ".";
  return {
    size: n,
    board: state.board,
    last: state.last_move,
    coords: checked("show-coords"),
    numbers: checked("show-numbers") ? moveNumbers(state.moves, state.moves.length, state.board, n) : null,
    dead: state.score ? new Set(state.dead.map((v) => pointOf(v, n))) : null,
    ghost: canPlay ? { point: hover, color: human } : null,
    territory: territory ?? (state.owners ? countedOwnership(state.owners) : null),
  };
}

/** A click on point `p` (or null, off the board): a move while playing, a toggle while scoring. */
function clickPoint(socket, state, p) {
  if (p === null) return;
  const n = state.size;
  const vertex = toGtp(Math.floor(p / n), p % n, n);
  if (state.phase === "scoring") socket.send({ type: "toggle_dead", point: vertex });
  else if (state.phase === "playing") socket.send({ type: "play", move: vertex });
}

/** Bind the panel's buttons; `current()` gives the last state message (the pause button toggles). */
function bindButtons(socket, current) {
  $("undo").onclick = () => socket.send({ type: "undo" });
  $("pause").onclick = () => socket.send({ type: isPaused(current()) ? "resume" : "pause" });
  $("resign").onclick = () => {
    if (confirm("Resign this game?")) socket.send({ type: "resign" });
  };
  $("accept").onclick = () => socket.send({ type: "accept_score" });
}
