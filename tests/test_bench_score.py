"""The score bench's teacher figures, on a hand-made labels file and training month."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from analysis.bench.score import teacher

COUNTED = b"(;GM[1]FF[4]SZ[19]KM[6.5]RE[B+3.5];B[pd];W[dp])"
RESIGNED = b"(;GM[1]FF[4]SZ[19]KM[6.5]RE[W+R];B[pd];W[dp])"


def write_labels(path: Path, rows: list[tuple[str, int, float]]) -> None:
    n = len(rows)
    np.savez(path, month=np.array(["2010-01"] * n), game=np.array([g for g, _, _ in rows]),
             turn=np.array([t for _, t, _ in rows], dtype=np.int16),
             winrate_black=np.full(n, 0.5, dtype=np.float16),
             score_lead_black=np.array([lead for _, _, lead in rows], dtype=np.float16),
             ownership_black=np.zeros((n, 361), dtype=np.int8))


def test_teacher_figures_compare_its_lead_with_the_counted_games_margins_only(tmp_path: Path) -> None:
    months = tmp_path / "train"
    months.mkdir()
    with zipfile.ZipFile(months / "2010-01.zip", "w") as zf:
        zf.writestr("counted.sgf", COUNTED)
        zf.writestr("resigned.sgf", RESIGNED)
    labels = tmp_path / "labels.npz"
    write_labels(labels, [("counted.sgf", 48, 1.5), ("counted.sgf", 150, 2.0),
                          ("counted.sgf", 158, -1.0), ("resigned.sgf", 150, -30.0)])

    figures = teacher(labels=labels, months=months)

    assert figures["counted_games"] == 1
    assert figures["score_error"]["move_50"] == 2.0  # |1.5 - 3.5|, the label 2 moves from 50
    assert figures["score_error"]["move_150"] == 1.5  # |2.0 - 3.5| (158 is more than 4 away)
    assert figures["score_error"]["move_100"] is None
    assert figures["score_sign"] == 0.5  # +2.0 agrees with B+3.5, -1.0 does not


def test_teacher_figures_are_absent_without_the_labels(tmp_path: Path) -> None:
    assert teacher(labels=tmp_path / "missing.npz", months=tmp_path) is None
