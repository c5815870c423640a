/** The play page's panel: status, captures, score and the buttons that apply, from each `state` message. */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";
import { isPaused } from "./clock.js";

/** Show the `state` message `m` to the player of colour `human`. */
export function showState(m, human) {
  $("error").textContent = "";
  $("status").textContent = statusText(m, human);
  $("captures").textContent = `Captures: black ${m.captures.B}, white ${m.captures.W}`;
  const s = m.score;
  const bonus = s && s.handicap_bonus ? ` and ${s.handicap_bonus} for the handicap` : "";
  $("score").textContent = s ? `Score: black ${s.black}, white ${s.white} (komi ${s.komi}${bonus} included) → ${s.result}` : "";
  $("accept").hidden = m.phase !== "scoring";
  const paused = isPaused(m);
  $("pass").disabled = m.phase !== "playing" || paused;
  $("resign").disabled = m.phase !== "playing";
  $("undo").disabled = m.phase === "finished" || paused;
  const pause = $("pause");
  pause.hidden = !m.clock || m.phase !== "playing";
  pause.textContent = paused ? "Resume clock" : "Pause clock";
  pause.disabled = !paused && m.to_play !== human;
}

const HOW_ENDED = { R: " (by resignation)", T: " (on time)" };

function statusText(m, human) {
  if (m.phase === "finished") return `Game over: ${m.result}${HOW_ENDED[m.result.split("+")[1]] ?? ""}`;
  if (m.phase === "scoring") {
    const why = m.last_move === "pass" ? "Both passed."
      : `The game has ${m.move_number} moves, the most a record may hold, and is counted.`;
    return `${why} Click stones to mark them dead or alive, then accept the score.`;
  }
  if (isPaused(m)) return "Paused: resume the clock to play on.";
  if (m.to_play !== human) return "The bot is thinking…";
  const passed = m.bot_move === "pass" ? " — the bot passed" : "";
  return `Your move (${COLOR_NAMES[human]}), move ${m.move_number + 1}${passed}`;
}
