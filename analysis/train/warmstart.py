"""Starting a new network from a trained one (``--init-from``): every weight that fits is copied.

A tensor is copied when the new network has one of the same name and shape.  A tensor that has
grown keeps its trained values in its leading slice (Net2Net's function-preserving widening):

- more input channels (dimension 1: new feature planes such as the komi plane, or a wider
  trunk): the old outputs read the new inputs with zero weights;
- more output channels (dimension 0: a wider trunk): the new outputs keep their random
  initialisation, and so do the new entries of biases and batch norms.

So the new network computes exactly what the old one did (the old channels never read the new
ones, and every head reads them with zero weights) until training moves those weights; the new
channels' activations are not zero, so the zero weights get gradients from the first step.
New heads start from their random initialisation.
"""

from __future__ import annotations

import torch
from torch import nn


def transplant(model: nn.Module, state: dict[str, torch.Tensor]) -> dict[str, list[str]]:
    """Copy the fitting tensors of ``state`` (a state dict) into ``model``; return the names
    ``copied``, ``widened`` (grown in channels, trained values kept, see the module docstring)
    and ``fresh`` (left as initialised).
    """
    report: dict[str, list[str]] = {"copied": [], "widened": [], "fresh": []}
    own = model.state_dict()
    with torch.no_grad():
        for name, tensor in own.items():
            old = state.get(name)
            if old is not None and old.shape == tensor.shape:
                tensor.copy_(old)
                report["copied"].append(name)
            elif old is not None and _grown(old, tensor):
                _widen(old, tensor)
                report["widened"].append(name)
            else:
                report["fresh"].append(name)
    return report


def _grown(old: torch.Tensor, new: torch.Tensor) -> bool:
    """Whether ``new`` is ``old`` with more channels in dimension 0 or 1 and nothing else changed."""
    if old.dim() != new.dim() or old.dim() == 0:
        return False
    channels = min(old.dim(), 2)
    return (all(o <= n for o, n in zip(old.shape[:channels], new.shape[:channels], strict=True))
            and old.shape[channels:] == new.shape[channels:])


def _widen(old: torch.Tensor, new: torch.Tensor) -> None:
    """Write ``old`` into the leading slice of ``new`` in place; the old outputs' weights on new
    inputs become zero, the new outputs keep what ``new`` held."""
    outputs = old.shape[0]
    if old.dim() == 1:
        new[:outputs] = old
        return
    new[:outputs].zero_()
    new[:outputs, : old.shape[1]] = old
