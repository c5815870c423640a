"""Won games thrown away: the games a player lost after leading by many points.

``python -m analysis.match.leads SGF_DIR --player TEXT --network CKPT [--lead 20]`` judges every
position of every game in ``SGF_DIR`` (a match's ``--sgf-dir``) with a network's score head and
lists the games that the player (the engine whose command line contains ``TEXT``) lost after the
network saw it ahead by at least ``--lead`` points.  The issue it answers: a bot that maximised
the win rate alone spent big leads with slack moves until a fight turned.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from analysis.go.coords import BLACK, WHITE
from analysis.nets.inference import Network
from analysis.review.analyze import game_positions
from analysis.sgf import SgfError, read_sgf


@dataclass(frozen=True)
class GameLeads:
    """One game: its file, the player's colour, whether it won, and its largest lead (points)."""

    file: str
    color: str
    won: bool
    max_lead: float
    at_move: int


def game_leads(path: Path, player: str, network: Network) -> GameLeads | None:
    """Return the player's largest lead in the game at ``path`` by the network's score head, or None
    when the player is not in the game, the result is unknown or the record cannot be read.

    Raises ValueError for a network without a score head.
    """
    try:
        record = read_sgf(path.read_bytes(), source=str(path))
        positions = [p for p, _ in game_positions(record)]
    except SgfError:
        return None
    names = {BLACK: record.players.get(BLACK) or "", WHITE: record.players.get(WHITE) or ""}
    ours = [c for c, name in names.items() if player in name]
    result = (record.result or "").upper()
    if len(ours) != 1 or result[:2] not in ("B+", "W+"):
        return None
    color = ours[0]
    prediction = network.predict(positions)
    if prediction.score_mean is None:
        raise ValueError("the network has no score head")
    sides = np.array([p.to_play for p in positions], dtype=np.float64)
    lead = prediction.score_mean * sides * color  # the player's lead, whoever is to move
    best = int(np.argmax(lead))
    won = result[0] == ("B" if color == BLACK else "W")
    return GameLeads(path.name, "B" if color == BLACK else "W", won, round(float(lead[best]), 1), best)


def main(argv: list[str] | None = None) -> int:
    """Print the games lost after a big lead (JSON with ``--json``); exit 0."""
    parser = argparse.ArgumentParser(prog="python -m analysis.match.leads",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("sgf_dir", type=Path)
    parser.add_argument("--player", required=True, help="text of the player's engine command line")
    parser.add_argument("--network", required=True, help="a checkpoint with a score head")
    parser.add_argument("--lead", type=float, default=20.0, help="a big lead, in points (default 20)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    network = Network.from_checkpoint(args.network, dtype="float32")
    games = [g for p in sorted(args.sgf_dir.glob("*.sgf")) if (g := game_leads(p, args.player, network))]
    thrown = [g for g in games if not g.won and g.max_lead >= args.lead]
    led = [g for g in games if g.max_lead >= args.lead]
    summary = {"games": len(games), "led_by_at_least": args.lead, "games_led": len(led),
               "lost_after_leading": [asdict(g) for g in thrown]}
    print(json.dumps(summary, indent=2) if args.json else
          f"{len(games)} games; {len(led)} led by {args.lead:g}+ points; lost after such a lead: "
          f"{', '.join(f'{g.file} (+{g.max_lead} at move {g.at_move})' for g in thrown) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
