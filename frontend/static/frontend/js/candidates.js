/**
 * The candidates of a position's analysis as the review shows them, after KaTrain: the moves the
 * search visited in its order (most visited first), apart from the network's ideas it did not visit
 * (best prior first); each visited move's loss against the search's best, in points where the
 * analysis has score leads (else in win rate), and its class of loss, which colours its circle.
 */

import { COLOR_NAMES } from "./colors.js";
import { blackLead, leadText } from "./score.js";

/**
 * The least loss of each class of loss but the last, best class last: blunder, mistake,
 * inaccuracy, slack, fine (then good), as analysis/review/summary.py ranks a game's moves.
 */
export const LOSS_BOUNDS = { score: [12, 6, 3, 1.5, 0.5], winrate: [0.2, 0.1, 0.05, 0.02, 0.01] };

/** The loss of class `i` (0 a blunder) in `measure`, in words: "12+ points", "6–12 points", "under 1%". */
export function lossRange(i, measure) {
  const bounds = LOSS_BOUNDS[measure];
  const unit = (x) => (measure === "score" ? `${x} point${x === 1 ? "" : "s"}` : `${100 * x}%`);
  if (i === 0) return measure === "score" ? `${bounds[0]}+ points` : `${100 * bounds[0]}%+`;
  if (i === bounds.length) return `under ${unit(bounds[i - 1])}`;
  return measure === "score" ? `${bounds[i]}–${bounds[i - 1]} points` : `${100 * bounds[i]}–${100 * bounds[i - 1]}%`;
}

/** `a`'s candidates: {searched (most visited first, the higher prior breaking ties), ideas (unvisited, best prior first)}. */
export function splitCandidates(a) {
  const all = a?.candidates ?? [];
  const byPrior = (x, y) => y.prior - x.prior;
  return {
    searched: all.filter((c) => c.visits > 0).sort((x, y) => y.visits - x.visits || byPrior(x, y)),
    ideas: all.filter((c) => !c.visits).sort(byPrior),
  };
}

/**
 * The measure of loss for the moves `searched`: "score" when `figure` is "score" and each has a
 * score lead (a network with a score head), else "winrate".
 */
export function lossMeasure(searched, figure) {
  const leads = searched.length > 0 && searched.every((c) => (c.score_lead ?? null) !== null);
  return figure === "score" && leads ? "score" : "winrate";
}

/** What visited move `c` loses against the search's `best` in `measure` (points or 0..1), never below 0. */
export function lossOf(c, best, measure) {
  const loss = measure === "score" ? best.score_lead - c.score_lead : best.winrate - c.winrate;
  return Math.max(0, loss);
}

/** The class of `loss` in `measure`: 0 (a blunder) to 5 (a good move), as LOSS_BOUNDS says. */
export function lossClass(loss, measure) {
  const bounds = LOSS_BOUNDS[measure];
  const index = bounds.findIndex((least) => loss >= least);
  return index < 0 ? bounds.length : index;
}

/** "1.2k" for 1234 visits, "87" for 87. */
const visitsText = (visits) => (visits >= 1000 ? `${(visits / 1000).toFixed(1)}k` : String(visits));

/** "+2.3" or "−1.5": the mover's score lead, signed. */
const signedLead = (lead) => `${lead >= 0 ? "+" : "−"}${Math.abs(lead).toFixed(1)}`;

/** "1.2 points" or "3.4%": a loss in `measure`, in words. */
const lossText = (loss, measure) =>
  measure === "score" ? `${loss.toFixed(1)} point${loss.toFixed(1) === "1.0" ? "" : "s"}` : `${(100 * loss).toFixed(1)}%`;

/**
 * What visited move `c` loses against the search's `best` in `measure`, in words: "the search's
 * best", "as good as R16" (less than the last digit shown) or "1.2 points less than R16".
 */
export function lossWords(c, best, measure) {
  if (c === best) return "the search's best";
  const loss = lossOf(c, best, measure);
  const text = lossText(loss, measure);
  return /^0\.0[ %]/.test(text) ? `as good as ${best.move}` : `${text} less than ${best.move}`;
}

/** The mover's win rate ("Black wins 54.2%") and Black's lead ("B+2.3") of visited move `c`. */
export function searchText(c, toPlay) {
  const lead = c.score_lead ?? null;
  const score = lead === null ? "" : `, ${leadText(blackLead(lead, toPlay))}`;
  return `${COLOR_NAMES[toPlay]} wins ${(100 * c.winrate).toFixed(1)}%${score}`;
}

/**
 * The marks of `a`'s candidates on the board, `figure` ("winrate" or "score") on the circles: for
 * each visited move {move, lines: [the mover's win rate in percent or score lead, visits], cls
 * ("searched loss-<class>", and "best" for the search's best), title}, and for each unvisited idea
 * {move, lines: [its prior in percent], cls "idea", title}.
 */
export function candidateMarks(a, figure) {
  const { searched, ideas } = splitCandidates(a);
  const measure = lossMeasure(searched, figure);
  const best = searched[0];
  const marks = searched.map((c) => {
    const loss = lossOf(c, best, measure);
    const top = measure === "score" ? signedLead(c.score_lead) : `${Math.round(100 * c.winrate)}`;
    const cls = `searched loss-${lossClass(loss, measure)}${c === best ? " best" : ""}`;
    return { move: c.move, lines: [top, visitsText(c.visits)], cls, title: searchedTitle(c, a.to_play, measure, best) };
  });
  for (const c of ideas) {
    const percent = Math.round(100 * c.prior);
    const title = `${c.move}: the network's idea, ${(100 * c.prior).toFixed(1)}% prior, not searched`;
    marks.push({ move: c.move, lines: [percent >= 1 ? String(percent) : "<1"], cls: "idea", title });
  }
  return marks;
}

/** The tooltip of visited move `c`: its figures, its prior, and what it loses against `best`. */
function searchedTitle(c, toPlay, measure, best) {
  const visits = `${c.visits} visit${c.visits === 1 ? "" : "s"}`;
  return `${c.move}: ${searchText(c, toPlay)}, ${visits} · network's prior ${(100 * c.prior).toFixed(1)}% · ${lossWords(c, best, measure)}`;
}
