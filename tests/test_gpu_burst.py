"""The GPU burst script (docs/gpu-burst.sh) run here on the CPU: a part it has not run on a
lent machine yet must work the first time, since a call there costs minutes of a short budget."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "docs" / "gpu-burst.sh"


def _burst(out: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the script with ``env`` added, its results under ``out``."""
    return subprocess.run(["bash", str(SCRIPT)], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PY": sys.executable, "OUT": str(out), **env})


def test_the_match_part_logs_every_finished_game_and_sums_them_up_in_the_report(tmp_path: Path) -> None:
    done = _burst(tmp_path, PARTS="match", MATCH_LEVEL="policy", MATCH_JOBS="2", MATCH_SECONDS="200")
    lines = [json.loads(line) for line in (tmp_path / "match.jsonl").read_text().splitlines()]
    assert [line["number"] for line in sorted(lines, key=lambda line: line["number"])] == [1, 2]
    assert {line["black"] for line in lines} == {"A", "B"}  # colours alternate by game number
    versions = lines[0]["versions"]
    assert "golois-score-b12c128.pt sha256:" in versions["A"] and "policy.pt sha256:" in versions["B"]
    report = (tmp_path / "report.txt").read_text()
    assert "match: 2 of 2 games finished in 200s (A golois-score-b12c128, B golois-score)" in report
    assert "games 2: wins A" in report and "games 2: wins A" in done.stdout
    assert "match: exit" not in report


def test_a_match_cut_by_its_time_limit_says_how_many_games_did_not_finish(tmp_path: Path) -> None:
    _burst(tmp_path, PARTS="match", MATCH_LEVEL="mcts-2s", MATCH_JOBS="2", MATCH_SECONDS="4")
    report = (tmp_path / "report.txt").read_text()
    assert "match: exit 124" in report  # timeout's status: the match was stopped
    assert "match: 0 of 2 games finished in 4s" in report
    assert (tmp_path / "match.jsonl").read_text() == ""


def _tree_to_shrink(root: Path, weights_mib: int) -> None:
    """A git repository with the prepare script, weights of ``weights_mib`` MiB each, a training
    state, and packed/ already built (so that prepare packs and downloads nothing)."""
    (root / "docs").mkdir()
    (root / "docs" / "gpu-prepare.sh").write_text((ROOT / "docs" / "gpu-prepare.sh").read_text())
    (root / ".gitignore").write_text("/packed/\n")
    (root / "weights" / "training").mkdir(parents=True)
    for name in ("policy.pt", "golois-score-b12c128.pt", "tk-cnn3.pt", "training/golois-score-b12c128.pt"):
        (root / "weights" / name).write_bytes(bytes(weights_mib << 20))  # only the size counts
    for name in ("train.pack.npz", "validation.pack.npz", "wheels/sgfmill-1.1.1-py3-none-any.whl",
                 "zip/2011-12.zip"):
        (root / "packed" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "packed" / name).write_bytes(b"x" * 1024)
    commit = ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"]
    for command in (["init", "-q"], ["add", "-A"], commit):
        subprocess.run(["git", *command], cwd=root, check=True)


def _prepare(root: Path, step: str, stash: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "docs/gpu-prepare.sh", step], cwd=root, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "STASH": str(stash), "PY": sys.executable})


def test_prepare_leaves_only_the_kept_weights_in_the_tree_and_restore_puts_the_rest_back(
        tmp_path: Path) -> None:
    root, stash = tmp_path / "repo", tmp_path / "stash"
    root.mkdir()
    _tree_to_shrink(root, 2)
    prepared = _prepare(root, "prepare", stash)
    assert prepared.returncode == 0, prepared.stderr
    assert sorted(p.name for p in (root / "weights").glob("*.pt")) == ["golois-score-b12c128.pt", "policy.pt"]
    assert not list((root / "weights" / "training").iterdir())
    assert "the tree that travels: 4 MiB of 64" in prepared.stdout
    restored = _prepare(root, "restore", stash)
    assert restored.returncode == 0, restored.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True)
    assert status.stdout == ""
    assert not stash.exists()


def test_prepare_fails_when_the_kept_tree_is_still_over_the_calls_limit(tmp_path: Path) -> None:
    root, stash = tmp_path / "repo", tmp_path / "stash"
    root.mkdir()
    _tree_to_shrink(root, 33)  # the two kept files alone: 66 MiB
    prepared = _prepare(root, "prepare", stash)
    assert prepared.returncode == 1 and "over the limit" in prepared.stderr
    assert "the tree that travels: 66 MiB of 64" in prepared.stdout
