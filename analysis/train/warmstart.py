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

A deeper Golois trunk (more ``ResidualBN`` blocks after the trained ones) starts as the identity
too (:func:`deepen`).  Such a block computes ``BN(ReLU(conv(x) + x))``: with its convolution at
zero it passes ``BN(ReLU(x))``, and the ReLU would cut the negative half of the trained trunk's
output ``x``.  So each new block's convolution gets a per-channel bias ``c``, the offset that keeps
``x + c`` at or above zero, and its batch norm is set to take ``c`` off and reproduce its input (its
running statistics those of ``x + c``, its scale and bias those of ``x``, so that it undoes its own
normalisation).  The heads then read what they read before, in training mode (batch statistics)
and in evaluation mode (running statistics) alike.  The offset is exact where the last trained
block's scale is positive (its input, a ReLU's, has a floor of zero, so its output has one too);
where it is negative the output's low tail is the ReLU's high one, and the offset covers
``SHIFT_SIGMAS`` standard deviations of it.

The offset lives in the new convolutions' biases, not in their input: a convolution that starts at
zero and reads an input raised by ``c`` (up to 12 standard deviations on every channel) turns
AdamW's first steps, which move every weight by about the learning rate, into one coherent jump of
its output (lr x 9 x channels x c), and the warm start is lost in a step (a darkforest net deepened
so from 6 to 11 blocks of 192 read a policy loss of 441 after one step at lr 0.0005; its input
unraised, 2.3, as before the step).
"""

from __future__ import annotations

import torch
from torch import nn

from analysis.nets.layers import ResidualBN

SHIFT_SIGMAS = 12.0  # how far below a channel's mean the shifted trunk output stays non-negative (the
# default net's last block reaches 7.5 standard deviations below on validation positions)


def transplant(model: nn.Module, state: dict[str, torch.Tensor]) -> dict[str, list[str]]:
    """Copy the fitting tensors of ``state`` (a state dict) into ``model``; return the names
    ``copied``, ``widened`` (grown in channels, trained values kept, see the module docstring),
    ``deepened`` (the new trunk blocks started as the identity by :func:`deepen`), ``fresh`` (the other
    tensors, left as initialised) and ``dropped`` (the tensors of ``state`` that ``model`` took
    nothing of: blocks it does not have, or shapes it cannot grow from; where any is, ``model``
    does not compute what the trained net did).
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
    report["deepened"] = deepen(model, report["fresh"])
    started = tuple(f"{block}." for block in report["deepened"])
    report["fresh"] = [name for name in report["fresh"] if not name.startswith(started)]
    taken = set(report["copied"]) | set(report["widened"])
    report["dropped"] = [name for name in state if name not in taken]
    return report


def deepen(model: nn.Module, fresh: list[str]) -> list[str]:
    """Make the new ``ResidualBN`` blocks at the end of ``model.trunk`` (those whose tensors are all
    in ``fresh``, after at least one trained block) start as the identity, as the module docstring
    says; return the names of the blocks set so, empty when there are none.
    """
    trunk = getattr(model, "trunk", None)
    if not isinstance(trunk, nn.Sequential):
        return []
    new = [i for i, block in enumerate(trunk)
           if isinstance(block, ResidualBN) and all(f"trunk.{i}.{n}" in fresh for n in block.state_dict())]
    trained = len(trunk) - len(new)
    at_the_end = new == list(range(trained, len(trunk)))
    if not new or not trained or not at_the_end or not isinstance(trunk[trained - 1], ResidualBN):
        return []
    with torch.no_grad():
        last = trunk[trained - 1].bn
        weight, mean = last.weight, last.bias
        # its outputs' spread: the square of its scale, as its batch variance (less its epsilon) gives it
        spread = weight.square() * last.running_var / (last.running_var + last.eps)
        # its input is a ReLU's (>= 0): with a positive scale the output has a floor, else a tail
        floor = mean - weight.clamp(min=0) * last.running_mean / (last.running_var + last.eps).sqrt()
        shift = torch.maximum(SHIFT_SIGMAS * spread.sqrt() - mean, -floor).clamp(min=0)
        for i in new:
            block = trunk[i]
            block.conv.weight.zero_()
            block.conv.bias.copy_(shift)
            block.bn.weight.copy_((spread + block.bn.eps).sqrt())
            block.bn.bias.copy_(mean)
            block.bn.running_mean.copy_(mean + shift)
            block.bn.running_var.copy_(spread)
    return [f"trunk.{i}" for i in new]


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


def describe_start(path: str, report: dict[str, list[str]]) -> str:
    """Return the line that says what :func:`transplant` made of ``path``'s weights (its
    ``report``): the counts, the new parts, and the trained parts left behind, with a warning that
    the new net then does not start where ``path`` was."""
    line = (f"started from {path}: {len(report['copied'])} tensors copied, {len(report['widened'])} "
            f"widened, deepened {report['deepened']}, new {_part_names(report['fresh'])}")
    if report["dropped"]:
        line += (f"; left behind {_part_names(report['dropped'])}: this net does not start by computing "
                 "what that one did")
    return line


def _part_names(names: list[str]) -> list[str]:
    """The network parts the tensors ``names`` belong to: trunk.10.conv.weight is trunk.10,
    score.1.bias is score."""
    return sorted({".".join(n.split(".")[:2]) if n.startswith("trunk.") else n.split(".")[0] for n in names})
