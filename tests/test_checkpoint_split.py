"""Checkpoints larger than 16 MiB are split into files of at most that size, and load whole."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from analysis.nets import checkpoint
from analysis.nets.checkpoint import CheckpointError, write
from analysis.nets.fingerprint import DIGITS, fingerprint
from analysis.train.loop import train
from tests.test_train import games, short_run  # noqa: F401  (games: the fixture of a few games)


def state(weights: int = 5000, moments: int = 3000) -> dict:
    torch.manual_seed(0)
    return {"format": checkpoint.FORMAT, "preset": "p", "config": {"kind": "x"},
            "model": {"w": torch.randn(weights)}, "optimizer": {"m": torch.randn(moments)},
            "average": {"params": {"w": torch.randn(weights)}}, "samples": 7}


def test_a_large_state_is_split_into_files_of_at_most_the_limit_and_loads_whole(tmp_path: Path) -> None:
    files = write(tmp_path / "last.pt", state(), max_bytes=8000)
    assert all(f.stat().st_size <= 8000 for f in files)
    fields = {f.name.split(".")[2].split("-")[0] for f in files[1:]}
    assert fields == {"weights", "optimizer", "average"} and len(files) > 4  # the weights need parts
    loaded = checkpoint.load(tmp_path / "last.pt")
    expected = state()
    assert loaded.keys() == expected.keys() and loaded["samples"] == 7
    assert torch.equal(loaded["model"]["w"], expected["model"]["w"])
    assert torch.equal(loaded["average"]["params"]["w"], expected["average"]["params"]["w"])
    assert torch.equal(loaded["optimizer"]["m"], expected["optimizer"]["m"])


def test_a_saved_state_replaces_the_parts_of_the_one_before(tmp_path: Path) -> None:
    write(tmp_path / "last.pt", state(), max_bytes=8000)
    bigger = state(8000)
    write(tmp_path / "last.pt", bigger, max_bytes=8000)
    parts = sorted(p.name for p in tmp_path.glob("last.pt.*.part"))
    assert len(parts) == len(write(tmp_path / "last.pt", bigger, max_bytes=8000)) - 1
    assert torch.equal(checkpoint.load(tmp_path / "last.pt")["model"]["w"], bigger["model"]["w"])
    write(tmp_path / "last.pt", state(10, 10), max_bytes=8000)  # small enough for one file
    assert list(tmp_path.glob("last.pt.*.part")) == []


def test_a_split_state_with_a_part_missing_or_changed_is_refused(tmp_path: Path) -> None:
    files = write(tmp_path / "last.pt", state(), max_bytes=8000)
    files[2].write_bytes(files[2].read_bytes()[::-1])
    with pytest.raises(CheckpointError, match="not the one it was saved with"):
        checkpoint.load(tmp_path / "last.pt")
    files[2].unlink()
    with pytest.raises(CheckpointError, match="missing"):
        checkpoint.load(tmp_path / "last.pt")


def test_a_run_saves_a_split_state_and_resumes_from_it(tmp_path: Path, games: Path, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setattr(checkpoint, "MAX_FILE_BYTES", 64 * 1024)
    train(replace(short_run(tmp_path, games, "first", None, 32), average_decay=0.5))
    assert list((tmp_path / "first").glob("last.pt.optimizer-*.part"))
    assert all(f.stat().st_size <= 64 * 1024 for f in (tmp_path / "first").iterdir())
    saved = checkpoint.load(tmp_path / "first" / "last.pt")
    assert saved["samples"] == 32 and "average" in saved and "optimizer" in saved
    resumed = short_run(tmp_path, games, "next", str(tmp_path / "first" / "last.pt"), 48)
    train(replace(resumed, average_decay=0.5))
    assert checkpoint.load(tmp_path / "next" / "last.pt")["samples"] == 48


def test_a_fingerprint_names_the_weights_whatever_the_file_and_covers_a_split_states_parts(
        tmp_path: Path) -> None:
    one, two, other = (tmp_path / d / "last.pt" for d in ("one", "two", "other"))
    for path, weights in ((one, 5000), (two, 5000), (other, 5001)):
        path.parent.mkdir()
        write(path, state(weights), max_bytes=8000)
    assert fingerprint(one) == fingerprint(two)
    assert fingerprint(one) != fingerprint(other)  # the index holds each part's digest
    assert len(fingerprint(one)) == len("sha256:") + DIGITS
    with pytest.raises(OSError):
        fingerprint(tmp_path / "missing.pt")
