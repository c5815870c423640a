"""Each player's game in a few figures, from a whole-game analysis (KaTrain's game report; no Django).

For every move judged (both positions around it searched; not the pass that ends the game):

- what it lost: its player's score lead before it minus after it (win rate when the analysis has
  no score leads), 0 for the search's own choice (its drop is the search's noise) and for a
  move that gained;
- whether it was the search's choice, and whether it was among the network's top 5 (its policy
  rank, ``played_rank``).

The losses fall into KaTrain's six classes, by points (or, without score leads, by win rate):

==========  ================  ==================
class       points lost       win rate lost
==========  ================  ==================
blunder     12 or more        20% or more
mistake     6 to 12           10% to 20%
inaccuracy  3 to 6            5% to 10%
slack       1.5 to 3          2% to 5%
fine        0.5 to 1.5        1% to 2%
good        under 0.5         under 1%
==========  ================  ==================
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

CLASSES = ("blunder", "mistake", "inaccuracy", "slack", "fine", "good")
PLURALS = ("blunders", "mistakes", "inaccuracies", "slack", "fine", "good")  # "1 blunder": a final "s" off
POINT_BOUNDS = (12.0, 6.0, 3.0, 1.5, 0.5)  # the least loss of each class but the last
WINRATE_BOUNDS = (0.20, 0.10, 0.05, 0.02, 0.01)
TOP = 5  # "among the network's top moves"


def player_summaries(moves: Iterable[dict]) -> dict[str, dict] | None:
    """Return each player's summary of the judged ``moves`` of a whole-game analysis
    (:func:`analysis.review.report.moves_judged`) as ``{"B": {...}, "W": {...}}``, or None when
    there is none.

    A summary has ``moves`` (judged), ``measure`` (``points``, or ``winrate`` when the analysis
    has no score leads), ``mean_loss`` (in that measure), ``best`` and ``top`` (the share of its
    moves that were the search's choice, and among the network's top 5: None when no rank is
    known) and ``classes``: how many of its moves fell in each of :data:`CLASSES`, in that order.
    """
    moves = list(moves)
    if not moves:
        return None
    scored = all(m["points_lost"] is not None for m in moves)
    measure, bounds = ("points", POINT_BOUNDS) if scored else ("winrate", WINRATE_BOUNDS)
    return {color: _summary([m for m in moves if m["color"] == color], measure, bounds) for color in "BW"}


def summary_line(color: str, summary: dict) -> str:
    """Return one player's ``summary`` in a line for the analysed SGF's first comment:
    ``Black: 120 moves judged, mean loss 1.8 points; 2 blunders, ... 54 good; search's choice 35%,
    network's top 5 70%``."""
    mean, by_points = summary["mean_loss"], summary["measure"] == "points"
    loss = "n/a" if mean is None else (f"{mean:.2f} points" if by_points else f"{100 * mean:.2f}%")
    classes = ", ".join(f"{n} {_singular(name) if n == 1 else name}"
                        for n, name in zip(summary["classes"], PLURALS, strict=True))
    shares = [f"{label} {'n/a' if share is None else f'{100 * share:.0f}%'}"
              for label, share in (("search's choice", summary["best"]), ("network's top 5", summary["top"]))]
    name = "Black" if color == "B" else "White"
    moves = f"{summary['moves']} move{'' if summary['moves'] == 1 else 's'}"
    return f"{name}: {moves} judged, mean loss {loss}; {classes}; {', '.join(shares)}"


def _singular(plural: str) -> str:
    """``blunder`` for ``blunders``, ``inaccuracy`` for ``inaccuracies``; ``slack`` as it is."""
    if plural.endswith("ies"):
        return plural[:-3] + "y"
    return plural[:-1] if plural.endswith("s") else plural


def move_loss(move: dict, measure: str) -> float:
    """Return what a judged ``move`` lost in ``measure`` (points or win rate): 0 for the search's
    own choice and for a move that gained."""
    lost = move["points_lost"] if measure == "points" else move["loss"]
    return 0.0 if move["chosen"] else max(0.0, lost)


def loss_class(loss: float, bounds: Sequence[float]) -> int:
    """Return the index in :data:`CLASSES` of a move that lost ``loss`` (``bounds``: each class's least)."""
    return next((i for i, least in enumerate(bounds) if loss >= least), len(bounds))


def _summary(moves: list[dict], measure: str, bounds: Sequence[float]) -> dict:
    """One player's figures from its judged moves."""
    n = len(moves)
    losses = [move_loss(m, measure) for m in moves]
    classes = [0] * len(CLASSES)
    for loss in losses:
        classes[loss_class(loss, bounds)] += 1
    ranks = [m["played_rank"] for m in moves if m["played_rank"] is not None]
    return {
        "moves": n,
        "measure": measure,
        "mean_loss": round(sum(losses) / n, 2 if measure == "points" else 4) if n else None,
        "best": round(sum(m["chosen"] for m in moves) / n, 3) if n else None,
        "top": round(sum(rank <= TOP for rank in ranks) / len(ranks), 3) if ranks else None,
        "classes": classes,
    }
