"""The score estimate of a position without a search: the network's outputs and a count (no Django here).

The play page's "Estimate score" button (as on OGS) wants an answer at once, at any point of the
game: the network's own outputs averaged over the position's 8 symmetries (one batch: a few
milliseconds on 9x9, under a tenth of a second on 19x19 on one CPU core), rather than a search,
whose ownership would still be the network's.  The review page's score leads are the search's
(:func:`analysis.review.analyze.position_analysis`).  Everything here is from Black's side.

Beside the network's projection of the final score, the estimate counts the board as it stands,
with dead stones estimated by playouts (:func:`analysis.go.scoring.score`: the count proposed at
the end of a game, under the rules as :func:`analysis.go.rules.rules_kind` reads them), as OGS's
estimator does.  The two answer different questions, and each is the better guide in its own
part of the game: near the end the count, earlier the projection (``python -m analysis.bench
score``'s ``count`` and ``sign_by_moves_left``).  While only one side has stones on the board
(the start of a game, a handicap game's above all), no count is given: they would "own" every
empty point (Black's 4 handicap stones and komi 0.5 counted B+360.5 by area, B+356.5 with
White's 4 points for them under Chinese rules).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.go.coords import BLACK, WHITE
from analysis.go.position import Position
from analysis.go.rules import rules_kind
from analysis.go.scoring import score
from analysis.review.analyze import black_lead, black_winrate

if TYPE_CHECKING:
    from analysis.nets.inference import Network

SYMMETRIES = 8
# each missing head: its name, and what the estimate then lacks
_HEADS = (("value", "black_winrate", "win rate"), ("score", "black_score_lead", "score lead"),
          ("ownership", "ownership", "territory"))


def estimate(network: Network, position: Position, name: str, rules: str = "chinese") -> dict:
    """Return the network ``name``'s estimate of ``position``, from Black's side.

    - ``to_play`` (``"B"`` or ``"W"``), ``black_winrate`` (the value head's, in [0, 1]);
    - ``black_score_lead`` (the points Black leads by at the end, the score head's mean) and
      ``score_stdev`` (its spread, in points);
    - ``ownership``: n*n values, row by row from the top left, in -1..1 (+1: Black owns the point);
    - ``black_count``: Black's margin if the game were counted now under ``rules`` (komi
      included), with the dead stones the playouts find, None while only one side has stones on
      the board (see the module docstring), and ``count_kind`` (``area`` or ``territory``);
    - ``message``: None when the network has every head, else a sentence naming the heads it
      lacks and what the estimate misses for it; those fields are None.

    Raises ValueError when the network cannot evaluate the position (another board size...).
    """
    stones = position.stones()
    one_sided = (stones == BLACK).any() != (stones == WHITE).any()
    count = None if one_sided else score(position, rules)  # no playouts for a count not given
    prediction = network.predict([position], symmetries=SYMMETRIES)
    mover = position.to_play  # BLACK = 1, WHITE = -1: turns the network's side into Black's
    value, lead, stdev, owned = (prediction.value, prediction.score_mean, prediction.score_stdev,
                                 prediction.ownership)
    result = {
        "to_play": "B" if mover == BLACK else "W",
        "black_winrate": None if value is None else round(black_winrate(float(value[0]), mover), 4),
        "black_score_lead": None if lead is None else round(black_lead(float(lead[0]), mover), 1),
        "score_stdev": None if stdev is None else round(float(stdev[0]), 1),
        "ownership": None if owned is None else [round(float(v) * mover, 3) for v in owned[0]],
        "black_count": None if count is None else count.margin,
        "count_kind": rules_kind(rules),
    }
    missing = [(head, lacks) for head, field, lacks in _HEADS if result[field] is None]
    result["message"] = None
    if missing:
        heads = " or ".join(head for head, _ in missing)
        lacks = " or ".join(lacks for _, lacks in missing)
        result["message"] = f"the network {name} has no {heads} head, so this estimate has no {lacks}"
    return result
