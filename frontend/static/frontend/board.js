// The board pages (play and review): an SVG goban driven by the board websocket.
// Protocol: docs/protocol.md. No build step: a plain ES module.

const SVG = "http://www.w3.org/2000/svg";
const LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const layout = document.querySelector(".board-layout");
const page = layout.dataset.page;
const gameId = layout.dataset.game;
const timeline = JSON.parse(document.getElementById("timeline").textContent);
const $ = (id) => document.getElementById(id);

// ---- coordinates -------------------------------------------------------
const toGtp = (row, col, size) => `${LETTERS[col]}${size - row}`;
function fromGtp(vertex, size) {
  if (!vertex || vertex === "pass") return null;
  return { row: size - Number(vertex.slice(1)), col: LETTERS.indexOf(vertex[0]) };
}
function starPoints(size) {
  if (size < 7) return [];
  const e = size >= 13 ? 3 : 2;
  const lines = size % 2 ? [e, (size - 1) / 2, size - 1 - e] : [e, size - 1 - e];
  if (size < 13 && size % 2) return [[e, e], [e, size - 1 - e], [size - 1 - e, e], [size - 1 - e, size - 1 - e], [(size - 1) / 2, (size - 1) / 2]];
  return lines.flatMap((r) => lines.map((c) => [r, c]));
}

// ---- drawing -------------------------------------------------------------
function el(name, attrs, parent, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

/** Number of the last move played at each point still occupied on `board`. */
function moveNumbers(moves, upto, board, size) {
  const numbers = new Map();
  moves.slice(0, upto).forEach(([, v], i) => {
    const p = fromGtp(v, size);
    if (p) numbers.set(p.row * size + p.col, i + 1);
  });
  for (const [point] of numbers) if (board[point] === ".") numbers.delete(point);
  return numbers;
}

/**
 * Draw the goban. `view`: {size, board ("." "X" "O" string), last, numbers (Map), dead (Set of
 * points), candidates ([{move, prior, order}]), heat (array of n*n in [0,1]), ladders (overlay),
 * coords (bool), ghost ({point, color}), played ({move, rank}: the move played next, ringed with
 * the rank the network gave it)}.
 */
function draw(svg, view) {
  const n = view.size;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `-1.3 -1.3 ${n + 1.6} ${n + 1.6}`);
  el("rect", { x: -1.3, y: -1.3, width: n + 1.6, height: n + 1.6, class: "wood" }, svg);
  const grid = el("g", { class: "grid" }, svg);
  for (let i = 0; i < n; i++) {
    el("line", { x1: 0, y1: i, x2: n - 1, y2: i }, grid);
    el("line", { x1: i, y1: 0, x2: i, y2: n - 1 }, grid);
  }
  for (const [r, c] of starPoints(n)) el("circle", { cx: c, cy: r, r: 0.1, class: "star" }, svg);
  if (view.coords) {
    const g = el("g", { class: "coords" }, svg);
    for (let i = 0; i < n; i++) {
      el("text", { x: i, y: -0.8 }, g, LETTERS[i]);
      el("text", { x: i, y: n - 0.2 + 0.1 }, g, LETTERS[i]);
      el("text", { x: -0.85, y: i }, g, String(n - i));
      el("text", { x: n - 0.15, y: i }, g, String(n - i));
    }
  }
  if (view.heat) {
    const g = el("g", { class: "heat" }, svg);
    view.heat.forEach((v, p) => {
      if (v > 0.005) el("rect", { x: (p % n) - 0.5, y: Math.floor(p / n) - 0.5, width: 1, height: 1, "fill-opacity": Math.min(0.85, v * 0.85 + 0.1) }, g);
    });
  }
  const stones = el("g", { class: "stones" }, svg);
  for (let p = 0; p < n * n; p++) {
    const c = view.board[p];
    if (c === ".") continue;
    const cls = `stone ${c === "X" ? "black" : "white"}${view.dead?.has(p) ? " dead" : ""}`;
    el("circle", { cx: p % n, cy: Math.floor(p / n), r: 0.47, class: cls, "data-point": p }, stones);
    const num = view.numbers?.get(p);
    if (num) el("text", { x: p % n, y: Math.floor(p / n), class: `number ${c === "X" ? "on-black" : "on-white"}` }, stones, String(num));
  }
  if (view.last) {
    const p = fromGtp(view.last, n);
    if (p && !view.numbers?.has(p.row * n + p.col)) {
      const on = view.board[p.row * n + p.col] === "X" ? "on-black" : "on-white";
      el("circle", { cx: p.col, cy: p.row, r: 0.2, class: `last ${on}` }, svg);
    }
  }
  if (view.ladders) drawLadders(svg, view.ladders, n);
  if (view.candidates) {
    const g = el("g", { class: "candidates" }, svg);
    for (const c of view.candidates) {
      const p = fromGtp(c.move, n);
      if (!p || view.board[p.row * n + p.col] !== ".") continue;
      el("circle", { cx: p.col, cy: p.row, r: 0.44, class: c.order === 0 ? "cand best" : "cand" }, g);
      el("text", { x: p.col, y: p.row }, g, `${Math.round(c.prior * 100)}`);
    }
  }
  if (view.played) {
    const p = fromGtp(view.played.move, n);
    if (p && view.board[p.row * n + p.col] === ".") {
      const g = el("g", { class: "played" }, svg);
      el("circle", { cx: p.col, cy: p.row, r: 0.47, class: "played-ring" }, g);
      if (view.played.rank) el("text", { x: p.col + 0.36, y: p.row - 0.36, class: "played-rank" }, g, `#${view.played.rank}`);
    }
  }
  if (view.ghost) {
    const p = view.ghost.point;
    el("circle", { cx: p % n, cy: Math.floor(p / n), r: 0.45, class: `stone ghost ${view.ghost.color === "B" ? "black" : "white"}` }, svg);
  }
}

function drawLadders(svg, overlay, n) {
  const g = el("g", { class: "ladders" }, svg);
  for (const s of overlay.strings) {
    for (const v of s.stones) {
      const p = fromGtp(v, n);
      el("circle", { cx: p.col, cy: p.row, r: 0.5, class: `ladder-string ${s.status}` }, g);
    }
    if (s.pv.length) {
      const pts = s.pv.map((v) => fromGtp(v, n)).filter(Boolean).map((p) => `${p.col},${p.row}`);
      el("polyline", { points: pts.join(" "), class: `ladder-path ${s.status}` }, g);
    }
    if (s.saving_move) {
      const p = fromGtp(s.saving_move, n);
      el("rect", { x: p.col - 0.22, y: p.row - 0.22, width: 0.44, height: 0.44, class: "ladder-escape" }, g);
    }
  }
  for (const b of overlay.breakers) {
    const p = fromGtp(b.point, n);
    el("path", { d: `M${p.col - 0.25},${p.row + 0.2} L${p.col},${p.row - 0.25} L${p.col + 0.25},${p.row + 0.2} Z`, class: "ladder-breaker" }, g);
  }
}

/** Board point under a mouse event, or null. */
function pointAt(svg, event, n) {
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  const local = pt.matrixTransform(svg.getScreenCTM().inverse());
  const col = Math.round(local.x);
  const row = Math.round(local.y);
  return row >= 0 && row < n && col >= 0 && col < n ? row * n + col : null;
}

// ---- websocket -----------------------------------------------------------
const handlers = {};
let socket;
const pending = [];
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/board/${gameId}/`);
  socket.onopen = () => { while (pending.length) socket.send(pending.shift()); };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    (handlers[message.type] || (() => {}))(message);
  };
  socket.onclose = (event) => {
    if (event.code === 4403 || event.code === 4404) return;
    $("status").textContent = "Connection lost; reconnecting…";
    setTimeout(connect, 1500);
  };
}
function send(message) {
  const text = JSON.stringify(message);
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(text);
  else pending.push(text);
}
handlers.error = (m) => { $("error").textContent = m.message; };

const svg = $("goban");
const colorName = { B: "Black", W: "White" };

// ---- play page -----------------------------------------------------------
function playPage() {
  const human = layout.dataset.human;
  let state = null;
  let hover = null;
  const render = () => {
    if (!state) return;
    const n = state.size;
    const ghost = hover !== null && state.phase === "playing" && state.to_play === human && state.board[hover] === "."
      ? { point: hover, color: human } : null;
    draw(svg, {
      size: n, board: state.board, last: state.last_move, coords: $("show-coords").checked,
      numbers: $("show-numbers").checked ? moveNumbers(state.moves, state.moves.length, state.board, n) : null,
      dead: new Set(state.dead.map((v) => { const p = fromGtp(v, n); return p.row * n + p.col; })),
      ghost,
    });
  };
  handlers.state = (m) => {
    state = m;
    $("error").textContent = "";
    let text;
    if (m.phase === "finished") text = `Game over: ${m.result}`;
    else if (m.phase === "scoring") text = "Both passed. Click stones to mark them dead or alive, then accept the score.";
    else if (m.to_play === human) text = `Your move (${colorName[human]}), move ${m.move_number + 1}` + (m.bot_move === "pass" ? " — the bot passed" : "");
    else text = "The bot is thinking…";
    $("status").textContent = text;
    $("captures").textContent = `Captures: black ${m.captures.B}, white ${m.captures.W}`;
    $("score").textContent = m.score ? `Score: black ${m.score.black}, white ${m.score.white} → ${m.score.result}` : "";
    $("accept").hidden = m.phase !== "scoring";
    for (const id of ["pass", "resign"]) $(id).disabled = m.phase !== "playing";
    $("undo").disabled = m.phase === "finished";
    render();
  };
  svg.addEventListener("click", (event) => {
    if (!state) return;
    const p = pointAt(svg, event, state.size);
    if (p === null) return;
    const vertex = toGtp(Math.floor(p / state.size), p % state.size, state.size);
    if (state.phase === "scoring") send({ type: "toggle_dead", point: vertex });
    else if (state.phase === "playing") send({ type: "play", move: vertex });
  });
  svg.addEventListener("mousemove", (event) => {
    const p = state ? pointAt(svg, event, state.size) : null;
    if (p !== hover) { hover = p; render(); }
  });
  svg.addEventListener("mouseleave", () => { hover = null; render(); });
  $("pass").onclick = () => send({ type: "pass" });
  $("undo").onclick = () => send({ type: "undo" });
  $("resign").onclick = () => { if (confirm("Resign this game?")) send({ type: "resign" }); };
  $("accept").onclick = () => send({ type: "accept_score" });
  $("show-numbers").onchange = render;
  $("show-coords").onchange = render;
}

// ---- review page ---------------------------------------------------------
function reviewPage() {
  const n = timeline.size;
  const last = timeline.moves.length;
  const featureSets = JSON.parse($("feature-sets").textContent);
  const entries = [];        // whole-game analysis, by move number
  const positions = new Map(); // position analysis (with policy, ladders), by move number
  let features = null;
  let k = 0;

  const current = () => positions.get(k) || entries[k];
  function heat() {
    const mode = $("heatmap").value;
    const a = positions.get(k);
    if (mode === "policy" && a) return a.policy.slice(0, n * n);
    if (mode === "backpred" && a && a.backpred) return a.backpred;
    if (mode === "features" && features && features.move_number === k) {
      const span = features.high - features.low || 1;
      return features.values.map((v) => (v - features.low) / span);
    }
    return null;
  }
  function render() {
    const a = current();
    const board = timeline.boards[k];
    const next = timeline.moves[k];
    const rank = next && a ? a.played_rank || rankOf(a, next[1]) : null;
    draw(svg, {
      size: n, board, last: k ? timeline.moves[k - 1][1] : null, coords: $("show-coords").checked,
      numbers: $("show-numbers").checked ? moveNumbers(timeline.moves, k, board, n) : null,
      candidates: $("show-candidates").checked && a ? a.candidates : null,
      ladders: $("show-ladders").checked && positions.get(k) ? positions.get(k).ladders : null,
      heat: heat(),
      played: next && $("show-played").checked ? { move: next[1], rank } : null,
    });
    $("move-label").textContent = `${k} / ${last}`;
    let played = next ? `Next: ${colorName[next[0]]} ${next[1]}` : "End of the game";
    if (rank) played += `, the network's choice #${rank}`;
    if (a && a.black_winrate !== null && a.black_winrate !== undefined) {
      played += ` · black win rate ${(100 * a.black_winrate).toFixed(1)}% (search, ${a.visits} visits; best ${a.best})`;
    }
    $("played").textContent = played;
    showCandidates(a);
    const mode = $("heatmap").value;
    if (mode === "backpred" && positions.get(k) && !positions.get(k).backpred) $("ladder-info").textContent = "No back-prediction network is installed (weights/backpred.pt).";
    else if ($("show-ladders").checked && positions.get(k)) $("ladder-info").textContent = ladderText(positions.get(k).ladders);
    else $("ladder-info").textContent = "";
    drawGraph();
  }
  function showCandidates(a) {
    const ol = $("candidate-list");
    ol.replaceChildren();
    for (const c of a ? a.candidates : []) {
      const li = document.createElement("li");
      const win = c.winrate === null ? "not searched" : `wins ${(100 * c.winrate).toFixed(1)}%, ${c.visits} visit${c.visits === 1 ? "" : "s"}`;
      li.textContent = `${c.move}: ${(100 * c.prior).toFixed(1)}% · ${win}`;
      if (c.move === a.best) li.className = "best";
      ol.appendChild(li);
    }
  }
  function rankOf(a, vertex) {
    if (!a.policy) return null;
    const p = fromGtp(vertex, n);
    const index = p ? p.row * n + p.col : n * n;
    return a.policy.filter((x) => x > a.policy[index]).length + 1;
  }
  function ladderText(o) {
    if (!o.strings.length) return "No string is in a ladder.";
    return o.strings.map((s) => `${s.color} ${s.stones[0]}: ${s.status}` + (s.breakers.length ? ` (breakers ${s.breakers.join(" ")})` : "")).join("; ");
  }
  function request() {
    if (!positions.has(k)) send({ type: "analyze", move_number: k });
    if ($("heatmap").value === "features") requestFeatures();
    render();
  }
  function go(to) {
    k = Math.max(0, Math.min(last, to));
    request();
  }
  function requestFeatures() {
    send({ type: "features", move_number: k, set: $("feature-set").value, plane: $("feature-plane").value });
  }

  // win-rate graph and mistakes
  function drawGraph() {
    const g = $("graph");
    g.replaceChildren();
    const w = Math.max(last, 1);
    el("rect", { x: 0, y: 0, width: 100, height: 30, class: "graph-bg" }, g);
    el("line", { x1: 0, y1: 15, x2: 100, y2: 15, class: "graph-mid" }, g);
    const pts = entries.map((e, i) => (e && e.black_winrate !== null ? `${(100 * i) / w},${30 * (1 - e.black_winrate)}` : null)).filter(Boolean);
    if (pts.length) el("polyline", { points: pts.join(" "), class: "graph-line" }, g);
    el("line", { x1: (100 * k) / w, y1: 0, x2: (100 * k) / w, y2: 30, class: "graph-cursor" }, g);
  }
  $("graph").addEventListener("click", (event) => {
    const box = $("graph").getBoundingClientRect();
    go(Math.round(((event.clientX - box.left) / box.width) * last));
  });
  function showMistakes(list) {
    const ol = $("mistakes");
    ol.replaceChildren();
    for (const m of list) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = "#";
      a.textContent = `Move ${m.move_number} ${colorName[m.color]} ${m.move}: −${(100 * m.loss).toFixed(1)}% (best ${m.best})`;
      a.onclick = (e) => { e.preventDefault(); go(m.move_number - 1); };
      li.appendChild(a);
      ol.appendChild(li);
    }
    if (!list.length) ol.innerHTML = "<li>No mistakes found.</li>";
  }
  function setAnalysing(on) {
    $("cancel").hidden = !on;
    $("analyze-game").disabled = on;
    $("progress").hidden = !on && !entries.length;
  }

  handlers.state = () => { $("status").textContent = `${last} moves. Use ← → Home End to navigate.`; request(); };
  handlers.analysis = (m) => { positions.set(m.move_number, m); if (m.move_number === k) render(); };
  handlers.features = (m) => { features = m; $("feature-description").textContent = m.description; render(); };
  handlers.analysis_started = () => setAnalysing(true);
  handlers.progress = (m) => {
    setAnalysing(true);
    entries[m.entry.move_number] = m.entry;
    $("progress").max = m.total;
    $("progress").value = m.done;
    $("status").textContent = `Analysing: ${m.done} / ${m.total} positions`;
    if (m.entry.move_number === k) render(); else drawGraph();
  };
  handlers.analysis_done = (m) => { setAnalysing(false); $("status").textContent = "Analysis complete."; showMistakes(m.mistakes); };
  handlers.analysis_cancelled = (m) => { setAnalysing(false); $("status").textContent = `Analysis cancelled after ${m.done} positions.`; };
  handlers.cancelling = () => { $("status").textContent = "Cancelling…"; };
  handlers.analysis_state = (m) => {
    m.results.forEach((e) => { entries[e.move_number] = e; });
    $("progress").max = Math.max(m.total, 1);
    $("progress").value = m.results.length;
    setAnalysing(m.status === "pending" || m.status === "running");
    if (m.results.length) showMistakes(m.mistakes);
    render();
  };

  $("analyze-game").onclick = () => send({ type: "analyze_game" });
  $("cancel").onclick = () => send({ type: "cancel_analysis" });
  $("first").onclick = () => go(0);
  $("prev").onclick = () => go(k - 1);
  $("next").onclick = () => go(k + 1);
  $("last").onclick = () => go(last);
  for (const id of ["show-candidates", "show-played", "show-ladders", "show-numbers", "show-coords"]) $(id).onchange = render;

  // feature-plane viewer
  for (const name of Object.keys(featureSets)) $("feature-set").add(new Option(name, name));
  function fillPlanes() {
    $("feature-plane").replaceChildren(...featureSets[$("feature-set").value].map((p) => new Option(p.name, p.name)));
  }
  fillPlanes();
  $("feature-set").onchange = () => { fillPlanes(); requestFeatures(); };
  $("feature-plane").onchange = requestFeatures;
  $("heatmap").onchange = () => {
    $("feature-viewer").hidden = $("heatmap").value !== "features";
    if ($("heatmap").value === "features") requestFeatures();
    render();
  };
  function stepPlane(delta) {
    const select = $("feature-plane");
    select.selectedIndex = (select.selectedIndex + delta + select.options.length) % select.options.length;
    requestFeatures();
  }

  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select")) return;
    const keys = { ArrowLeft: () => go(k - 1), ArrowRight: () => go(k + 1), Home: () => go(0), End: () => go(last) };
    if ($("heatmap").value === "features") Object.assign(keys, { "[": () => stepPlane(-1), "]": () => stepPlane(1) });
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  svg.addEventListener("click", (event) => {
    const p = pointAt(svg, event, n);
    const next = timeline.moves[k] && fromGtp(timeline.moves[k][1], n);
    if (p !== null && next && p === next.row * n + next.col) go(k + 1);
  });
  render();
}

if (page === "play") playPage(); else reviewPage();
connect();
