"""Starting a new network from a trained one (``--init-from``): every weight that fits is copied.

A tensor is copied when the new network has one of the same name and shape.  A convolution that
now takes more input planes (new features appended to the set, such as the komi plane) keeps its
trained weights for the old planes and starts with zero weights for the new ones, so the new
network computes exactly what the old one did until training moves those weights.  New heads
start from their random initialisation.
"""

from __future__ import annotations

import torch
from torch import nn


def transplant(model: nn.Module, state: dict[str, torch.Tensor]) -> dict[str, list[str]]:
    """Copy the fitting tensors of ``state`` (a state dict) into ``model``; return the names
    ``copied``, ``widened`` (more input planes, the new ones zero) and ``fresh`` (left as initialised).
    """
    report: dict[str, list[str]] = {"copied": [], "widened": [], "fresh": []}
    own = model.state_dict()
    with torch.no_grad():
        for name, tensor in own.items():
            old = state.get(name)
            if old is not None and old.shape == tensor.shape:
                tensor.copy_(old)
                report["copied"].append(name)
            elif old is not None and _widened(old, tensor):
                tensor.zero_()
                tensor[:, : old.shape[1]] = old
                report["widened"].append(name)
            else:
                report["fresh"].append(name)
    return report


def _widened(old: torch.Tensor, new: torch.Tensor) -> bool:
    """Whether ``new`` is ``old`` with more input channels (dimension 1) and nothing else changed."""
    return (old.dim() == new.dim() >= 2 and old.shape[0] == new.shape[0] and old.shape[1] < new.shape[1]
            and old.shape[2:] == new.shape[2:])
