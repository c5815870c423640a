"""An exponential moving average of a network's weights over the training steps.

At a constant learning rate the weights wander around a minimum; their average over the last few
thousand steps sits nearer its centre than any one step's (Polyak averaging; KataGo ships such
averages of its nets, "SWA" in its training scripts).  After each step every parameter's average
moves ``1 - decay`` of the way to the parameter: with ``decay`` 0.9995 the average spans about
2,000 steps (256,000 samples at 128 a batch).

Only the parameters are averaged.  The batch norms' running statistics belong to the weights they
normalise, so an averaged net gets its own, recomputed over fixed positions
(:class:`analysis.train.precise_bn.Calibration`), before it is validated or saved.
"""

from __future__ import annotations

import copy

import torch
from torch import nn


class WeightAverage:
    """The running average of a model's parameters, kept in float32 beside the training model (on
    its device)."""

    def __init__(self, model: nn.Module, decay: float) -> None:
        """Start the average at ``model``'s current parameters.

        Raises ValueError unless 0 < ``decay`` < 1.
        """
        if not 0.0 < decay < 1.0:
            raise ValueError(f"the average's decay must be in (0, 1), not {decay}")
        self.decay = decay
        self.params = {name: p.detach().float().clone() for name, p in model.named_parameters()}

    @torch.no_grad()
    def update(self, model: nn.Module) -> None:
        """Move every averaged parameter ``1 - decay`` of the way to ``model``'s (after a step)."""
        for name, p in model.named_parameters():
            self.params[name].lerp_(p.detach().float(), 1.0 - self.decay)

    def averaged(self, model: nn.Module) -> nn.Module:
        """Return a copy of ``model`` with the averaged parameters (its buffers, among them the
        batch norms' statistics, are ``model``'s until recomputed)."""
        net = copy.deepcopy(model)
        with torch.no_grad():
            for name, p in net.named_parameters():
                p.copy_(self.params[name])
        return net

    def state_dict(self) -> dict:
        """The average as a checkpoint field: its decay and parameters."""
        return {"decay": self.decay, "params": self.params}

    def load_state_dict(self, state: dict) -> None:
        """Continue the average saved by :meth:`state_dict`, at this average's decay.

        Raises KeyError when the saved parameters are not this model's, ValueError when one has
        another shape than the model's.
        """
        missing = set(self.params) ^ set(state["params"])
        if missing:
            raise KeyError(f"the saved average does not fit the model: {sorted(missing)[:5]}")
        misshapen = [name for name, p in self.params.items() if state["params"][name].shape != p.shape]
        if misshapen:
            raise ValueError(f"the saved average does not fit the model's shapes: {misshapen[:5]}")
        self.params = {name: state["params"][name].to(p.device, torch.float32).clone()
                       for name, p in self.params.items()}
