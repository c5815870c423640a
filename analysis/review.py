"""Position and game analysis for the web site and the JSON API (no Django here).

Win rates come from an :class:`Evaluator`: today :class:`NetEvaluator` (the policy
network's value head, and one ply of look-ahead for the candidates); a search can
replace it later by providing the same ``evaluate`` method and registering it in
:func:`evaluator`.  Networks are loaded once per process and cached.

All coordinates in the results are GTP (``Q16``, ``pass``); win rates are
probabilities in [0, 1].
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Protocol

import numpy as np
import torch

from analysis.bot.policy import PolicyNet
from analysis.features import FeatureContext, get_feature_set
from analysis.go.coords import BLACK, WHITE, from_gtp, parse_color, to_gtp
from analysis.go.position import IllegalMoveError, Position
from analysis.go.sgf import GameRecord
from analysis.nets import checkpoint

TOP_MOVES = 10


@dataclass(frozen=True)
class Evaluation:
    """The network's view of one position: move probabilities and the mover's win rate."""

    policy: np.ndarray  # (n*n + 1,), pass last
    winrate: float | None  # for the player to move, None without a value head


class Evaluator(Protocol):
    """Anything that evaluates positions (the network today, a search later)."""

    def evaluate(self, positions: Sequence[Position]) -> list[Evaluation]:
        """Return one Evaluation per position (all of one board size)."""


class NetEvaluator:
    """Raw network evaluation: policy head and value head."""

    def __init__(self, net: PolicyNet) -> None:
        self.net = net
        self.lock = threading.Lock()  # torch modules are not meant to be shared by threads mid-call

    def evaluate(self, positions: Sequence[Position]) -> list[Evaluation]:
        """Return one Evaluation per position."""
        with self.lock:
            probs, wins = self.net.evaluate(list(positions))
        return [
            Evaluation(probs[i], None if wins is None else float(wins[i])) for i in range(len(positions))
        ]


class BackpredNet:
    """A back-prediction network: which move most likely led to this position."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model.eval()
        self.features = get_feature_set(model.config.feature_set)
        self.lock = threading.Lock()

    @torch.inference_mode()
    def heatmap(self, position: Position) -> list[float]:
        """Return the probability of each point (n*n, row-major) having been the last move."""
        inputs = torch.from_numpy(self.features.extract_batch([FeatureContext(position)]))
        mover = -position.to_play
        mask = np.append(position.stones().ravel() == mover, True)
        with self.lock:
            logits, _ = self.model(inputs, torch.from_numpy(mask[None, :]))
        probs = torch.softmax(logits[:, 0].float(), dim=1)[0, :-1].numpy()
        return [round(float(p), 4) for p in probs]


_cache: dict[tuple[str, str], object] = {}
_cache_lock = threading.RLock()


def _cached(kind: str, path: Path, factory: Callable[[], object]) -> object:
    """Return the process-wide object ``kind`` for ``path``, made by ``factory`` on first use."""
    key = (kind, str(path))
    with _cache_lock:
        if key not in _cache:
            _cache[key] = factory()
        return _cache[key]


def policy_net(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> PolicyNet:
    """Return the policy network at ``weights``, loaded once per process."""
    return _cached("policy", Path(weights), lambda: PolicyNet(checkpoint.load_model(weights)[0]))


def evaluator(weights: Path = checkpoint.DEFAULT_WEIGHTS) -> Evaluator:
    """Return the process's evaluator (the swap point for a search-based evaluator)."""
    return _cached("evaluator", Path(weights), lambda: NetEvaluator(policy_net(weights)))


def backpred_net(weights: Path) -> BackpredNet | None:
    """Return the back-prediction network at ``weights``, or None when the file does not exist."""
    if not Path(weights).exists():
        return None
    return _cached("backpred", Path(weights), lambda: BackpredNet(checkpoint.load_model(weights)[0]))


def build_position(
    size: int,
    komi: float,
    moves: Sequence[Sequence[str]] = (),
    initial_stones: Sequence[Sequence[str]] = (),
    superko: bool = False,
) -> Position:
    """Return the position after ``initial_stones`` then ``moves``, both as ``[colour, GTP]`` pairs.

    Raises ValueError (CoordinateError, IllegalMoveError...) naming the offending item.
    """
    position = Position(size, komi, superko)
    black, white = [], []
    for i, item in enumerate(initial_stones):
        color, point = _color_point(item, size, f"initialStones[{i}]")
        (black if color == BLACK else white).append(point)
    if black or white:
        position.setup(black=black, white=white)
        position.steps.clear()
        if not moves:
            position.to_play = WHITE if black and not white else BLACK
    for i, item in enumerate(moves):
        color, point = _color_point(item, size, f"moves[{i}]")
        try:
            position.play(point, color)
        except IllegalMoveError as e:
            raise ValueError(f"moves[{i}] (move {i + 1}): {e}") from None
    return position


def _color_point(item: Sequence[str], size: int, where: str) -> tuple[int, int]:
    if not (isinstance(item, list | tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)):
        raise ValueError(f"{where} must be a [colour, vertex] pair of strings, got {item!r}")
    try:
        return parse_color(item[0]), from_gtp(item[1], size)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def black_winrate(winrate: float | None, to_play: int) -> float | None:
    """Return the mover's win rate seen from black."""
    if winrate is None:
        return None
    return winrate if to_play == BLACK else 1.0 - winrate


def analyze_position(
    position: Position, engine: Evaluator, top: int = TOP_MOVES, include_policy: bool = False
) -> dict:
    """Return the top candidate moves with priors and one-ply win rates, and the root win rate.

    Each candidate has ``move``, ``order`` (0 = best prior), ``prior``, ``winrate`` (for the
    player to move after playing it, from the child's evaluation) and ``pv`` (the move and the
    network's best reply).
    """
    size = position.size
    root = engine.evaluate([position])[0]
    order = [int(p) for p in np.argsort(-root.policy, kind="stable")[:top] if root.policy[p] > 0]
    children = []
    for point in order:
        child = position.copy()
        child.play(point)
        children.append(child)
    child_evals = engine.evaluate(children) if children else []
    candidates = []
    for rank, (point, child_eval) in enumerate(zip(order, child_evals, strict=True)):
        reply = int(np.argmax(child_eval.policy))
        candidates.append(
            {
                "move": to_gtp(point, size),
                "order": rank,
                "prior": round(float(root.policy[point]), 5),
                "winrate": None if child_eval.winrate is None else round(1.0 - child_eval.winrate, 4),
                "pv": [to_gtp(point, size), to_gtp(reply, size)],
            }
        )
    result = {
        "to_play": "B" if position.to_play == BLACK else "W",
        "winrate": None if root.winrate is None else round(root.winrate, 4),
        "black_winrate": _round(black_winrate(root.winrate, position.to_play)),
        "candidates": candidates,
    }
    if include_policy:
        result["policy"] = [round(float(p), 5) for p in root.policy]
    return result


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def move_rank(policy: np.ndarray, point: int) -> int:
    """Return the 1-based rank of ``point`` in ``policy`` (ties share the better rank)."""
    return int((policy > policy[point]).sum()) + 1


def game_positions(record: GameRecord) -> Iterator[tuple[Position, tuple[int, int] | None]]:
    """Yield (position after k moves, the next move played or None) for k = 0..number of moves.

    Setup stones are applied as :func:`analysis.go.sgf.replay` does.  Raises SgfError for an
    illegal move (the record is checked when it is stored, so this should not happen).
    """
    from analysis.go.sgf import replay

    moves = record.main_line_moves()
    position = replay(record, upto=0)
    for k in range(len(moves) + 1):
        yield position, (moves[k] if k < len(moves) else None)
        if k < len(moves):
            position = replay(record, upto=k + 1)


def analyze_game_position(
    position: Position, next_move: tuple[int, int] | None, move_number: int, engine: Evaluator
) -> dict:
    """Return the stored whole-game analysis entry of one position (see ``docs/protocol.md``)."""
    size = position.size
    analysis = analyze_position(position, engine, include_policy=True)
    policy = np.asarray(analysis.pop("policy"))
    entry = {"move_number": move_number, **analysis, "played": None, "played_rank": None}
    if next_move is not None:
        _, point = next_move
        entry["played"] = to_gtp(point, size)
        entry["played_rank"] = move_rank(policy, point)
        entry["played_prior"] = round(float(policy[point]), 5)
    return entry


def mistakes(results: Sequence[dict], limit: int = 10) -> list[dict]:
    """Return the moves that lost the most win rate for their player, worst first.

    ``results[k]`` is the entry of the position after k moves; move k+1 is ``results[k]["played"]``
    and its loss is the mover's win rate before it minus after it.
    """
    out = []
    for before, after in pairwise(results):
        if before.get("played") is None or before["black_winrate"] is None or after["black_winrate"] is None:
            continue
        sign = 1 if before["to_play"] == "B" else -1
        loss = sign * (before["black_winrate"] - after["black_winrate"])
        if loss > 0:
            out.append(
                {
                    "move_number": before["move_number"] + 1,
                    "color": before["to_play"],
                    "move": before["played"],
                    "loss": round(loss, 4),
                    "best": before["candidates"][0]["move"] if before["candidates"] else None,
                }
            )
    out.sort(key=lambda m: -m["loss"])
    return out[:limit]


def annotate(record: GameRecord, results: Sequence[dict]) -> None:
    """Write analysis into the record's main line: comments and Sabaki's ``SBKV`` (black win %).

    The comment of the node after move k describes the position after move k; existing comments
    are kept above the analysis.
    """
    nodes = [record.root]
    nodes.extend(node for node in record.main_line() if node.has_move())
    worst = {m["move_number"]: m for m in mistakes(results, limit=len(results))}
    for entry in results:
        k = entry["move_number"]
        if k >= len(nodes):
            break
        node = nodes[k]
        lines = []
        if entry["black_winrate"] is not None:
            lines.append(f"Black win rate: {100 * entry['black_winrate']:.1f}%")
            node.set("SBKV", f"{100 * entry['black_winrate']:.2f}")
        if k in worst and worst[k]["loss"] >= 0.05:
            lines.append(f"Mistake: lost {100 * worst[k]['loss']:.1f}%; best was {worst[k]['best']}")
        top = ", ".join(f"{c['move']} {100 * c['prior']:.1f}%" for c in entry["candidates"][:5])
        lines.append(f"Candidates for {entry['to_play']}: {top}")
        if entry.get("played_rank"):
            lines.append(f"Played {entry['played']}: policy rank {entry['played_rank']}")
        old = node.comment
        node.set_comment("\n".join(([old, ""] if old else []) + lines))
