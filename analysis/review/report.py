"""What a whole-game analysis says about the game: its mistakes and the analysed SGF (no Django).

The entries are those of :func:`analysis.review.analyze.game_entry`, one per position:
``results[k]`` describes the position after k moves.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise

from analysis.go.coords import BLACK, to_gtp
from analysis.review.notes import loss_line, read_node, write_node
from analysis.review.summary import player_summaries, summary_line
from analysis.sgf import GameRecord

MISTAKE_LOSS = 0.05  # a move losing at least this much win rate is called a mistake in the SGF


def moves_judged(results: Sequence[dict]) -> Iterator[dict]:
    """Yield every move of ``results`` whose both positions were searched, but the pass that ends
    the game (the second pass in a row: the position after it is counted, not played on, so the
    network's judgement of it means nothing).

    Move k+1 is ``results[k]["played"]``; its ``loss`` is its player's search win rate before it
    (position k) minus after it (position k+1), and ``points_lost`` the same of the score lead
    (None without score leads).  Each item has ``move_number``, ``color``, ``move``, ``loss``,
    ``points_lost``, ``best`` (the search's choice), ``chosen`` (whether the move was it) and
    ``played_rank`` (its rank in the network's policy, None if unknown).
    """
    previous = None  # the move that led to ``before``
    for before, after in pairwise(results):
        played = before.get("played")
        ending = played == previous == "pass"
        previous = played
        if played is None or ending or before["black_winrate"] is None or after["black_winrate"] is None:
            continue
        sign = 1 if before["to_play"] == "B" else -1
        yield {
            "move_number": before["move_number"] + 1,
            "color": before["to_play"],
            "move": played,
            "loss": sign * (before["black_winrate"] - after["black_winrate"]),
            "points_lost": _points_lost(before, after, sign),
            "best": before.get("best"),
            "chosen": played == before.get("best"),
            "played_rank": before.get("played_rank"),
        }


def mistakes(results: Sequence[dict], limit: int = 10, by: str = "winrate") -> list[dict]:
    """Return the moves that lost the most for their player, worst first (at most ``limit``).

    The moves are those of :func:`moves_judged` that lost, but for a move the search chose itself
    (its drop is the search's noise).  ``by`` ranks them by ``winrate`` (the loss) or by
    ``score`` (the points lost).  Each item has ``move_number``, ``color``, ``move``, ``loss``,
    ``points_lost`` and ``best`` (the search's choice instead).  Raises ValueError for another
    ``by``.
    """
    if by not in ("winrate", "score"):
        raise ValueError(f"mistakes are ranked by winrate or score, not {by!r}")
    out = []
    for move in moves_judged(results):
        points = move["points_lost"]
        worse = points if by == "score" else move["loss"]
        if not move["chosen"] and worse is not None and worse > 0:
            out.append({
                "move_number": move["move_number"],
                "color": move["color"],
                "move": move["move"],
                "loss": round(move["loss"], 4),
                "points_lost": None if points is None else round(points, 1),
                "best": move["best"],
            })
    key = "points_lost" if by == "score" else "loss"
    out.sort(key=lambda m: -m[key])
    return out[:limit]


def ranked_mistakes(results: Sequence[dict]) -> dict[str, list[dict]]:
    """Return the board messages' two mistake lists of ``results`` (all of a game's positions, or
    the first ones analysed): ``mistakes`` ranked by win rate, ``point_mistakes`` by points lost,
    each with every move that lost (the review page lists the worst and steps through those over
    its threshold), and ``summary``, each player's figures
    (:func:`analysis.review.summary.player_summaries`)."""
    every = len(results)
    return {"mistakes": mistakes(results, every), "point_mistakes": mistakes(results, every, by="score"),
            "summary": player_summaries(moves_judged(results))}


def _points_lost(before: dict, after: dict, sign: int) -> float | None:
    """Return the points the mover's score lead fell by over one move, or None without score leads."""
    a, b = before.get("black_score_lead"), after.get("black_score_lead")
    return None if a is None or b is None else sign * (a - b)


def annotate(record: GameRecord, results: Sequence[dict]) -> None:
    """Write the analysis into the record's main line (:func:`analysis.review.notes.write_node`):
    comments, Sabaki's ``SBKV`` (Black's win rate in percent) and, when the analysis has score
    leads, ``SBKS`` (Black's score lead in points, which Sabaki draws as a score graph).

    The node after move k describes the position after move k (a position that two passes ended:
    its count) and what move k lost, its mistake if it is one; the first one each player's summary
    (:mod:`analysis.review.summary`).  Existing comments are kept above the analysis, without the
    lines of an earlier analysis written here (a downloaded analysis uploaded and analysed again).
    """
    summaries = player_summaries(moves_judged(results))
    nodes = [record.root]
    nodes.extend(node for node in record.main_line() if node.has_move())
    judged = {m["move_number"]: m for m in moves_judged(results)}
    worst = {m["move_number"]: m for m in mistakes(results, limit=len(results))}
    for entry in results:
        k = entry["move_number"]
        if k >= len(nodes):
            break
        before = [summary_line(c, summaries[c]) for c in "BW"] if k == 0 and summaries else []
        after = [loss_line(judged[k]["loss"], judged[k]["points_lost"])] if k in judged else []
        if k in worst and worst[k]["loss"] >= MISTAKE_LOSS:
            points = worst[k]["points_lost"]
            lost = f" and {points:.1f} points" if points is not None else ""
            after.append(f"Mistake: lost {100 * worst[k]['loss']:.1f}%{lost}; best was {worst[k]['best']}")
        write_node(nodes[k], entry, before, after)


def read_back(record: GameRecord, rules: str | None = None) -> list[dict]:
    """Return the whole-game analysis that :func:`annotate` wrote into ``record``'s main line, as
    entries (:func:`analysis.review.notes.read_node`, with ``move_number``, ``to_play`` and the
    move ``played`` next): those of the first positions, up to the first node without one (none
    for a record this site did not analyse).  Raises SgfError for a record that does not replay.
    """
    from analysis.review.analyze import game_positions  # the search's module: loaded when needed

    nodes = [record.root, *(node for node in record.main_line() if node.has_move())]
    entries = []
    for k, (position, next_move) in enumerate(game_positions(record, rules=rules)):
        entry = read_node(nodes[k])
        if entry is None:
            break
        to_play = "B" if position.to_play == BLACK else "W"
        winrate, lead = entry["black_winrate"], entry["black_score_lead"]
        mover = winrate if to_play == "B" else round(1 - winrate, 4)
        entry.update(move_number=k, to_play=to_play, winrate=mover,
                     score_lead=None if lead is None else lead * position.to_play,
                     played=None if next_move is None else to_gtp(next_move[1], record.size))
        entries.append(entry)
    return entries
