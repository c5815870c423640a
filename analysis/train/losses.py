"""The multi-task loss of a training batch: every head the network has, against every target the
batch has (NaN or -1 marks a target a sample lacks; a head with no target in the batch adds 0).

=================  ========================================================  =====================
head               loss                                                      weight (TrainConfig)
=================  ========================================================  =====================
policy (next)      cross entropy over the legal moves                         1
darkforest's k>1   cross entropy of each later move, summed over the steps   ``future_weight``
value              binary cross entropy against the result or the teacher    ``value_weight``
value, pairs       squared gap of a position's win chance and one minus     ``consistency_weight``
                   the next position's (the other player to move)
ownership          mean squared error per point, in -1..1                    ``ownership_weight``
score, gaussian    Gaussian negative log likelihood of the final margin      ``score_weight``
score, bins        cross entropy over the margins, one point a bin           ``score_weight``
=================  ========================================================  =====================

A network with ``score_offset`` (exact komi) is scored on the margin minus that offset: the
margin on the board alone, which its score heads predict.

The pairs' loss (the batch's ``pair``, :class:`analysis.train.batch.Batch`) asks for no result:
the player who moves and the player who answers should judge the game alike.  It is what the raw
value's zigzag with the player to move measures (``python -m analysis.bench score``).  Centered
(``consistency_centered``), it leaves out the batch's mean gap: the edge of having the move,
which the targets carry (the teacher gives the mover 0.52), stays free, and only a gap that
varies from position to position is penalised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import nn

from analysis.nets import precision
from analysis.nets.layers import SCORE_BINS, SCORE_SCALE

if TYPE_CHECKING:
    from analysis.train.loop import TrainConfig


class AllHeads(nn.Module):
    """Wraps a network so that calling it returns every head by name (its ``forward_all``):
    what DistributedDataParallel needs to see, since it only wraps ``forward``."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor, legal: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """(N, in_planes, H, W), legal (N, H*W + 1) -> the network's heads by name."""
        return self.net.forward_all(x, legal)


def _step_loss(logits: torch.Tensor, moves: torch.Tensor) -> torch.Tensor:
    """Mean cross entropy of (N, A) ``logits`` against (N,) ``moves``, over the known ones (-1: none).

    Returns 0 when no move is known (every game of the batch ended before this step).
    """
    known = (moves >= 0).sum().clamp(min=1)
    return F.cross_entropy(logits, moves, ignore_index=-1, reduction="sum") / known


def _known(target: torch.Tensor) -> torch.Tensor:
    """The rows of ``target`` (N,) or (N, ...) that are known (no NaN)."""
    return ~torch.isnan(target) if target.dim() == 1 else ~torch.isnan(target).any(dim=1)


def _masked_mean(values: torch.Tensor, known: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Return (the mean of ``values`` (N,) over the ``known`` rows, 0 when none is: what the loss
    adds; the same mean, NaN when none is known: the part reported)."""
    count = known.sum()
    mean = torch.where(known, values, 0.0).sum() / count.clamp(min=1)
    return mean, torch.where(count > 0, mean, torch.nan).detach()


def _policy_losses(out: dict, moves: torch.Tensor, cfg: TrainConfig, parts: dict) -> torch.Tensor:
    policy = out["policy"].float()
    total = F.cross_entropy(policy[:, 0], moves[:, 0], ignore_index=-1)
    known = moves[:, 0] >= 0
    hits = (policy[:, 0].argmax(1) == moves[:, 0]) & known
    parts.update(policy=total.detach(), acc=(hits.sum() / known.sum().clamp(min=1)).detach())
    if policy.shape[1] > 1:
        future = sum(_step_loss(policy[:, k], moves[:, k]) for k in range(1, policy.shape[1]))
        total = total + cfg.future_weight * future
        parts["future"] = future.detach()
    return total


def _value_losses(out: dict, value: torch.Tensor, pair: torch.Tensor | None, cfg: TrainConfig,
                  parts: dict) -> torch.Tensor:
    """The value head's loss against the known results, and the pairs' consistency loss."""
    logits = out["value"].float()
    known = _known(value)
    bce = F.binary_cross_entropy_with_logits(logits, torch.where(known, value, 0.0), reduction="none")
    v, parts["value"] = _masked_mean(bce, known)
    total = cfg.value_weight * v
    if pair is not None and cfg.consistency_weight:
        paired = pair >= 0
        win = torch.sigmoid(logits)
        gap = win + win[pair.clamp(min=0)] - 1
        if cfg.consistency_centered:
            gap = gap - _masked_mean(gap, paired)[0].detach()
        c, parts["consistency"] = _masked_mean(gap * gap, paired)
        total = total + cfg.consistency_weight * c
    return total


def _score_losses(out: dict, score: torch.Tensor, cfg: TrainConfig, parts: dict) -> torch.Tensor:
    """The score heads' losses against the known final margins."""
    total = torch.zeros((), device=score.device)
    known = _known(score)
    margin = torch.where(known, score, 0.0)
    if "score_offset" in out:
        margin = margin - out["score_offset"]
    if "score_gaussian" in out:
        mean, log_std = out["score_gaussian"].float().unbind(1)
        std = SCORE_SCALE * torch.exp(log_std)
        nll = F.gaussian_nll_loss(SCORE_SCALE * mean, margin, (std * std).clamp(min=0.25), reduction="none")
        g, parts["score_nll"] = _masked_mean(nll, known)
        total = total + cfg.score_weight * g
    if "score_logits" in out:
        bins = (margin.round().clamp(-SCORE_BINS, SCORE_BINS) + SCORE_BINS).long()
        ce = F.cross_entropy(out["score_logits"].float(), bins, reduction="none")
        b, parts["score_bins"] = _masked_mean(ce, known)
        total = total + cfg.score_weight * b
    return total


def _head_losses(out: dict, batch: dict, cfg: TrainConfig, parts: dict) -> torch.Tensor:
    """The value, ownership and score losses, on the samples that have each target (the parts of
    a head none of whose targets the batch has are NaN, and add nothing)."""
    dev = out["policy"].device
    total = torch.zeros((), device=dev)
    value, score, ownership = (batch[k].to(dev, non_blocking=True) for k in ("value", "score", "ownership"))
    if "value" in out:
        pair = batch.get("pair")  # a batch without pairs has none
        total = total + _value_losses(out, value, None if pair is None else pair.to(dev), cfg, parts)
    if "ownership" in out:
        known = _known(ownership)
        squares = (out["ownership"].float() - torch.where(known[:, None], ownership, 0.0)) ** 2
        o, parts["ownership"] = _masked_mean(squares.mean(dim=1), known)
        total = total + cfg.ownership_weight * o
    return total + _score_losses(out, score, cfg, parts)


def losses(
    model: nn.Module, batch: dict, cfg: TrainConfig, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, dict]:
    """Return (total loss, parts) of a batch for ``model`` (an :class:`AllHeads`), computed in ``dtype``.

    The parts are 0-d tensors on the model's device, detached, each computed here into memory of
    its own (never one of the model's outputs, which a compiled model replaying CUDA graphs
    overwrites at its next step): reading them waits for the device, so the training loop keeps
    them and reads them only now and then (:func:`parts_as_floats`).  Nothing here
    waits for the device, so a GPU runs ahead of the Python that feeds it.

    ``batch`` holds tensors by name as :meth:`analysis.train.batch.Batch.tensors` gives them, on
    any device: they are moved to the model's.
    """
    dev = precision.device_of(model)
    inputs, legal = (batch[k].to(dev, non_blocking=True) for k in ("inputs", "legal"))
    with precision.autocast(dev, dtype):
        out = model(inputs, legal)
    parts: dict = {}
    total = _policy_losses(out, batch["moves"].to(dev, non_blocking=True), cfg, parts)
    return total + _head_losses(out, batch, cfg, parts), parts


def parts_as_floats(parts: list[dict]) -> list[dict[str, float]]:
    """Return the loss parts of several steps as floats, read from the device at once."""
    if not parts:
        return []
    names = [list(p) for p in parts]
    values = torch.stack([v.float() for p in parts for v in p.values()]).tolist()
    out, i = [], 0
    for keys in names:
        out.append(dict(zip(keys, values[i : i + len(keys)], strict=True)))
        i += len(keys)
    return out
