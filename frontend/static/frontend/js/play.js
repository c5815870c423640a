/**
 * The play page: the game against the bot as the server's `state` messages show it, a ghost stone
 * under the mouse on the human's turn, the score estimate's territory, the coach's hints and
 * verdicts (play/coach.js), a question before a pass on an open board, and clicks on the board: a
 * move while playing, a dead-or-alive toggle while scoring (each point's owner shown).
 *
 * The game's actions go out over an open connection only: while the socket is down the panel says
 * so and disables them, and a click on the board is dropped with a message, never queued for the
 * reconnection (the server sends the state again when the socket opens). The keys `p` (pass, with
 * its question) and `u` (undo) act as the buttons do; ← → Home End and the « ◀ ▶ » buttons look
 * back through the game (the moves replayed here from the state's `moves`), and the board plays
 * only at the latest position.
 */

import { pointOf, toGtp } from "./coords.js";
import { $, checked } from "./dom.js";
import { draw, pointAt } from "./goban.js";
import { moveNumbers } from "./move-numbers.js";
import { bindMoveButtons } from "./move-buttons.js";
import { GameClock, isPaused } from "./play/clock.js";
import { Coach } from "./play/coach.js";
import { drawCoachMarks } from "./play/coach-marks.js";
import { ScoreEstimate } from "./play/estimate.js";
import { allow, showNoState, showState } from "./play/panel.js";
import { PassButton } from "./play/pass-confirm.js";
import { playLine } from "./pv.js";
import { addShortcuts } from "./shortcuts.js";
import { countedOwnership } from "./territory.js";

/** Run the play page over `socket` for the human playing colour `human` ("B" or "W"). */
export function playPage(socket, human) {
  const svg = $("goban");
  let state = null;
  let hover = null;
  let reconnecting = true;
  let history = null; // the board after k moves of the game (`replayer`), or null where it cannot be replayed
  let viewing = null; // the move number shown while looking back; null: the game as it stands
  /** Send the game action `message` if the socket is open; else drop it, saying so. */
  const act = (message) => {
    if (socket.sendNow(message)) return true;
    $("error").textContent = `Not connected: ${actionName(message)} was not sent. Play on once the connection is back.`;
    return false;
  };
  const estimate = new ScoreEstimate(socket, () => render());
  const clock = new GameClock(socket);
  const pass = new PassButton(act, () => state);
  const coach = new Coach(socket, () => render(), human);
  const render = () => {
    if (!state) return;
    if (viewing !== null) {
      draw(svg, pastView(state, viewing, history));
      return;
    }
    draw(svg, boardView(state, human, socket.connected ? hover : null, estimate.territory));
    const marks = coach.marks();
    if (marks) drawCoachMarks(svg, marks, state.board, state.size);
  };
  const panel = () => {
    if (state) showState(state, human, socket.connected, reconnecting);
    else showNoState(socket.connected);
    showViewing(state, viewing, history);
  };
  const go = (k) => {
    if (!state || !history) return;
    const to = Math.max(0, Math.min(state.move_number, k));
    viewing = to >= state.move_number ? null : to;
    showViewing(state, viewing, history);
    render();
  };
  socket.on("state", (m) => {
    state = m;
    history = replayer(m);
    if (!history || (viewing !== null && viewing >= m.move_number)) viewing = null;
    panel();
    pass.hide();
    coach.follow(m);
    clock.follow(m);
    estimate.follow(m);
    render();
  });
  socket.onConnection((open, again) => {
    reconnecting = again;
    if (!open) pass.hide();
    panel();
    render();
  });
  svg.addEventListener("click", (event) => {
    if (!state) return;
    if (viewing !== null) {
      $("viewing").classList.add("nudge"); // the board plays at the latest position only
      return;
    }
    clickPoint(act, state, pointAt(svg, event, state.size));
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
  bindButtons(act, () => state);
  bindMoveButtons(go, () => viewing ?? state?.move_number ?? 0, () => state?.move_number ?? 0);
  addShortcuts(() => ({
    p: () => $("pass").click(), // a disabled button ignores it, and an open board asks first
    u: () => $("undo").click(),
    ...($("pass-confirm").hidden ? {} : { Escape: () => pass.hide() }),
  }));
  $("show-numbers").onchange = render;
  $("show-coords").onchange = render;
  panel();
}

/** The words for the game action `message` dropped while disconnected. */
function actionName(message) {
  if (message.type === "play") return `your move ${message.move}`;
  if (message.type === "toggle_dead") return `the mark of ${message.point}`;
  return `the ${message.type.replace("_", " ")}`;
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

/** The goban's view of the position after `k` moves of `state` (`history` replays it): stones and marks only. */
function pastView(state, k, history) {
  const { board, numbers } = history(k);
  return {
    size: state.size,
    board,
    last: k ? state.moves[k - 1][1] : null,
    coords: checked("show-coords"),
    numbers: checked("show-numbers") ? numbers : null,
  };
}

/** The note and the « ◀ ▶ » buttons for the move `viewing` shown (null: the game as it stands). */
function showViewing(state, viewing, history) {
  const note = $("viewing");
  const total = state?.move_number ?? 0;
  const at = viewing ?? total;
  note.hidden = viewing === null;
  note.classList.remove("nudge");
  if (viewing !== null) note.textContent = `Viewing move ${viewing} of ${total} — End (or ») to return to the game: moves are played there`;
  $("move-label").textContent = state ? `${at} / ${total}` : "";
  const none = !history ? "The earlier positions of this game cannot be shown" : "";
  allow("first", none || (at === 0 ? "At the start" : ""));
  allow("prev", none || (at === 0 ? "At the start" : ""));
  allow("next", none || (viewing === null ? "At the latest position" : ""));
  allow("last", none || (viewing === null ? "At the latest position" : ""));
}

/**
 * The board after each number of moves of `state`: `k => {board, numbers}` (pv.js `playLine`: the
 * moves replayed from the handicap stones, captures taken off), or null when that replay does not
 * end on the state's board (moves that do not alternate, stones set up otherwise).
 */
function replayer(state) {
  const n = state.size;
  const moves = state.moves;
  const first = moves.length ? moves[0][0] : "B";
  if (!moves.every(([color], i) => (color === first) === (i % 2 === 0))) return null;
  const cells = Array(n * n).fill(".");
  for (const p of handicapPoints(n, state.handicap)) cells[p] = "X";
  const start = cells.join("");
  const at = (k) => playLine(start, n, first, moves.slice(0, k).map(([, vertex]) => vertex));
  let cached = null;
  const cachedAt = (k) => {
    if (cached?.k !== k) cached = { k, line: at(k) };
    return cached.line;
  };
  return cachedAt(moves.length).board === state.board ? cachedAt : null;
}

/** The fixed handicap's points (flat), as analysis/go/handicap.py places them (none below 2 stones). */
function handicapPoints(size, stones) {
  if (!stones || stones < 2) return [];
  const edge = size <= 11 ? 2 : 3;
  const [low, mid, high] = [edge, Math.floor(size / 2), size - 1 - edge];
  const at = (row, col) => row * size + col;
  const corners = [at(low, high), at(high, low), at(low, low), at(high, high)];
  if (stones <= 4) return corners.slice(0, stones);
  const sides = stones >= 6 ? [at(mid, low), at(mid, high)] : [];
  const ends = stones >= 8 ? [at(low, mid), at(high, mid)] : [];
  return [...corners, ...sides, ...ends, ...(stones % 2 ? [at(mid, mid)] : [])];
}

/** A click on point `p` (or null, off the board): a move while playing, a toggle while scoring. */
function clickPoint(act, state, p) {
  if (p === null) return;
  const n = state.size;
  const vertex = toGtp(Math.floor(p / n), p % n, n);
  if (state.phase === "scoring") act({ type: "toggle_dead", point: vertex });
  else if (state.phase === "playing") act({ type: "play", move: vertex });
}

/** Bind the panel's buttons to `act`; `current()` gives the last state message (the pause button toggles). */
function bindButtons(act, current) {
  $("undo").onclick = () => act({ type: "undo" });
  $("pause").onclick = () => act({ type: isPaused(current()) ? "resume" : "pause" });
  $("resign").onclick = () => {
    if (confirm("Resign this game?")) act({ type: "resign" });
  };
  $("accept").onclick = () => act({ type: "accept_score" });
}
