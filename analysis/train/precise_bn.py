"""Batch-norm statistics recomputed on fixed training positions (a "precise BN" pass).

A batch norm keeps a running average of its input's mean and variance over about the last ten
training steps, and the network in evaluation mode normalises with that average.  Where a layer's
output moves fast, the average lags behind it and the evaluation-mode network reads its features
off centre: the deepened default net's new blocks grow from zero on a shifted input, and their
running means sat 0.5 to 0.95 standard deviations off, for a value log loss of 0.86 in
evaluation mode against 0.63 with each batch's own statistics (MODEL_CARD,
``golois-score-b12c64``).  Recomputing the statistics over a fixed set of ordinary training
positions, with the weights as they are, removes the lag; the training validates and saves with
them.  The training itself normalises with each batch's statistics and is not changed.

A channel that none of the positions wakes (a ReLU's output, always 0 on them) gets a variance of
0, and evaluation mode would then multiply it by its scale over the square root of the batch
norm's epsilon, up to 200 times in the deepened net: the rare position that wakes it blew up
(certain of a move at T1 on one of the 5,000 validation positions, at 2.38M samples).  A channel
that one position in the thousand wakes faintly is as dangerous: the widened default's average had
two at a millionth of their layer's median (gains of 205 and 226), and one validation position
grew to 8,550 through its last two blocks (the move played got a probability of 0).  So a
silent channel (variance under ``SILENT`` of its layer's median) gets ``VAR_FLOOR`` of that
median instead; channels that are quiet but live keep theirs (flooring every channel under a
hundredth cost darkforest's net 2.6 points of top-1; flooring those under a ten-thousandth, 7
channels of that average, changed no figure on the 5,000 positions but that one position's), and
the positions that do not wake a silent channel are evaluated as before.
"""

from __future__ import annotations

import torch
from torch import nn

from analysis.nets import precision

POSITIONS = 1024  # training positions the statistics are computed over
SEED = 4242  # which positions: one per game of the training data's first games, at a random move
VAR_FLOOR = 0.01  # of the layer's median channel variance: a silent channel's
SILENT = 1e-4  # of the layer's median: a channel with less is silent


class Calibration:
    """A fixed set of training positions, their input planes (N, planes, n, n) computed once, to
    recompute a model's batch-norm statistics over."""

    def __init__(self, inputs: torch.Tensor, batch: int = 128) -> None:
        self.inputs, self.batch = inputs, batch

    @torch.no_grad()
    def apply(self, model: nn.Module) -> None:
        """Replace the running mean and variance of every batch norm in ``model`` by their
        averages over the positions (each batch's statistics, as in training), in float32, the
        silent channels' variances floored (above); the model's weights, its mode and each batch
        norm's momentum are left as they were."""
        norms = _norms(model)
        if not norms or not len(self.inputs):
            return
        training, momenta = model.training, [m.momentum for m in norms]
        for norm in norms:
            norm.reset_running_stats()
            norm.momentum = None  # a plain average over the batches
        model.train()
        device = precision.device_of(model)
        for i in range(0, len(self.inputs), self.batch):
            model(self.inputs[i : i + self.batch].to(device))
        for norm, momentum in zip(norms, momenta, strict=True):
            norm.momentum = momentum
        floor_silent_channels(model)
        model.train(training)


def _norms(model: nn.Module) -> list[nn.modules.batchnorm._BatchNorm]:
    return [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]


@torch.no_grad()
def floor_silent_channels(model: nn.Module) -> int:
    """Give every silent channel of ``model``'s batch norms (running variance under ``SILENT`` of
    its layer's median) ``VAR_FLOOR`` of that median, in place; return how many there were.

    The other channels, and so every position that wakes none of the silent ones, are unchanged.
    """
    floored = 0
    for norm in _norms(model):
        median = float(norm.running_var.median())
        silent = norm.running_var < SILENT * median
        norm.running_var[silent] = VAR_FLOOR * median
        floored += int(silent.sum())
    return floored
