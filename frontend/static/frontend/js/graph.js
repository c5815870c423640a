/**
 * The game graph: Black's win rate or Black's score lead by move, drawn to the graph's size on the
 * page (Black ahead at the top, even on the middle line, drawn bold; the score graph symmetric
 * around 0 on a round scale), with its axes (the middle line's value, move numbers), a cursor on
 * the move shown, and a mark on each mistake over the threshold; and its legend in words.
 */

import { lacksScoreLeads } from "./score.js";
import { el } from "./svg.js";

/** The score graph's scales (± points), the smallest that holds every lead is used. */
const SCORE_SCALES = [5, 10, 20, 30, 50, 100, 200, 400];
/** The plot's margins in pixels: room for the value axis on the left, the move axis below. */
const MARGIN = { left: 40, right: 8, top: 8, bottom: 20 };
/** The steps between move-number ticks, the first that gives at most 8 ticks is used. */
const MOVE_STEPS = [1, 2, 5, 10, 20, 25, 50, 100, 200];

/** What each graph on the page was last drawn with, to draw it again at a new size or with new mistakes. */
const drawn = new WeakMap();

/** Black's win rate or score lead (`mode` "winrate" or "score") of an entry, or null when unknown. */
function blackValue(entry, mode) {
  return (mode === "score" ? entry?.black_score_lead : entry?.black_winrate) ?? null;
}

/** The score graph's scale for `entries` (sparse): the smallest round number of points above every lead. */
export function scoreScale(entries) {
  const top = entries.reduce((most, e) => Math.max(most, Math.abs(blackValue(e, "score") ?? 0)), 0);
  return SCORE_SCALES.find((scale) => scale >= top) ?? Math.ceil(top);
}

/** The move numbers of the ticks of a game of `last` moves: 0, then every step up to `last`. */
export function moveTicks(last) {
  const step = MOVE_STEPS.find((s) => last / s <= 8) ?? Math.ceil(last / 8);
  const ticks = [];
  for (let m = 0; m <= last; m += step) ticks.push(m);
  return ticks;
}

/** The plot's frame in `g` (its size on the page), and its x of a move number and y of a value. */
function frame(g, last, mode, scale) {
  const width = Math.max(g.clientWidth || g.getBoundingClientRect().width || 600, 120);
  const height = Math.max(g.clientHeight || g.getBoundingClientRect().height || 160, 60);
  const plot = { x0: MARGIN.left, x1: width - MARGIN.right, y0: MARGIN.top, y1: height - MARGIN.bottom };
  const x = (m) => plot.x0 + ((plot.x1 - plot.x0) * m) / Math.max(last, 1);
  const share = mode === "score" ? (v) => 0.5 * (1 + Math.max(-1, Math.min(1, v / scale))) : (v) => v;
  const y = (v) => plot.y1 - (plot.y1 - plot.y0) * share(v);
  return { width, height, plot, x, y };
}

/**
 * Draw `entries` (whole-game analysis, by move number) of a game of `last` moves as `mode`
 * ("winrate" or "score"); the cursor at move `k`. The graph is drawn again at its new size when
 * the page's layout changes it, and with the mistakes `markMistakes` gives.
 */
export function drawGraph(g, entries, k, last, mode) {
  const known = drawn.get(g);
  drawn.set(g, { mistakes: [], ...known, entries, k, last, mode });
  if (!known?.entries) new ResizeObserver(() => paint(g)).observe(g);
  paint(g);
}

/** Mark `mistakes` ([{move_number, text}]: the moves over the threshold) on graph `g`. */
export function markMistakes(g, mistakes) {
  drawn.set(g, { ...drawn.get(g), mistakes });
  if (drawn.get(g).entries) paint(g);
}

/** Draw graph `g` from what it was last given. */
function paint(g) {
  const { entries, k, last, mode, mistakes } = drawn.get(g);
  const scale = scoreScale(entries);
  const f = frame(g, last, mode, scale);
  g.replaceChildren();
  g.setAttribute("viewBox", `0 0 ${f.width} ${f.height}`);
  const { x0, x1, y0, y1 } = f.plot;
  el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, class: "graph-bg" }, g);
  drawAxes(g, f, last, mode, scale);
  const points = entries
    .map((e, i) => [i, blackValue(e, mode)])
    .filter(([, v]) => v !== null)
    .map(([i, v]) => `${f.x(i).toFixed(1)},${f.y(v).toFixed(1)}`);
  if (points.length) el("polyline", { points: points.join(" "), class: `graph-line ${mode}` }, g);
  for (const m of mistakes) {
    const v = blackValue(entries[m.move_number], mode);
    if (v === null) continue; // an analysis started again: its entries come one by one
    const mark = el("circle", { cx: f.x(m.move_number), cy: f.y(v), r: 3.5, class: "graph-mistake" }, g);
    el("title", {}, mark, m.text);
  }
  el("line", { x1: f.x(k), y1: y0, x2: f.x(k), y2: y1, class: "graph-cursor" }, g);
}

/** The value axis (top, middle, bottom) and the move axis (ticks with their numbers) of frame `f`. */
function drawAxes(g, f, last, mode, scale) {
  const { x0, x1, y1 } = f.plot;
  const levels = mode === "score"
    ? [[scale, `B+${scale}`], [0, "0"], [-scale, `W+${scale}`]]
    : [[1, "100%"], [0.5, "50%"], [0, "0%"]];
  levels.forEach(([value, label], i) => {
    const y = f.y(value);
    el("line", { x1: x0, y1: y, x2: x1, y2: y, class: i === 1 ? "graph-mid" : "graph-rule" }, g);
    el("text", { x: x0 - 4, y, class: "graph-value" }, g, label);
  });
  for (const m of moveTicks(last)) {
    el("line", { x1: f.x(m), y1: y1, x2: f.x(m), y2: y1 + 4, class: "graph-rule" }, g);
    el("text", { x: f.x(m), y: y1 + 6, class: "graph-move" }, g, String(m));
  }
}

/** What the graph of `entries` in `mode` shows, in words (and why it is empty, when it is). */
export function graphLegend(entries, mode) {
  const marks = "Red dots: mistakes over the threshold.";
  if (mode !== "score") return `Black's win rate by move: Black ahead above 50%. ${marks}`;
  if (lacksScoreLeads(entries)) return "No score leads: the network of this analysis has no score head.";
  return `Black's score lead by move, up to ${scoreScale(entries)} points: Black ahead above 0. ${marks}`;
}

/** The move number under a click on graph `g` of a game of `last` moves (within 0..last). */
export function moveAt(g, event, last) {
  const box = g.getBoundingClientRect();
  const { plot } = frame(g, last, "winrate", 1);
  const share = (event.clientX - box.left - plot.x0) / (plot.x1 - plot.x0);
  return Math.max(0, Math.min(last, Math.round(share * last)));
}
