"""The network compiled for training: torch.compile's modes from the command line to the step, and
steps compiled in ``reduce-overhead`` mode (CUDA graphs on a GPU) against eager ones.

The compiled tests need the C++ compiler torch.compile's CPU code is built with, and are skipped
without one; ``tests/test_gpu.py`` runs the same comparison on CUDA, where the steps are graphs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from analysis.bench.train_pipeline import random_batch
from analysis.features import get_feature_set
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.train import __main__ as train_cli
from analysis.train.loop import COMPILE_MODES, GRAPH_MODES, TrainConfig, captures_graphs, train_step, trainer
from analysis.train.losses import losses, parts_as_floats
from tests.test_train import games  # noqa: F401  (the fixture of a few training games)

CPU = torch.device("cpu")
# one residual block of every head: the parts of every loss, compiled in seconds
ALL_HEADS = GoloisConfig(get_feature_set("golois-komi").num_planes, 1, 8, "golois-komi", value_head=True,
                         ownership_head=True, score_head="both", exact_komi=True)


def has_cpu_compiler() -> bool:
    """Whether torch.compile finds the C++ compiler it builds CPU code with."""
    try:
        from torch._inductor import cpp_builder

        cpp_builder.get_cpp_compiler()
    except Exception:  # none on this machine (or a torch that finds it elsewhere)
        return False
    return True


needs_compiler = pytest.mark.skipif(not has_cpu_compiler(), reason="torch.compile needs a C++ compiler")


def step_config(**options: object) -> TrainConfig:
    """A configuration of 16-sample steps with every loss on (the value pairs' consistency too)."""
    return TrainConfig(preset="", data=[], batch_size=16, consistency_weight=1.0, **options)


def paired_batches(count: int, size: int, device: torch.device) -> list[dict]:
    """``count`` random batches of ``size`` samples for :data:`ALL_HEADS` on ``device``, each in
    memory of its own, their samples paired two by two (0 with 1, 2 with 3...)."""
    torch.manual_seed(1)
    pair = torch.arange(size) ^ 1
    return [{**random_batch(ALL_HEADS, size, device), "pair": pair.to(device)} for _ in range(count)]


def steps_read_and_kept(cfg: TrainConfig, device: torch.device, dtype: torch.dtype = torch.float32,
                        steps: int = 4) -> tuple[list[dict], list[dict]]:
    """Train a fresh :data:`ALL_HEADS` net (the same at every call) ``steps`` SGD steps on as many
    batches, as ``cfg`` says, on ``device`` in ``dtype``; return (each step's loss parts read
    right after it, the same parts kept and read after the last step)."""
    torch.manual_seed(0)
    model = GoloisNet(ALL_HEADS).to(device).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    net = trainer(model, cfg, device, distributed=False)
    read, kept = [], []
    for batch in paired_batches(steps, cfg.batch_size, device):
        parts = train_step(net, optimizer, batch, cfg, dtype)
        read.append(parts_as_floats([parts])[0])
        kept.append(parts)
    return read, parts_as_floats(kept)


def assert_same_losses(steps: list[dict], expected: list[dict], rel: float, batch: int) -> None:
    """Each step's loss parts as ``expected``'s within ``rel``; the accuracy within one sample of
    ``batch`` (an argmax turns on a near tie)."""
    assert [list(s) for s in steps] == [list(e) for e in expected]
    for step, want in zip(steps, expected, strict=True):
        for name, value in step.items():
            tolerance = {"abs": 1.01 / batch} if name == "acc" else {"rel": rel, "abs": 1e-6}
            assert value == pytest.approx(want[name], **tolerance), (name, step, want)


def parsed(argv: list[str], monkeypatch) -> TrainConfig:
    """The configuration ``python -m analysis.train`` trains with for ``argv`` (training itself left out)."""
    configs: list[TrainConfig] = []
    monkeypatch.setattr(train_cli, "train", lambda cfg: configs.append(cfg) or {})
    assert train_cli.main(["--data", "games", *argv]) == 0
    return configs[0]


def test_a_compile_mode_on_the_command_line_compiles_the_network_in_that_mode(monkeypatch) -> None:
    graphs = parsed(["--compile-mode", "reduce-overhead"], monkeypatch)
    assert (graphs.compile, graphs.compile_mode) == (True, "reduce-overhead")
    plain = parsed(["--compile"], monkeypatch)
    assert (plain.compile, plain.compile_mode) == (True, "default")
    eager = parsed([], monkeypatch)
    assert (eager.compile, eager.compile_mode) == (False, "default")


def test_an_unknown_compile_mode_is_refused_on_the_command_line_and_in_the_config(capsys) -> None:
    with pytest.raises(SystemExit) as exit_info:
        train_cli.main(["--data", "games", "--compile-mode", "graphs"])
    assert exit_info.value.code == 2
    assert "--compile-mode: invalid choice: 'graphs'" in capsys.readouterr().err
    unknown = step_config(compile=True, compile_mode="graphs")
    with pytest.raises(ValueError, match="unknown compile mode 'graphs'; use one of default, "):
        trainer(GoloisNet(ALL_HEADS), unknown, CPU, distributed=False)


def test_the_modes_are_torch_compiles_and_the_graph_modes_those_that_capture_cuda_graphs() -> None:
    from torch._inductor import list_mode_options  # what torch.compile's docstring points to

    assert [m for m in COMPILE_MODES if list_mode_options(m).get("triton.cudagraphs")] == list(GRAPH_MODES)
    assert [captures_graphs(step_config(compile=True, compile_mode=m)) for m in COMPILE_MODES] == [
        False, True, True, False]
    assert not captures_graphs(step_config(compile_mode="reduce-overhead"))  # not compiled at all


class _Recording(nn.Module):
    """A network whose calls keep its last outputs."""

    def __init__(self, net: GoloisNet) -> None:
        super().__init__()
        self.net, self.outputs = net, {}

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        self.outputs = self.net.forward_all(x, legal)
        return self.outputs


def test_the_loss_parts_are_tensors_of_their_own_never_the_networks_outputs() -> None:
    # What keeps them valid across steps replayed as CUDA graphs, whose outputs the next step overwrites.
    net = _Recording(GoloisNet(ALL_HEADS).train())
    _, parts = losses(net, paired_batches(1, 16, CPU)[0], step_config())
    assert set(parts) == {"policy", "acc", "value", "consistency", "ownership", "score_nll", "score_bins"}
    outputs = {t.untyped_storage().data_ptr() for t in net.outputs.values()}
    assert set(net.outputs) == {"policy", "value", "ownership", "score_gaussian", "score_logits",
                                "score_offset"}
    assert not outputs & {p.untyped_storage().data_ptr() for p in parts.values()}


def test_the_step_marks_a_new_cuda_graph_step_only_in_the_modes_that_capture_graphs(monkeypatch) -> None:
    marks: list[None] = []
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", lambda: marks.append(None))
    model = GoloisNet(ALL_HEADS).train()
    net = trainer(model, step_config(), CPU, distributed=False)  # eager: train_step reads the mode off cfg
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    batch = paired_batches(1, 16, CPU)[0]
    for cfg in (step_config(), step_config(compile=True),
                step_config(compile=True, compile_mode="reduce-overhead"),
                step_config(compile=True, compile_mode="max-autotune-no-cudagraphs")):
        train_step(net, optimizer, batch, cfg, torch.float32)
    assert len(marks) == 1


@needs_compiler
def test_steps_compiled_in_reduce_overhead_mode_give_the_eager_steps_losses_on_the_cpu() -> None:
    eager, _ = steps_read_and_kept(step_config(), CPU)
    read, kept = steps_read_and_kept(step_config(compile=True, compile_mode="reduce-overhead"), CPU)
    assert kept == read
    assert_same_losses(read, eager, rel=1e-4, batch=16)


@needs_compiler
def test_a_run_with_compile_mode_reduce_overhead_trains_on_the_cpu(tmp_path: Path, games: Path,  # noqa: F811
                                                                  monkeypatch) -> None:
    modes, marks = [], []
    real_compile = torch.compile

    def compile_spy(model: nn.Module, **options: object) -> nn.Module:
        modes.append(options.get("mode"))
        return real_compile(model, **options)

    monkeypatch.setattr(torch, "compile", compile_spy)
    real_mark = torch.compiler.cudagraph_mark_step_begin
    monkeypatch.setattr(torch.compiler, "cudagraph_mark_step_begin", lambda: marks.append(real_mark()))
    assert train_cli.main(["--preset", "golois-b4c48", "--data", str(games), "--run-dir",
                           str(tmp_path / "run"), "--batch-size", "16", "--max-samples", "32", "--workers",
                           "0", "--quiet", "--device", "cpu", "--dtype", "float32",
                           "--compile-mode", "reduce-overhead"]) == 0
    assert modes == ["reduce-overhead"] and len(marks) == 2  # one new graph step per training step
    state = checkpoint.load(tmp_path / "run" / "last.pt")
    assert state["samples"] == 32
    assert all(torch.isfinite(v).all() for v in state["model"].values() if v.is_floating_point())
