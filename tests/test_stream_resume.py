"""A run stopped and resumed trains as if it had never stopped: the samplers save where they stand,
the loop saves its data stream's place and the steps its schedule has not seen, and a resumed run
goes on with the very batches, rates and weights of the run that was not stopped."""

from __future__ import annotations

import io
import pickle
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.nets import checkpoint
from analysis.train.data import PositionSampler, fixed_positions
from analysis.train.example_sampler import ExampleSampler
from analysis.train.loop import TrainConfig, _Progress, _Steps, train
from analysis.train.pack import pack
from analysis.train.schedule import PlateauHalving
from analysis.train.sources import GameCursor, training_games_at
from analysis.train.stream import StreamPlace, StreamStart, stream_options, stream_start
from analysis.train.teacher import TeacherSampler
from tests.test_pack import assert_same_batches, month  # noqa: F401  (a month's zip of every kind of game)
from tests.test_train import MOVES, game

VARIANTS = [MOVES, MOVES[::-1], MOVES[1:] + MOVES[:1], MOVES[2:] + MOVES[:2]]


@pytest.fixture
def taught(tmp_path: Path) -> Path:
    """Two months of four games each (``train/2010-0N.zip``) and ``labels.npz``: three labelled
    positions of every game, Black owning a half of the board that depends on the game."""
    folder = tmp_path / "train"
    folder.mkdir()
    rows: dict[str, list] = {"month": [], "game": [], "turn": [], "winrate_black": [], "score_lead_black": [],
                             "ownership_black": []}
    for m in (1, 2):
        with zipfile.ZipFile(folder / f"2010-0{m}.zip", "w") as archive:
            for g, moves in enumerate(VARIANTS):
                archive.writestr(f"{g}.sgf", game("B+R" if g % 2 else "W+2.5", moves))
                for turn in (2, 5, 9):
                    rows["month"].append(f"2010-0{m}")
                    rows["game"].append(f"{g}.sgf")
                    rows["turn"].append(turn)
                    rows["winrate_black"].append(0.1 * (turn + g))
                    rows["score_lead_black"].append(turn - g - m)
                    rows["ownership_black"].append(np.where(np.arange(361) % 19 < 4 + g + m, 127, -127))
    np.savez(tmp_path / "labels.npz", month=np.array(rows["month"]), game=np.array(rows["game"]),
             turn=np.array(rows["turn"], dtype=np.int16),
             winrate_black=np.array(rows["winrate_black"], dtype=np.float16),
             score_lead_black=np.array(rows["score_lead_black"], dtype=np.float16),
             ownership_black=np.stack(rows["ownership_black"]).astype(np.int8))
    return tmp_path


def through_checkpoint(state: dict) -> dict:
    """``state`` as a checkpoint gives it back (torch.save, then a weights-only load)."""
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


@pytest.mark.parametrize("packed", [False, True])
def test_a_position_sampler_restored_from_its_state_gives_the_samples_it_would_have(
        month: Path, tmp_path: Path, packed: bool) -> None:  # noqa: F811
    source = str(month)
    if packed:
        source = str(tmp_path / "month.pack.npz")
        pack([str(month)], source)
    options = {"seed": 5, "pool_size": 3, "shuffle_buffer": 2, "value_rate": 0.5, "record_ownership": True,
               "paired": True, "future_moves": 2}
    running = PositionSampler([source], **options)
    for _ in range(7):  # several passes over the month's five playable games
        running.batch(5)
    state = through_checkpoint(running.state())
    restored = PositionSampler([source], **{**options, "seed": 99})
    restored.restore(state)
    assert_same_batches(running, restored, 10, 5)


def test_a_teacher_sampler_restored_from_its_state_gives_the_samples_it_would_have(taught: Path) -> None:
    options = {"seed": 2, "komi_jitter": 0.5, "shuffle_buffer": 5}
    running = TeacherSampler(taught / "labels.npz", taught / "train", **options)
    for _ in range(9):  # two passes over the 24 labelled positions, and into a third
        running.batch(6)
    state = through_checkpoint(running.state())
    restored = TeacherSampler(taught / "labels.npz", taught / "train", **{**options, "seed": 7})
    restored.restore(state)
    assert_same_batches(running, restored, 8, 6)


def test_an_example_sampler_restored_from_its_state_gives_the_samples_it_would_have(month: Path) -> None:  # noqa: F811
    examples = fixed_positions([str(month)], 10, seed=1)
    running = ExampleSampler(examples, "golois", seed=4)
    running.batch(len(examples) + 2)  # into its second epoch
    restored = ExampleSampler(examples, "golois", seed=8)
    restored.restore(through_checkpoint(running.state()))
    assert_same_batches(running, restored, 5, 3)


def test_a_game_cursor_goes_on_from_its_place_and_games_are_found_by_ordinal(month: Path) -> None:  # noqa: F811
    cursor = iter(GameCursor([str(month)]))
    seen = [next(cursor) for _ in range(8)]  # five games a pass: into the second
    ordinals = [ordinal for ordinal, _ in seen]
    assert ordinals == [0, 1, 2, 3, 4, 0, 1, 2]
    assert [g.game_id for _, g in seen[5:]] == [g.game_id for _, g in seen[:3]]
    again = GameCursor([str(month)], passes=1, position=3)
    assert [(o, g.game_id) for o, g in (next(iter(again)),)] == [(3, seen[3][1].game_id)]
    found = training_games_at([str(month)], [4, 0])
    assert found[4].game_id == seen[4][1].game_id and found[0].game_id == seen[0][1].game_id
    with pytest.raises(ValueError, match="no game 5"):
        training_games_at([str(month)], [5])


def test_the_steps_a_schedule_has_not_seen_are_saved_so_a_resumed_run_halves_at_the_same_samples() -> None:
    def schedule() -> PlateauHalving:
        return PlateauHalving(rate=1.0, step_samples=32, window=1, patience=0, threshold=1.0)

    def run(steps: _Steps, losses: list[float], start: int) -> list[float]:
        rates = []
        for i, loss in enumerate(losses):
            steps.add({"policy": torch.tensor(loss), "acc": torch.tensor(0.5)}, 16, start + 16 * (i + 1))
            rates.append(steps.schedule.rate)
        return rates

    losses = [3.0, 2.9, 2.8, 2.9, 3.1, 2.7, 2.6, 2.6, 2.5]
    quiet = _Progress(None, 16, show=False)
    never_stopped = run(_Steps(schedule(), quiet, float), losses, 0)
    first = _Steps(schedule(), quiet, float)
    rates = run(first, losses[:5], 0)  # stops half way through a schedule step
    saved = through_checkpoint({"schedule": first.schedule.state_dict(), "pending": first.state()})
    resumed = _Steps(PlateauHalving.from_state(saved["schedule"]), quiet, float, saved["pending"])
    rates += run(resumed, losses[5:], 80)
    assert rates == never_stopped and never_stopped[-1] < 1.0


def short_run(tmp_path: Path, data: Path, name: str, samples: int, **options) -> TrainConfig:
    resume = options.pop("resume", None)
    base = {"preset": "golois-b4c48", "batch_size": 16, "workers": 0, "progress": False, "seed": 11,
            "dtype": "float32", "validate_every": 32}
    return TrainConfig(data=[str(data)], run_dir=str(tmp_path / name), max_samples=samples,
                       resume=str(tmp_path / resume / "last.pt") if resume else None, **{**base, **options})


def assert_same_state(a: dict, b: dict) -> None:
    assert a["samples"] == b["samples"]
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key
    for key, state in a["optimizer"]["state"].items():
        for name, value in state.items():
            assert torch.equal(value, b["optimizer"]["state"][key][name]), (key, name)
    if "average" in a:
        for name, value in a["average"]["params"].items():
            assert torch.equal(value, b["average"]["params"][name]), name
    assert a["schedule"] == b["schedule"]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_run_stopped_and_resumed_trains_the_weights_of_a_run_never_stopped(
        tmp_path: Path, month: Path, workers: int) -> None:  # noqa: F811
    options = {"workers": workers, "average_decay": 0.5, "consistency_weight": 1.0, "value_rate": 0.5,
               "validation": [str(month)], "validation_positions": 4}
    train(short_run(tmp_path, month, "whole", 80, **options))
    train(short_run(tmp_path, month, "half", 48, **options))  # three batches: the second worker's next
    train(short_run(tmp_path, month, "rest", 80, resume="half", **options))
    whole, rest = (checkpoint.load(tmp_path / name / "last.pt") for name in ("whole", "rest"))
    assert_same_state(rest, whole)
    assert rest["stream"] == whole["stream"] and whole["stream"][0]["next"] == (5 % 2 if workers else 0)


def test_a_run_with_teacher_labels_resumes_exactly(tmp_path: Path, taught: Path) -> None:
    options = {"teacher": str(taught / "labels.npz"), "teacher_archives": str(taught / "train"),
               "teacher_fraction": 0.5}
    data = taught / "train" / "2010-01.zip"
    small = {"preset": "golois-score-b6c64", "batch_size": 8}
    train(replace(short_run(tmp_path, data, "whole", 40, **options), **small))
    train(replace(short_run(tmp_path, data, "half", 16, **options), **small))
    train(replace(short_run(tmp_path, data, "rest", 40, resume="half", **options), **small))
    rest, whole = (checkpoint.load(tmp_path / name / "last.pt") for name in ("rest", "whole"))
    assert_same_state(rest, whole)


def test_a_stream_goes_on_only_with_the_options_processes_and_sources_it_was_saved_with(
        tmp_path: Path) -> None:
    (tmp_path / "a.sgf").write_text(game("B+R"))
    cfg = TrainConfig(preset="golois-b4c48", data=[str(tmp_path)], workers=2, seed=3)
    place = StreamPlace(StreamStart(seed=40, workers=2), stream_options(cfg))
    place.took({"stream": {"worker": 0, "state": pickle.dumps({"general": "zero's"})}})
    saved = [place.saved()]
    start, why = stream_start(cfg, stream_options(cfg), saved, rank=0, world=1, samples=128)
    assert why is None and (start.seed, start.first, start.states) == (40, 1, [{"general": "zero's"}, None])
    other = replace(cfg, batch_size=64, workers=3)
    start, why = stream_start(other, stream_options(other), saved, rank=0, world=1, samples=128)
    assert why == "the run's data options changed (batch_size, workers)"
    assert (start.seed, start.workers, start.states) == (3 + 128, 3, [None] * 3)
    _, why = stream_start(cfg, stream_options(cfg), saved, rank=0, world=2, samples=128)
    assert why == "the state's stream was read by 1 processes, this run has 2"
    _, why = stream_start(cfg, stream_options(cfg), None, rank=0, world=1, samples=128)
    assert why == "the resumed state has no stream to go on with"
    assert stream_start(cfg, stream_options(cfg), None, rank=0, world=1, samples=0)[1] is None
    (tmp_path / "b.sgf").write_text(game("W+R"))
    _, why = stream_start(cfg, stream_options(cfg), saved, rank=0, world=1, samples=128)
    assert why == "the run's data options changed (data)"
