"""``python -m analysis.train.pack SOURCE... --out FILE.pack.npz [--teacher labels.npz]``: pack game
records for training (:mod:`analysis.train.packed` describes the file).

SOURCEs are what training's ``--data`` takes (SGF files, folders, zip and tar archives), read in
order with :func:`analysis.sgf.archive.iter_games`; every game it yields is packed, with its final
owners where it was counted (about 50 ms a counted game).  The source files (a folder's archives)
are read on ``--jobs`` processes, one file each.  With ``--teacher``, KataGo's labels of games
found among the sources are packed too, their ownership rounded to ``--teacher-levels`` values;
the command reports what that rounding loses (the root mean square and largest change of an ownership value).

Packed files are derived from the data: keep them out of the repository (``/packed/`` is ignored).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
import zipfile
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from analysis.sgf.archive import iter_games, source_files
from analysis.train.final_owner import final_ownership
from analysis.train.games import TrainingGame
from analysis.train.packed import FORMAT, PACKED_SUFFIX, PackedArchive

DEFAULT_TEACHER_LEVELS = 9


@dataclass
class PackReport:
    """What a pack holds and cost."""

    games: int
    moves: int
    owners: int
    teacher_positions: int
    teacher_rmse: float
    teacher_max_error: float
    bytes: int
    seconds: float


def _packed_games_of(source: str) -> list[TrainingGame]:
    """The games of one source file, with their final owners (a process pool's job)."""
    games = [TrainingGame.from_record(record) for record in iter_games(source)]
    for game in games:
        game.packed, game.packed_owner = True, final_ownership(game)
    return games


def _games_with_owners(sources: list[str], jobs: int) -> list[TrainingGame]:
    """Read every game of ``sources`` in order, with its final owners, one source file per process
    of ``jobs``.  Raises FileNotFoundError for a missing source."""
    files = source_files(sources)
    with ProcessPoolExecutor(max_workers=max(1, min(jobs, len(files)))) as pool:
        return [game for games in pool.map(_packed_games_of, files) for game in games]


def _flat(parts: list[np.ndarray], dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Return (``parts`` concatenated as ``dtype``, the offsets of each part: len(parts) + 1)."""
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(p) for p in parts])
    return (np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)), offsets


def game_arrays(games: list[TrainingGame]) -> dict[str, np.ndarray]:
    """Return the arrays of ``games`` (each with ``packed_owner`` set, or None), as the module
    docstring of :mod:`analysis.train.packed` lists them."""
    rule_names = sorted({g.rules for g in games if g.rules is not None})
    points, offsets = _flat([np.array([p for _, p in g.moves], np.int64) for g in games], np.uint16)
    white, _ = _flat([np.array([c < 0 for c, _ in g.moves], bool) for g in games], bool)
    setup_points, setup_offsets = _flat([np.array(g.black + g.white, np.int64) for g in games], np.uint16)
    setup_white, _ = _flat([np.array([False] * len(g.black) + [True] * len(g.white)) for g in games], bool)
    owners, owner_offsets = _flat([g.packed_owner if g.packed_owner is not None else np.zeros(0)
                                   for g in games], np.int8)
    return {
        "format": np.array([FORMAT], np.int32),
        "size": np.array([g.size for g in games], np.uint8),
        "komi": np.array([g.komi for g in games], np.float32),
        "rules": np.array([rule_names.index(g.rules) if g.rules is not None else -1 for g in games], np.int8),
        "rule_names": np.array(rule_names, dtype=str),
        "result": np.array([g.result or "" for g in games], dtype=str),
        "game_id": np.array([g.game_id for g in games], dtype=str),
        "move_offsets": offsets, "points": points, "white": white,
        "setup_offsets": setup_offsets, "setup_points": setup_points, "setup_white": setup_white,
        "owner_offsets": owner_offsets, "owners": owners,
    }


def teacher_arrays(labels_path: str | Path, game_ids: Iterable[str],
                   levels: int) -> tuple[dict[str, np.ndarray], float, float]:
    """Return the arrays of KataGo's labels (``labels.npz``) of the games among ``game_ids`` (in
    packed order), their ownership rounded to ``levels`` values, and what the rounding changed: the
    root mean square and the largest change of an ownership value (in -1..1).

    Raises FileNotFoundError, KeyError for a file without the documented arrays, ValueError for
    fewer than 2 levels or more than 256.
    """
    if not 2 <= levels <= 256:
        raise ValueError(f"teacher levels must be 2..256, not {levels}")
    index = {name: i for i, name in enumerate(game_ids)}
    with np.load(labels_path) as data:
        names = [f"{m}:{g}" for m, g in zip(data["month"].tolist(), data["game"].tolist(), strict=True)]
        found = np.array([index.get(n, -1) for n in names], dtype=np.int64)
        rows = np.flatnonzero(found >= 0)
        ownership = data["ownership_black"][rows].astype(np.float32) / 127.0
        steps = levels - 1
        rounded = np.rint((ownership + 1.0) * (steps / 2.0)).astype(np.uint8)
        change = np.abs(rounded.astype(np.float32) * (2.0 / steps) - 1.0 - ownership)
        arrays = {
            "teacher_game": found[rows].astype(np.int32),
            "teacher_turn": data["turn"][rows],
            "teacher_winrate": data["winrate_black"][rows],
            "teacher_lead": data["score_lead_black"][rows],
            "teacher_ownership": rounded,
            "teacher_levels": np.array([levels], np.int32),
        }
    if not len(rows):
        return arrays, 0.0, 0.0
    return arrays, float(np.sqrt(np.mean(change * change))), float(change.max())


def write_archive(path: str | Path, arrays: dict[str, np.ndarray]) -> int:
    """Write ``arrays`` as an LZMA-compressed ``.npz`` at ``path`` (atomically); return its bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_LZMA) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(array), allow_pickle=False)
            archive.writestr(f"{name}.npy", buffer.getvalue())
    tmp.replace(path)
    return path.stat().st_size


def pack(sources: list[str], out: str | Path, teacher: str | Path | None = None,
         teacher_levels: int = DEFAULT_TEACHER_LEVELS, jobs: int = 1) -> PackReport:
    """Pack the games of ``sources`` (and ``teacher``'s labels of them) into ``out``; return the report.

    Raises FileNotFoundError for a missing source or labels file, ValueError for an ``out`` that
    does not end in ``.pack.npz`` or a source with no game.
    """
    if not str(out).endswith(PACKED_SUFFIX):
        raise ValueError(f"{out}: a packed archive's name ends in {PACKED_SUFFIX}")
    started = time.perf_counter()
    games = _games_with_owners(sources, jobs)
    if not games:
        raise ValueError(f"no SGF games found in {sources}")
    arrays = game_arrays(games)
    rmse = largest = 0.0
    if teacher is not None:
        labelled, rmse, largest = teacher_arrays(teacher, arrays["game_id"].tolist(), teacher_levels)
        arrays.update(labelled)
    size = write_archive(out, arrays)
    PackedArchive.open.cache_clear()
    owners = int((np.diff(arrays["owner_offsets"]) > 0).sum())
    taught = len(arrays.get("teacher_game", ()))
    return PackReport(len(games), int(arrays["move_offsets"][-1]), owners, taught, round(rmse, 4),
                      round(largest, 4), size, round(time.perf_counter() - started, 1))


def main(argv: list[str] | None = None) -> int:
    """Pack from the command line; print the report as JSON.  Exit 2 with the reason on bad input."""
    p = argparse.ArgumentParser(prog="python -m analysis.train.pack", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sources", nargs="+", help="SGF files, folders or archives, in training order")
    p.add_argument("--out", required=True, help=f"the packed archive to write (*{PACKED_SUFFIX})")
    p.add_argument("--teacher", help="KataGo's labels (labels.npz) of games among the sources")
    p.add_argument("--teacher-levels", type=int, default=DEFAULT_TEACHER_LEVELS,
                   help="values the teacher's ownership is rounded to over -1..1")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="processes reading the source files, one file each")
    args = p.parse_args(argv)
    try:
        report = pack(args.sources, args.out, args.teacher, args.teacher_levels, max(1, args.jobs))
    except (FileNotFoundError, KeyError, ValueError) as exc:
        print(f"python -m analysis.train.pack: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(asdict(report), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
