"""The site's analysis of a position written into its SGF node, and read back (no Django).

A node gets Sabaki's ``SBKV`` (Black's win rate in percent) and ``SBKS`` (Black's score lead in
points) and comment lines a reader can follow (``Black win rate: 55.0% (200 visits)``,
``Candidates for B: D4 12.3%, ...``, ``Search's choice: D4``...).  :func:`write_node` writes them,
keeping the players' own comment above; :func:`read_node` turns them back into an analysis entry
(the fields of :func:`analysis.review.analyze.game_entry` that the lines keep), as KaTrain reloads
its own files; :func:`without_analysis` leaves the players' comment alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from analysis.sgf import SgfNode

# the lines write_node() and analysis.review.report.annotate() write, so that a record analysed
# again gets one block, not two, and so that they can be read back
_WINRATE = re.compile(r"Black win rate: (\d{1,3}\.\d)%(?: \((\d{1,9}) visits\))?")
_LEAD = re.compile(r"Score lead: ([BW])\+(\d{1,4}\.\d)")
_MOVE = r"(?:[A-HJ-Z]\d{1,2}|pass)"
_CANDIDATES = re.compile(rf"Candidates for ([BW]): ({_MOVE} \d+\.\d%(?:, {_MOVE} \d+\.\d%)*)")
_CHOICE = re.compile(r"Search's choice: (\S+)")
_PLAYED = re.compile(r"Played (\S+): policy rank (\d{1,4})")
_COUNTED = re.compile(r"Two passes ended the game: counted (\S+) by (\w+)")
_OWN_LINE = re.compile(
    "|".join(p.pattern for p in (_WINRATE, _LEAD, _CANDIDATES, _CHOICE, _PLAYED, _COUNTED))
    + r"|Mistake: lost \d+\.\d%( and -?\d+\.\d points)?; best was \S+"
    r"|Loss of this move: -?\d+\.\d( points|% win rate)(, -?\d+\.\d% win rate)?"
    r"|(Black|White): \d+ moves? judged, mean loss .*"
)
LISTED = 5  # candidates written in a comment
MAX_LEAD = 1000.0  # points: no board (25x25) and komi (150) give a bigger lead; a bigger one is left out


def without_analysis(comment: str | None) -> str:
    """Return ``comment`` without the lines this site writes, and the blank lines around them."""
    kept = [line for line in (comment or "").split("\n") if not _OWN_LINE.fullmatch(line)]
    return "\n".join(kept).strip()


def loss_line(loss: float, points_lost: float | None) -> str:
    """Return the line saying what a move lost (negative: gained): ``Loss of this move: 1.2 points,
    3.4% win rate``, or the win rate alone without score leads."""
    win = f"{100 * loss:.1f}% win rate"
    return f"Loss of this move: {win if points_lost is None else f'{points_lost:.1f} points, {win}'}"


def entry_lines(entry: dict) -> list[str]:
    """Return the comment lines of one position's analysis ``entry`` (win rate and visits, score
    lead, count, candidates, the search's choice, the played move's rank), and set nothing."""
    lines = []
    if entry.get("black_winrate") is not None:
        visits = f" ({entry['visits']} visits)" if entry.get("visits") else ""
        lines.append(f"Black win rate: {100 * entry['black_winrate']:.1f}%{visits}")
    if entry.get("black_score_lead") is not None:
        lead = entry["black_score_lead"]
        lines.append(f"Score lead: {'B' if lead >= 0 else 'W'}+{abs(lead):.1f}")
    if entry.get("counted"):
        counted = entry["counted"]
        lines.append(f"Two passes ended the game: counted {counted['result']} by {counted['kind']}")
    if entry.get("candidates"):
        top = ", ".join(f"{c['move']} {100 * c['prior']:.1f}%" for c in entry["candidates"][:LISTED])
        lines.append(f"Candidates for {entry['to_play']}: {top}")
    if entry.get("best"):
        lines.append(f"Search's choice: {entry['best']}")
    if entry.get("played_rank"):
        lines.append(f"Played {entry['played']}: policy rank {entry['played_rank']}")
    return lines


def write_node(node: SgfNode, entry: dict, before: Sequence[str] = (), after: Sequence[str] = ()) -> None:
    """Write the analysis ``entry`` of the position after ``node``'s move into ``node``: ``SBKV``,
    ``SBKS`` (when it has a score lead) and the comment lines of :func:`entry_lines` between
    ``before`` and ``after``, under the players' own comment (an earlier analysis's lines go)."""
    if entry.get("black_winrate") is not None:
        node.set("SBKV", f"{100 * entry['black_winrate']:.2f}")
    if entry.get("black_score_lead") is not None:
        node.set("SBKS", f"{entry['black_score_lead']:.1f}")
    lines = [*before, *entry_lines(entry), *after]
    old = without_analysis(node.comment)
    node.set_comment("\n".join(([old, ""] if old else []) + lines))


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and math.isfinite(value) else None


def read_node(node: SgfNode) -> dict | None:
    """Return the analysis this site wrote into ``node`` as an entry: ``black_winrate`` (from
    ``SBKV``, else the comment), ``black_score_lead`` (``SBKS``, else the comment; None without),
    ``visits``, ``best``, ``candidates`` (``move`` and ``prior`` of the top ones, not searched:
    the file keeps no more), ``to_play`` (when the candidates name it), ``played_rank`` and
    ``counted``; None when the node holds no win rate.  Never raises: malformed values are left out.
    """
    found: dict = {}
    for line in (node.comment or "").split("\n"):
        for pattern in (_WINRATE, _LEAD, _CANDIDATES, _CHOICE, _PLAYED, _COUNTED):
            if match := pattern.fullmatch(line):
                found[pattern.pattern] = match
    winrate = _number(node.get("SBKV"))
    if winrate is None and _WINRATE.pattern in found:
        winrate = float(found[_WINRATE.pattern].group(1))
    if winrate is None or not 0 <= winrate <= 100:
        return None
    lead = _number(node.get("SBKS"))
    if lead is None and (match := found.get(_LEAD.pattern)):
        lead = float(match.group(2)) * (1 if match.group(1) == "B" else -1)
    if lead is not None and abs(lead) > MAX_LEAD:
        lead = None
    visits = found.get(_WINRATE.pattern)
    entry: dict = {
        "black_winrate": round(winrate / 100, 4),
        "black_score_lead": lead,
        "visits": int(visits.group(2)) if visits is not None and visits.group(2) else 0,
        "best": found[_CHOICE.pattern].group(1) if _CHOICE.pattern in found else None,
        "candidates": [],
        "played_rank": int(found[_PLAYED.pattern].group(2)) if _PLAYED.pattern in found else None,
    }
    if match := found.get(_CANDIDATES.pattern):
        entry["to_play"] = match.group(1)
        items = match.group(2).split(", ")
        entry["candidates"] = [_candidate(item, order) for order, item in enumerate(items)]
    if match := found.get(_COUNTED.pattern):
        entry["counted"] = {"result": match.group(1), "kind": match.group(2), "dead": []}
    return entry


def _candidate(item: str, order: int) -> dict:
    """Return a candidate read from ``D4 12.3%``: its move and prior, not searched."""
    move, prior = item.split(" ")
    return {"move": move, "order": order, "prior": round(float(prior[:-1]) / 100, 5), "visits": 0,
            "winrate": None, "score_lead": None, "pv": [move]}
