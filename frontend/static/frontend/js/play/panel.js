/**
 * The play page's panel: status, captures, score and the buttons that apply, from each `state`
 * message and the connection. A button that cannot work now is disabled, its title saying why.
 */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";
import { isPaused } from "./clock.js";

const OFFLINE = "Not connected: nothing can be sent until the connection is back";
const PAUSED = "The clock is paused: resume it first";
const OVER = "The game is over";

/**
 * Show the `state` message `m` to the player of colour `human`; `connected`: whether the board's
 * socket is open (while it is not, nothing can be played or asked), `reconnecting`: whether the
 * page tries again (not after the server refused the socket).
 */
export function showState(m, human, connected = true, reconnecting = true) {
  if (connected) $("error").textContent = "";
  const status = $("status");
  const offline = reconnecting ? "Disconnected — reconnecting…" : "Disconnected: reload the page to connect again";
  status.textContent = connected ? statusText(m, human) : offline;
  status.classList.toggle("offline", !connected);
  $("captures").textContent = `Captures: black ${m.captures.B}, white ${m.captures.W}`;
  const s = m.score;
  const bonus = s && s.handicap_bonus ? ` and ${s.handicap_bonus} for the handicap` : "";
  const outcome = s ? outcomeText(s.result, human, m.phase === "finished") : "";
  $("score").textContent = s
    ? `Score: black ${s.black}, white ${s.white} (komi ${s.komi}${bonus} included) → ${s.result}${outcome ? ` — ${outcome}` : ""}`
    : "";
  $("accept").hidden = m.phase !== "scoring";
  allow("accept", connected ? "" : OFFLINE);
  const reasons = whyNot(m, human, connected);
  for (const id of ["pass", "undo", "resign", "hint", "estimate", "show-territory"]) allow(id, reasons[id]);
  const paused = isPaused(m);
  const pause = $("pause");
  pause.hidden = !m.clock || m.phase !== "playing";
  pause.textContent = paused ? "Resume clock" : "Pause clock";
  allow("pause", !connected ? OFFLINE : !paused && m.to_play !== human ? "Only on your turn" : "");
}

/** Before the first state: nothing to play yet (`connected`: whether the socket is open). */
export function showNoState(connected) {
  const why = connected ? "Waiting for the game…" : OFFLINE;
  for (const id of ["pass", "undo", "resign", "hint", "estimate", "pause", "accept"]) allow(id, why);
}

/**
 * Enable the control `id`, or disable it when `why` (a sentence) says why it cannot work now: its
 * title says so, and gets back its own when it is enabled again.
 */
export function allow(id, why) {
  const control = $(id);
  if (control.dataset.title === undefined) control.dataset.title = control.title;
  control.disabled = Boolean(why);
  control.title = why || control.dataset.title;
}

/** Why each of the game's controls cannot work now ("" where it can). */
function whyNot(m, human, connected) {
  if (!connected) {
    return { pass: OFFLINE, undo: OFFLINE, resign: OFFLINE, hint: OFFLINE, estimate: OFFLINE, "show-territory": OFFLINE };
  }
  const paused = isPaused(m);
  const playing = m.phase === "playing";
  const notPlaying = m.phase === "finished" ? OVER : "The stones are being counted";
  const turn = !playing ? notPlaying : paused ? PAUSED : m.to_play !== human ? "The bot is thinking" : "";
  const moved = m.moves.some(([color]) => color === human);
  let undo = "";
  if (m.phase === "finished") undo = OVER;
  else if (paused) undo = PAUSED;
  else if (!moved) undo = "Nothing to take back: you have not played a move yet";
  const free = paused ? "Not while the clock is paused" : "";
  return {
    pass: turn,
    undo,
    resign: playing ? "" : notPlaying,
    hint: turn,
    estimate: free,
    "show-territory": free,
  };
}

const SIDE = { B: "black", W: "white" };

/**
 * Who won the result `result` (SGF `RE`: "B+3.5", "W+R", "B+T", "0") in the words of the player
 * of colour `human`: "you won by 3.5 points", "you resigned", "the bot ran out of time: you won";
 * `over`: whether the game ended (else the count so far: "you would win by 3.5 points"). "" for a
 * result it cannot read.
 */
export function outcomeText(result, human, over = true) {
  if (!result) return "";
  if (["0", "Draw", "D", "Jigo"].includes(result)) return over ? "a draw" : "it would be a draw";
  const found = /^([BW])\+(.*)$/.exec(result);
  if (!found) return "";
  const [, winner, how] = found;
  const you = winner === human;
  const who = you ? "you" : "the bot";
  const loser = you ? "the bot" : "you";
  if (!over) {
    const points = Number(how);
    return how && Number.isFinite(points) ? `${who} would win by ${pointsText(points)}` : `${who} would win`;
  }
  const kind = how.toUpperCase();
  if (kind === "R" || kind === "RESIGN") return you ? "the bot resigned: you won" : "you resigned";
  if (kind === "T" || kind === "TIME") return `${loser} ran out of time: ${you ? "you won" : "the bot won"}`;
  if (kind === "F" || kind === "FORFEIT") return `${who} won by forfeit`;
  const points = Number(how);
  if (how && Number.isFinite(points)) return `${who} won by ${pointsText(points)}`;
  return `${who} won (${SIDE[winner]})`;
}

function pointsText(points) {
  return `${points} point${points === 1 ? "" : "s"}`;
}

function statusText(m, human) {
  if (m.phase === "finished") {
    const outcome = outcomeText(m.result, human);
    return `Game over: ${m.result}${outcome ? ` — ${outcome}` : ""}`;
  }
  if (m.phase === "scoring") {
    const why = m.last_move === "pass" ? "Both passed."
      : `The game has ${m.move_number} moves, the most a record may hold, and is counted.`;
    return `${why} Click stones to mark them dead or alive, then accept the score.`;
  }
  if (isPaused(m)) return "Paused: resume the clock to play on.";
  if (m.to_play !== human) return "The bot is thinking…";
  const passed = botPassed(m, human) ? " — the bot passed" : "";
  return `Your move (${COLOR_NAMES[human]}), move ${m.move_number + 1}${passed}`;
}

/**
 * Whether the bot's last move was a pass: the bot's reply says so (`bot_move`), and any state
 * does by its last move (after a reload, or in the state another tab was sent).
 */
function botPassed(m, human) {
  if (m.bot_move === "pass") return true;
  const last = m.moves[m.moves.length - 1];
  return Boolean(last) && last[0] !== human && last[1] === "pass";
}
