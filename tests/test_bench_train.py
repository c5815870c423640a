"""The train bench's pipeline figures (python -m analysis.bench train --pipeline-only), on a few games."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from analysis.bench import train_pipeline
from analysis.nets.presets import get_preset
from analysis.train.loop import TrainConfig
from analysis.train.pack import pack
from tests.test_train import games  # noqa: F401  (the fixture of a few training games)

CPU = torch.device("cpu")


def config_of(data: Path, **options: object) -> TrainConfig:
    return TrainConfig(preset="golois-b4c48", data=[str(data)], batch_size=8, **options)


def test_one_loader_process_is_timed_on_sgf_and_on_its_pack_alike(games: Path, tmp_path: Path) -> None:  # noqa: F811
    pack([str(games)], tmp_path / "g.pack.npz")
    for data in (games, tmp_path / "g.pack.npz"):
        startup, rate = train_pipeline.loader_rate(config_of(data), get_preset("golois-b4c48"), 0.2)
        assert startup > 0 and rate > 0


def test_the_step_alone_and_the_whole_loop_are_timed(games: Path) -> None:  # noqa: F811
    config, cfg = get_preset("golois-b4c48"), config_of(games, workers=0)
    assert train_pipeline.step_alone(config, cfg, CPU, torch.float32, 0.2) > 0
    rate, busy = train_pipeline.whole_loop(config, cfg, CPU, torch.float32, 0.2)
    assert rate > 0 and busy is None  # no GPU to be busy


def test_a_step_variant_that_cannot_run_is_reported_and_the_others_timed(games: Path, monkeypatch) -> None:  # noqa: F811
    real = train_pipeline.step_alone

    def without_compiler(config, cfg, device, dtype, seconds):
        if cfg.compile:
            raise RuntimeError("no C compiler")
        return real(config, cfg, device, dtype, seconds)

    monkeypatch.setattr(train_pipeline, "step_alone", without_compiler)
    config, cfg = get_preset("golois-b4c48"), config_of(games)
    rates = train_pipeline.step_variants(config, cfg, CPU, torch.float32, 0.2, ["channels_last", "compile"])
    assert rates["channels_last"] > 0 and rates["compile"] == "failed: RuntimeError: no C compiler"
    with pytest.raises(KeyError):
        train_pipeline.step_variants(config, cfg, CPU, torch.float32, 0.2, ["x"])


def test_the_graph_variants_time_the_step_compiled_in_reduce_overhead_mode(games: Path,  # noqa: F811
                                                                          monkeypatch) -> None:
    timed = []

    def recording(config, cfg, device, dtype, seconds):
        timed.append((cfg.channels_last, cfg.compile, cfg.compile_mode))
        return 1.0

    monkeypatch.setattr(train_pipeline, "step_alone", recording)
    names = ["compile", "compile_graphs", "channels_last+compile_graphs"]
    train_pipeline.step_variants(get_preset("golois-b4c48"), config_of(games), CPU, torch.float32, 0.2, names)
    assert timed == [(False, True, "default"), (False, True, "reduce-overhead"),
                     (True, True, "reduce-overhead")]


def test_the_gpus_busy_share_is_a_percentage_or_none_without_a_driver() -> None:
    busy = train_pipeline.gpu_utilization(torch.device("cuda", 0))
    if torch.cuda.is_available():
        assert busy is None or 0 <= busy <= 100
    else:
        assert busy is None


def test_a_machine_with_the_pack_alone_times_every_figure_but_the_sgf_loader(games: Path,  # noqa: F811
                                                                            tmp_path: Path) -> None:
    pack([str(games)], tmp_path / "g.pack.npz")
    figures = train_pipeline.preset_figures("golois-b4c48", 8, 0, 0.2, packed=tmp_path / "g.pack.npz",
                                            month=tmp_path / "absent.zip")
    assert figures["loader_sgf"] is None and figures["loop_reads"] == "packed"
    assert figures["loader_packed"]["samples_per_s"] > 0 and figures["step_alone"] > 0 and figures["loop"] > 0
    taught = train_pipeline.preset_figures("golois-score-b6c64", 8, 0, 0.2, packed=tmp_path / "g.pack.npz",
                                           month=tmp_path / "absent.zip")  # a pack without teacher labels
    assert taught["loop"] > 0
    with pytest.raises(FileNotFoundError):
        train_pipeline.preset_figures("golois-b4c48", 8, 0, 0.2, packed=tmp_path / "none.pack.npz",
                                      month=tmp_path / "absent.zip")
