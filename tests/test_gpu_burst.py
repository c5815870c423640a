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
