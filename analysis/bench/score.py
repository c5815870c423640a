"""The score head and the value head on the validation month's games (Tygem 9d 2011-12).

- ``score_error``: on counted games (``RE`` like ``B+3.5``), the score head's mean absolute error
  against the recorded margin, in points, at moves 50, 100, 150 and 200;
- ``score_sign``: on the same games, how often the sign of the score head's lead (from Black's
  side) agrees with the recorded winner at every 10th move from move 150 to the end;
- ``sign_by_moves_left``: the same agreement split by how many moves the game had left
  (``last_20``, ``21_to_60``, ``over_60``);
- ``late_game``: the last ``LATE`` moves of every game whose winner is known (resignations
  included): ``sign`` is how often the score head's lead names the winner, ``loser_ahead`` how
  often it shows the game's loser ahead by
  ``BIG_LEAD`` points or more (the bot that gave won games away saw leads of 14 to 39 points in
  lost positions), over ``positions``; ``score_error`` is the lead's mean absolute error against
  the recorded margin there, on the counted games;
- ``zigzag``: on every game, the mean distance from a position's raw value (Black's win
  probability) to the mean of its two neighbours' (0.02-0.05 for a strong network).  A value
  that swings with the player to move shows up here.

``review_zigzag`` (with ``--search-visits N``): the same distance for the win rate a game review
shows, the search's at N visits (the site's default is 200), on the first ``--search-games`` games,
beside the raw value's there, over one orientation (``raw_zigzag``) and averaged over the 8
symmetries (``bagged_zigzag``: what the review's root starts from, and all a 1-visit review shows).

``komi`` (networks with a score head): how far Black's lead moves per point of komi, between the
record's komi minus and plus 5 points, on every 20th position (``slope``; a point of komi is a
point for White, so -1 is right), and Black's win rate and lead on the empty board at komi 7.5.
A network with exact komi adds the komi to its score itself: its slope is -1 but for what its
trunk makes of the komi plane.

``count`` gives the sign of the board counted as it stands (territory, the records' rules, dead
stones from playouts: the play page's count) at the same positions, by moves left: the head
projects the end of the game, the count does not, so each is the better guide in its own phase;
and its ``late_game`` figures, as the score head's, with its ``sign`` there (both have one).

``teacher_fit`` (each network): how far the network is from its teacher on the teacher's own
labelled positions of the training months (see :func:`teacher_fit`).

``teacher`` gives the same score figures for KataGo's labels of the training months
(``katago-b6c96/labels.npz``) against those games' recorded margins: how far a net that learns
the score from the teacher alone can get.

Each network is measured on the same games; without ``--network`` the shipped default is.  A
network with both score heads (a distribution over margins and a mean with a spread) is measured
with each, to choose between them (``read`` marks the one the file's lead is read from:
``python -m analysis.train.ship_average --score-head`` names it).  Every network computes in
float32, so that two runs give the same figures (left to itself the inference times float32
against bf16 and may pick either).  The records carry Korean rules and komi 6.5: the recorded
margin is a territory count.
"""

from __future__ import annotations

import argparse
import functools
import math
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from analysis.bench.positions import SHARED_DATA, VALIDATION
from analysis.go.coords import BLACK
from analysis.go.position import Position
from analysis.go.scoring import score
from analysis.mcts.net_evaluator import NetEvaluator
from analysis.nets.inference import Network
from analysis.nets.registry import default_weights
from analysis.review.analyze import game_positions, position_analysis
from analysis.sgf import GameRecord, SgfError, read_sgf
from analysis.sgf.results import result_margin, result_value
from analysis.train.teacher import Labels, load_labels

PHASES = (50, 100, 150, 200)
SIGN_FROM = 150
TEACHER = SHARED_DATA / "katago-b6c96" / "labels.npz"
TRAIN_MONTHS = SHARED_DATA / "tygem-9d" / "train"
NEAR = 4  # the teacher labels every 8th move: a phase's label is the one within 4 moves of it
KOMI_STEP = 5.0  # the komi response is measured between the record's komi -5 and +5
KOMI_EVERY = 20  # on every 20th position of each game
TEACHER_FIT_GAMES = 400  # labelled training games on which ``teacher_fit`` compares a network and its teacher
LEFT_BUCKETS = ((20, "last_20"), (60, "21_to_60"), (math.inf, "over_60"))  # moves left, at most
LATE = 60  # the late game: the positions with at most this many moves left
BIG_LEAD = 10.0  # a lead, in points, that no position the leader goes on to lose should show


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--network CKPT`` (repeatable) and ``--games N`` (default 300)."""
    parser.add_argument("--network", action="append", default=[], help="a checkpoint to measure")
    parser.add_argument("--games", type=int, default=300, help="validation games (default 300)")
    parser.add_argument("--search-visits", type=int, default=0,
                        help="also the zigzag of the search's win rate at this many visits (default 0: not)")
    parser.add_argument("--search-games", type=int, default=8,
                        help="games for the search's zigzag (default 8; 2 minutes a game at 200 visits)")


def games(limit: int, archive: Path = VALIDATION) -> Iterator[tuple[list[Position], float | None, int]]:
    """Yield up to ``limit`` games as (positions after 0..n moves, Black's recorded margin or None
    when the game was not counted, the winner: +1 Black, -1 White, 0 a draw or unknown, as on
    time); records that do not read or replay are skipped."""
    found = 0
    with zipfile.ZipFile(archive) as zf:
        for name in zf.namelist():
            try:
                record = read_sgf(zf.read(name), source=name)
                positions = [p for p, _ in game_positions(record)]
            except (SgfError, ValueError):
                continue
            margin, won = result_margin(record.result), result_value(record.result, BLACK)
            winner = 0 if math.isnan(won) or won == 0.5 else int(2 * won - 1)
            yield positions, None if math.isnan(margin) else margin, winner
            found += 1
            if found >= limit:
                return


def _signed_moves(length: int) -> np.ndarray:
    """The moves at which a game of ``length`` positions is signed: every 10th from ``SIGN_FROM``."""
    return np.arange(SIGN_FROM, length, 10)


def _left_bucket(moves_left: int) -> str:
    """The name of the ``LEFT_BUCKETS`` bucket that ``moves_left`` falls in."""
    return next(name for most, name in LEFT_BUCKETS if moves_left <= most)


def _shares(agreements: dict[str, list[bool]]) -> dict[str, float | None]:
    """The share of True in each list (None for an empty one), rounded."""
    return {name: round(float(np.mean(v)), 4) if v else None for name, v in agreements.items()}


def _black_win(value: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Black's win probability from the mover's ``value`` and the mover's colour ``side`` (+1 Black)."""
    return np.where(side > 0, value, 1 - value)


def _zigzag(black_win: np.ndarray) -> np.ndarray:
    """The distance of each inner position's Black win probability from the mean of its two neighbours'."""
    return np.abs(black_win[1:-1] - (black_win[:-2] + black_win[2:]) / 2)


def review_zigzag(network: Network, visits: int, limit: int, archive: Path = VALIDATION) -> dict:
    """Return the zigzag of the win rate a review shows (the search's at ``visits``, Black's) on the
    first ``limit`` games of ``archive``, with the raw value's on the same games, over one
    orientation and over the 8 symmetries."""
    evaluator = NetEvaluator(network)
    zigzags: dict[str, list[float]] = {"zigzag": [], "raw_zigzag": [], "bagged_zigzag": []}
    for positions, _, _ in games(limit, archive):
        side = np.array([p.to_play for p in positions], dtype=np.float64)
        for name, symmetries in (("raw_zigzag", 1), ("bagged_zigzag", 8)):
            value = network.predict(positions, symmetries=symmetries).value
            zigzags[name].extend(_zigzag(_black_win(value, side)).tolist())
        search = [position_analysis(p, evaluator, visits)["black_winrate"] for p in positions]
        zigzags["zigzag"].extend(_zigzag(np.array(search)).tolist())
    return {"games": limit, "visits": visits, "positions": len(zigzags["zigzag"]),
            **{name: round(float(np.mean(v)), 4) if v else None for name, v in zigzags.items()}}


def measure(network: Network, limit: int) -> dict:
    """Return one network's figures (see the module docstring) on the first ``limit`` games."""
    errors: dict[int, list[float]] = {k: [] for k in PHASES}
    signs: list[bool] = []
    by_left: dict[str, list[bool]] = {name: [] for _, name in LEFT_BUCKETS}
    zigzag: list[float] = []
    late_game: dict[str, list] = {"sign": [], "loser_ahead": [], "score_error": []}
    counted = 0
    for positions, margin, winner in games(limit):
        prediction = network.predict(positions)
        side = np.array([p.to_play for p in positions], dtype=np.float64)
        black_win = _black_win(prediction.value, side)
        zigzag.extend(_zigzag(black_win).tolist())
        if prediction.score_mean is None:
            continue
        black_lead = prediction.score_mean * side
        for name, values in _late_game(black_lead, margin, winner).items():
            late_game[name].extend(values)
        if margin is None:
            continue
        counted += 1
        for k in PHASES:
            if k < len(positions):
                errors[k].append(abs(float(black_lead[k]) - margin))
        late = _signed_moves(len(positions))
        agree = (np.sign(black_lead[late]) == np.sign(margin)).tolist()
        signs.extend(agree)
        for k, ok in zip(late, agree, strict=True):
            by_left[_left_bucket(len(positions) - k)].append(ok)
    figures: dict = {"games": limit, "zigzag": round(float(np.mean(zigzag)), 4) if zigzag else None}
    if counted:
        figures["counted_games"] = counted
        figures["score_error"] = {f"move_{k}": round(float(np.mean(v)), 2) if v else None
                                  for k, v in errors.items()}
        figures["score_sign"] = round(float(np.mean(signs)), 4) if signs else None
        figures["sign_by_moves_left"] = _shares(by_left)
    if (late := _late_figures(late_game)) is not None:
        figures["late_game"] = late
    return figures


def _late_game(black_lead: np.ndarray, margin: float | None, winner: int) -> dict[str, list]:
    """Return one game's late-game figures from Black's lead at each position (0..n moves): for
    each of its last ``LATE`` positions, whether the lead names the winner (``sign``) and whether
    it shows the loser ahead by ``BIG_LEAD`` or more (``loser_ahead``; neither for a game without
    a winner) and, for a counted game (``margin`` not None), the lead's distance from the margin
    (``score_error``)."""
    lead = black_lead[-LATE:]
    return {"sign": (np.sign(lead) == winner).tolist() if winner else [],
            "loser_ahead": (-winner * lead >= BIG_LEAD).tolist() if winner else [],
            "score_error": np.abs(lead - margin).tolist() if margin is not None else []}


def _late_figures(late_game: dict[str, list]) -> dict | None:
    """Return the late-game figures summed over games (:func:`_late_game`'s lists joined), or None
    when no game had a winner."""
    if not late_game["loser_ahead"]:
        return None
    return {"positions": len(late_game["loser_ahead"]),
            "sign": round(float(np.mean(late_game["sign"])), 4),
            "loser_ahead": round(float(np.mean(late_game["loser_ahead"])), 4),
            "score_error": round(float(np.mean(late_game["score_error"])), 2)
            if late_game["score_error"] else None}


def komi_response(network: Network, limit: int) -> dict | None:
    """Return the ``komi`` figures (see the module docstring) on the first ``limit`` games, or None
    for a network without a score head."""
    empty = network.predict([Position(19, komi=7.5)])
    if empty.score_mean is None:
        return None
    slopes: list[float] = []
    for positions, _, _ in games(limit):
        sample = positions[::KOMI_EVERY]
        side = np.array([p.to_play for p in sample], dtype=np.float64)
        leads = []
        for shift in (-KOMI_STEP, KOMI_STEP):
            shifted = [p.copy() for p in sample]
            for p in shifted:
                p.komi += shift
            leads.append(network.predict(shifted).score_mean * side)
        slopes.extend(((leads[1] - leads[0]) / (2 * KOMI_STEP)).tolist())
    return {"slope": round(float(np.mean(slopes)), 3), "positions": len(slopes),
            "empty_board_black_winrate": round(float(empty.value[0]), 4),
            "empty_board_black_lead": round(float(empty.score_mean[0]), 2)}


def _counter(positions: list[Position]) -> Callable[[int], float]:
    """Return Black's margin by the board counted as it stands after k moves of ``positions``
    (territory, dead stones from playouts), each position counted once: the late and the signed
    positions overlap."""
    @functools.cache
    def counted(k: int) -> float:
        return score(positions[k], "korean").margin

    return counted


def count(limit: int) -> dict:
    """Return the figures of the board counted as it stands (territory, dead stones from playouts)
    on the first ``limit`` games: ``sign_by_moves_left``, how often it gives the recorded winner
    at the positions ``measure`` signs, on the counted games; and ``late_game``, the figures
    ``measure`` gives the score head there (:func:`_late_game`), for the count in its place."""
    by_left: dict[str, list[bool]] = {name: [] for _, name in LEFT_BUCKETS}
    late_game: dict[str, list] = {"sign": [], "loser_ahead": [], "score_error": []}
    for positions, margin, winner in games(limit):
        counted = _counter(positions)
        if winner:
            late = range(max(0, len(positions) - LATE), len(positions))
            black_count = np.array([counted(k) for k in late])
            for name, values in _late_game(black_count, margin, winner).items():
                late_game[name].extend(values)
        if margin is None:
            continue
        for k in _signed_moves(len(positions)):
            by_left[_left_bucket(len(positions) - k)].append(bool(np.sign(counted(k)) == np.sign(margin)))
    return {"sign_by_moves_left": _shares(by_left), "late_game": _late_figures(late_game)}


def _labelled_records(limit: int | None, labels: Path, months: Path) -> Iterator[tuple[GameRecord, Labels]]:
    """Yield (record, its labels) for the first ``limit`` labelled games (all without a limit),
    skipping records that are missing or do not read."""
    archives: dict[str, zipfile.ZipFile] = {}
    try:
        for (month, name), label in sorted(load_labels(labels).items())[:limit]:
            if month not in archives:
                archives[month] = zipfile.ZipFile(months / f"{month}.zip")
            try:
                record = read_sgf(archives[month].read(name), source=name)
            except (SgfError, KeyError):
                continue
            yield record, label
    finally:
        for archive in archives.values():
            archive.close()


def teacher(limit: int | None = None, labels: Path = TEACHER, months: Path = TRAIN_MONTHS) -> dict | None:
    """Return the teacher's score figures on the counted games among the first ``limit`` labelled
    games (all without a limit): its lead's mean absolute error against the recorded margin near
    each phase, and how often its sign agrees with the winner from move 150 on.  None when the
    labels or the training months are not there."""
    if not labels.exists() or not months.exists():
        return None
    errors: dict[int, list[float]] = {k: [] for k in PHASES}
    signs: list[bool] = []
    counted = 0
    for record, label in _labelled_records(limit, labels, months):
        margin = result_margin(record.result)
        if math.isnan(margin):
            continue
        counted += 1
        for k in PHASES:
            near = np.abs(label.turns.astype(np.int64) - k) <= NEAR
            errors[k].extend(np.abs(label.lead[near] - margin).tolist())
        late = label.lead[label.turns >= SIGN_FROM]
        signs.extend((np.sign(late) == np.sign(margin)).tolist())
    return {"labels": labels.name, "counted_games": counted,
            "score_error": {f"move_{k}": round(float(np.mean(v)), 2) if v else None
                            for k, v in errors.items()},
            "score_sign": round(float(np.mean(signs)), 4) if signs else None}


def _divergence(teacher_win: np.ndarray, win: np.ndarray) -> np.ndarray:
    """The KL divergence of each win probability ``win`` from the teacher's, in nats."""
    p, q = (np.clip(np.asarray(a, dtype=np.float64), 1e-6, 1 - 1e-6) for a in (teacher_win, win))
    return p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))


def teacher_fit(network: Network, limit: int, labels: Path = TEACHER,
                months: Path = TRAIN_MONTHS) -> dict | None:
    """Return how closely ``network`` follows its teacher on the teacher's own labelled positions
    (training games, the first ``limit`` labelled games): ``value_kl``, the value's mean KL
    divergence from the teacher's win rate; and on the counted games ``lead_distance``, the mean
    distance between the two leads in points, and ``score_sign`` and ``teacher_score_sign``, each
    lead's sign agreement with the recorded winner at the labelled moves from move 150 on (every
    8th move); ``games``, the labelled games read.  A network that memorised
    its teacher would be close here and far on the validation month; one short of capacity is
    far on both.  None when the labels or the training months are not there."""
    if not labels.exists() or not months.exists():
        return None
    divergence: list[float] = []
    distance: list[float] = []
    signs: dict[str, list[bool]] = {"score_sign": [], "teacher_score_sign": []}
    used = 0
    for record, label in _labelled_records(limit, labels, months):
        try:
            positions = [p for p, _ in game_positions(record)]
        except ValueError:
            continue
        keep = label.turns < len(positions)
        turns = label.turns[keep].astype(np.int64)
        if not len(turns):
            continue
        used += 1
        prediction = network.predict([positions[t] for t in turns])
        side = np.array([positions[t].to_play for t in turns], dtype=np.float64)
        black_win = _black_win(prediction.value, side)
        divergence.extend(_divergence(label.winrate[keep], black_win).tolist())
        margin = result_margin(record.result)
        if prediction.score_mean is None or math.isnan(margin):
            continue
        leads = {"score_sign": prediction.score_mean * side, "teacher_score_sign": label.lead[keep]}
        distance.extend(np.abs(leads["score_sign"] - leads["teacher_score_sign"]).tolist())
        for key, lead in leads.items():
            signs[key].extend((np.sign(lead[turns >= SIGN_FROM]) == np.sign(margin)).tolist())
    figures: dict = {"games": used, "value_kl": round(float(np.mean(divergence)), 4) if divergence else None}
    if distance:
        figures["lead_distance"] = round(float(np.mean(distance)), 2)
        figures.update(_shares(signs))
    return figures


def score_heads(network: Network, path: str) -> list[tuple[str, str, bool]]:
    """Return how to measure ``network``, loaded from ``path``: (name, score head, whether its lead
    is read from that head) for each head of a network with two (named ``path [head]``), else the
    one entry (``path``, the head it reads or "" for none, True)."""
    kinds = network.config.score_kinds
    if len(kinds) < 2:
        return [(path, network.score_kind, True)]
    return [(f"{path} [{kind}]", kind, kind == network.score_kind) for kind in kinds]


def run(quick: bool = False, network: list[str] | None = None, games: int = 300,
        search_visits: int = 0, search_games: int = 8) -> dict:
    """Return the figures of each network (default: the shipped default), by checkpoint path, and
    by score head (``path [kind]``) for a network with both, ``read`` true for the head its lead is
    read from; with ``search_visits``, each network's ``review_zigzag`` too.

    Every network is loaded before any is measured.  Raises FileNotFoundError or CheckpointError
    for a file that is not a checkpoint, ValueError for a network without a value head.
    """
    paths = network or [str(default_weights())]
    limit = 10 if quick else games
    networks = {path: Network.from_checkpoint(path, dtype="float32") for path in paths}  # bad files first
    no_value = [path for path, net in networks.items() if not net.has_value]
    if no_value:
        raise ValueError(f"no value head to measure in {', '.join(no_value)}")
    measured = {}
    for path, net in networks.items():
        heads = score_heads(net, path)
        for name, kind, read in heads:
            net.score_kind = kind  # each head in turn, on the one loaded network
            measured[name] = {**measure(net, limit), "komi": komi_response(net, limit),
                              "teacher_fit": teacher_fit(net, 20 if quick else TEACHER_FIT_GAMES),
                              **({"read": read} if len(heads) > 1 else {})}
            if search_visits:
                searched = 1 if quick else search_games
                measured[name]["review_zigzag"] = review_zigzag(net, search_visits, searched)
    return {"archive": VALIDATION.name, "networks": measured, "count": count(limit),
            "teacher": teacher(200 if quick else None)}
