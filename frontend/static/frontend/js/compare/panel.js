/**
 * The compare page's panel: the per-game table of each network's prediction of the moves played,
 * both top-10 lists at the move shown, and the list of surprising moves.
 */

import { COLOR_NAMES } from "../colors.js";
import { $ } from "../dom.js";
import { entryOf } from "./boards.js";

const percent = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);

/** Fill the per-game table: top-1/5/10 on the moves played, mean log prior, agreement with the search. */
export function showSummary(state) {
  const body = $("summary").querySelector("tbody");
  body.replaceChildren();
  for (const name of state.result.networks) {
    const s = state.result.summary[name];
    const row = document.createElement("tr");
    const cells = [name, percent(s.top1), percent(s.top5), percent(s.top10),
      s.mean_log_prior === null ? "–" : s.mean_log_prior.toFixed(2),
      s.searched ? `${percent(s.agree_with_search)} of ${s.searched}` : "no analysis"];
    for (const text of cells) row.appendChild(Object.assign(document.createElement("td"), { textContent: text }));
    body.appendChild(row);
  }
}

/** Say which move was played next and where each network ranked it. */
export function showPlayed(state) {
  const entry = entryOf(state);
  const next = state.review.next;
  if (!next) {
    $("played").textContent = "End of the game";
    return;
  }
  let text = `Next: ${COLOR_NAMES[next[0]]} ${next[1]}`;
  if (entry) {
    const ranks = state.result.networks.map((name) => `${name} #${entry.nets[name].played_rank}`);
    text += ` · ranked ${ranks.join(", ")}`;
    if (entry.search) text += ` · the search chose ${entry.search}`;
  }
  $("played").textContent = text;
}

/** List both networks' top 10 at the move shown; moves in both lists are marked. */
export function showLists(state) {
  const entry = entryOf(state);
  ["list-a", "list-b"].forEach((id, side) => {
    const ol = $(id);
    ol.replaceChildren();
    $(`${id}-name`).textContent = entry ? state.result.networks[side] : "";
    if (!entry) return;
    const name = state.result.networks[side];
    for (const c of entry.nets[name].top) {
      const li = document.createElement("li");
      li.textContent = `${c.move} ${percent(c.prior)}`;
      if (entry.shared.includes(c.move)) li.classList.add("shared");
      if (c.move === entry.played) li.classList.add("played");
      ol.appendChild(li);
    }
  });
}

/** The move numbers the filter picks, in game order. */
function picked(state, filter) {
  const [a, b] = state.result.networks;
  const s = state.result.surprises;
  const sets = {
    either: [...s[a].outside_top10, ...s[b].outside_top10],
    a: s[a].outside_top10,
    b: s[b].outside_top10,
    found: [...s[a].search_found, ...s[b].search_found],
    rejected: [...s[a].search_rejected, ...s[b].search_rejected],
  };
  return [...new Set(sets[filter])].sort((x, y) => x - y);
}

/** Which networks the search surprised at move `k`, and how (" (found against a; rejected b's E5)"). */
function whose(state, k) {
  const s = state.result.surprises;
  const parts = state.result.networks.flatMap((name) => {
    const first = state.result.positions[k].nets[name].top[0]?.move;
    return [
      ...(s[name].search_found.includes(k) ? [`found against ${name}`] : []),
      ...(s[name].search_rejected.includes(k) ? [`rejected ${name}'s ${first}`] : []),
    ];
  });
  return parts.length ? ` (${parts.join("; ")})` : "";
}

/** List the surprising moves the filter picks; a click shows the position before the move. */
export function showSurprises(state, go) {
  const ol = $("surprises");
  ol.replaceChildren();
  const moves = picked(state, $("surprise-filter").value);
  if (!moves.length) {
    const bySearch = ["found", "rejected"].includes($("surprise-filter").value);
    const none = bySearch && !state.result.summary[state.result.networks[0]].searched;
    ol.appendChild(Object.assign(document.createElement("li"), {
      textContent: none ? "Analyse the whole game on the review page to compare with the search." : "None.",
    }));
    return;
  }
  for (const k of moves) {
    const entry = state.result.positions[k];
    const ranks = state.result.networks.map((name) => `${name} #${entry.nets[name].played_rank}`).join(", ");
    const search = entry.search ? ` · search ${entry.search}${whose(state, k)}` : "";
    const link = Object.assign(document.createElement("a"), {
      href: "#",
      textContent: `move ${k + 1}: ${entry.played} (${ranks})${search}`,
    });
    link.onclick = (event) => {
      event.preventDefault();
      go(k);
    };
    const li = document.createElement("li");
    li.appendChild(link);
    ol.appendChild(li);
  }
}
