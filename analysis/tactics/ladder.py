"""Ladder reading on positions: per string, per point, and the overlay the UI draws.

The search itself is Cazenave's captureLadder / isCapturedLadder (Cazenave
2016, algorithms 1 and 2), run in C on the board's make/undo
(``analysis/go/_cboard/ladder.c``).  The depth limit (100) and the node budget
(1000) apply per query and are configurable through ``LadderLimits``.

Statuses of a string with one or two liberties:

===========  ===========================================================
status       meaning
===========  ===========================================================
captured     in atari, and lost even if its owner moves first
escapes      in atari, but its owner moving first gets out (saving move)
capturable   two liberties; the attacker moving first captures it in a
             ladder, but its owner moving first can save it (saving move)
lost         two liberties; captured whoever moves first
===========  ===========================================================

Strings with two liberties that the attacker cannot ladder are not reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from analysis.go.coords import color_name, neighbors, to_gtp
from analysis.go.position import Position


@dataclass(frozen=True)
class LadderLimits:
    """Per-query limits of the ladder search (Cazenave's values by default)."""

    max_depth: int = 100
    max_nodes: int = 1000


DEFAULT_LIMITS = LadderLimits()


@dataclass
class StringLadder:
    """The ladder status of one string; points are flat indices."""

    color: int
    stones: list[int]
    liberties: int
    status: str
    capture_move: int | None = None
    pv: list[int] = field(default_factory=list)
    saving_move: int | None = None
    breakers: list[int] = field(default_factory=list)


def capture(pos: Position, point: int, limits: LadderLimits = DEFAULT_LIMITS) -> tuple[bool, list[int]]:
    """Return (captured, reading) with the attacker of the string at ``point`` moving first.

    The reading starts with the capturing move.  Raises ValueError for an off-board point.
    """
    captured, pv, _, _ = pos.board.ladder_capture(point, limits.max_depth, limits.max_nodes)
    return captured, pv


def captured_defender_first(
    pos: Position, point: int, limits: LadderLimits = DEFAULT_LIMITS
) -> tuple[bool, list[int]]:
    """Return (captured, reading) with the owner of the string at ``point`` (in atari) moving first.

    When the string escapes, the reading is the saving move.
    """
    captured, pv, _, _ = pos.board.ladder_captured(point, limits.max_depth, limits.max_nodes)
    return captured, pv


def _defences(pos: Position, point: int) -> list[int]:
    """Return the owner's candidate saving moves: its liberties and captures of adjacent strings in atari."""
    moves = list(pos.liberty_points(point))
    color = pos.color_at(point)
    for stone in pos.string(point):
        for q in neighbors(stone, pos.size):
            if pos.color_at(q) == -color and pos.liberties(q) == 1:
                lib = pos.liberty_points(q)[0]
                if lib not in moves:
                    moves.append(lib)
    return moves


def _within_two(points: list[int], size: int) -> set[int]:
    """Return the points within Manhattan distance two of any of ``points``."""
    out: set[int] = set()
    for point in points:
        r, c = divmod(point, size)
        for dr in range(-2, 3):
            for dc in range(-2 + abs(dr), 3 - abs(dr)):
                if 0 <= r + dr < size and 0 <= c + dc < size:
                    out.add((r + dr) * size + c + dc)
    return out


def _saving_move(pos: Position, point: int, limits: LadderLimits) -> int | None:
    """Return an owner's move after which the attacker (to move) no longer captures, or None."""
    color = pos.color_at(point)
    for move in _defences(pos, point):
        if not pos.is_legal(move, color):
            continue
        pos.board.play(move, color)
        try:
            still_captured, _ = capture(pos, point, limits)
        finally:
            pos.board.undo()
        if not still_captured:
            return move
    return None


def _breakers(pos: Position, report: StringLadder, limits: LadderLimits) -> list[int]:
    """Return the points where an owner's stone, away from the string, breaks the ladder.

    Candidates lie within two lines of the reading's path.  Points within two lines
    of the string itself reinforce it directly (saving moves, not breakers), and so
    do captures of adjacent strings; they are left out.
    """
    size = pos.size
    target = report.stones[0]
    near_string = set(_defences(pos, target)) | _within_two(report.stones, size)
    candidates = _within_two(report.pv, size)
    out = []
    for p in sorted(candidates - near_string):
        if pos.color_at(p) != 0 or not pos.is_legal(p, report.color):
            continue
        pos.board.play(p, report.color)
        try:
            captured, _ = capture(pos, target, limits)
        finally:
            pos.board.undo()
        if not captured:
            out.append(p)
    return out


def string_ladder(
    pos: Position, point: int, limits: LadderLimits = DEFAULT_LIMITS, find_breakers: bool = False
) -> StringLadder | None:
    """Return the ladder status of the string at ``point``, or None if it is not in ladder danger.

    None means: an empty point, a string with three or more liberties, or a
    two-liberty string the attacker cannot ladder.  Raises ValueError if off the board.
    """
    color = pos.color_at(point)
    if color == 0:
        return None
    libs = pos.liberties(point)
    stones = sorted(pos.string(point))
    if libs == 1:
        captured, pv = captured_defender_first(pos, point, limits)
        if captured:
            lib = pos.liberty_points(point)[0]
            report = StringLadder(color, stones, 1, "captured", capture_move=lib, pv=pv)
        else:
            return StringLadder(color, stones, 1, "escapes", saving_move=pv[0] if pv else None, pv=pv)
    elif libs == 2:
        captured, pv = capture(pos, point, limits)
        if not captured:
            return None
        saving = _saving_move(pos, point, limits)
        status = "capturable" if saving is not None else "lost"
        report = StringLadder(color, stones, 2, status, capture_move=pv[0], pv=pv, saving_move=saving)
    else:
        return None
    if find_breakers:
        report.breakers = _breakers(pos, report, limits)
    return report


def all_strings(
    pos: Position, limits: LadderLimits = DEFAULT_LIMITS, find_breakers: bool = False
) -> list[StringLadder]:
    """Return the ladder reports of every string with one or two liberties that has one."""
    reports = []
    seen: set[int] = set()
    flat = pos.stones().ravel()
    libs = pos.liberty_counts().ravel()
    for p in np.flatnonzero((flat != 0) & (libs <= 2)).tolist():
        if p in seen:
            continue
        seen.update(pos.string(p))
        report = string_ladder(pos, p, limits, find_breakers)
        if report is not None:
            reports.append(report)
    return reports


@dataclass(frozen=True)
class PointLadderMaps:
    """Per empty point, for one colour's stone played there (bool arrays of shape (size, size))."""

    captured_if_played: np.ndarray
    threatens: np.ndarray
    breaks: np.ndarray


def point_maps(pos: Position, color: int, limits: LadderLimits = DEFAULT_LIMITS) -> PointLadderMaps:
    """Return where a ``color`` stone would be laddered, would start a working ladder, or breaks one.

    ``breaks`` marks the breakers of ``color``'s strings that are in ladder danger.
    """
    n = pos.size
    raw = pos.board.ladder_point_maps(color, limits.max_depth, limits.max_nodes)
    raw = np.frombuffer(raw, dtype=np.uint8)
    breaks = np.zeros(n * n, dtype=bool)
    for report in all_strings(pos, limits, find_breakers=True):
        if report.color == color:
            breaks[report.breakers] = True
    return PointLadderMaps(
        raw[: n * n].reshape(n, n).astype(bool), raw[n * n :].reshape(n, n).astype(bool), breaks.reshape(n, n)
    )


def overlay(pos: Position, limits: LadderLimits = DEFAULT_LIMITS) -> dict:
    """Return the JSON-serialisable ladder overlay of a position, in GTP coordinates.

    ``strings`` lists every string in ladder danger or escaping from atari, with its
    status, reading (pv), key moves and breakers; ``breakers`` lists each breaker point
    with its colour and the strings (indices into ``strings``) it rescues.
    """
    size = pos.size

    def gtp(points: list[int]) -> list[str]:
        return [to_gtp(p, size) for p in points]

    strings = []
    breakers: dict[tuple[int, int], list[int]] = {}
    for i, report in enumerate(all_strings(pos, limits, find_breakers=True)):
        item = asdict(report)
        item.update(
            color=color_name(report.color),
            stones=gtp(report.stones),
            pv=gtp(report.pv),
            capture_move=None if report.capture_move is None else to_gtp(report.capture_move, size),
            saving_move=None if report.saving_move is None else to_gtp(report.saving_move, size),
            breakers=gtp(report.breakers),
        )
        strings.append(item)
        for p in report.breakers:
            breakers.setdefault((p, report.color), []).append(i)
    return {
        "size": size,
        "to_play": color_name(pos.to_play),
        "limits": asdict(limits),
        "strings": strings,
        "breakers": [
            {"point": to_gtp(p, size), "color": color_name(c), "strings": idx}
            for (p, c), idx in sorted(breakers.items())
        ],
    }
