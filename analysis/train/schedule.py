"""Cazenave's plateau learning-rate halving (Cazenave 2017, algorithm 1).

Training is cut into steps of ``step_samples`` examples.  Every ``window``
steps the mean loss of the last ``window`` steps is compared with the mean of
the ``window`` steps before; if it fell by less than ``threshold`` (relative),
and at least ``patience`` steps passed since the last change, the rate is
halved.  The paper's values are 5,000 examples, 1,000 steps, 0.05% and 3,000
steps; our defaults are scaled down for CPU runs of a few million samples.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class PlateauHalving:
    """The schedule's state; ``observe`` it once per batch, and read ``rate``."""

    rate: float
    step_samples: int = 5000
    window: int = 40
    threshold: float = 0.0005
    patience: int = 120
    min_rate: float = 1e-5
    warmup_samples: int = 0  # the rate ramps up over a run's first samples (warmup_factor)
    step: int = 0
    last_decrease: int = 0
    pending_samples: int = 0
    pending_loss: float = 0.0
    step_losses: list[float] = field(default_factory=list)

    def observe(self, loss: float, samples: int) -> bool:
        """Record a batch's mean loss over ``samples`` examples; return True if the rate was halved."""
        self.pending_loss += loss * samples
        self.pending_samples += samples
        halved = False
        while self.pending_samples >= self.step_samples:
            self.step_losses.append(self.pending_loss / self.pending_samples)
            self.step_losses = self.step_losses[-2 * self.window :]
            self.pending_samples -= self.step_samples
            self.pending_loss = self.step_losses[-1] * self.pending_samples
            self.step += 1
            halved |= self._maybe_halve()
        return halved

    def _maybe_halve(self) -> bool:
        if self.step % self.window or len(self.step_losses) < 2 * self.window:
            return False
        if self.step - self.last_decrease <= self.patience:
            return False
        recent = sum(self.step_losses[-self.window :])
        before = sum(self.step_losses[: self.window])
        if before - recent < self.threshold * before and self.rate / 2 >= self.min_rate:
            self.rate /= 2
            self.last_decrease = self.step
            return True
        return False

    def rate_at(self, samples: int) -> float:
        """Return the rate of the step that brings the run's count to ``samples``: ``rate``, less
        during the warmup."""
        return self.rate * warmup_factor(samples, self.warmup_samples)

    def restart(self, rate: float) -> None:
        """Set the rate by hand (a manual step, on resume); the next halving waits ``patience`` steps."""
        self.rate = rate
        self.last_decrease = self.step
        self.step_losses = []

    def state_dict(self) -> dict:
        """Return the schedule's state, for checkpoints."""
        return asdict(self)

    @classmethod
    def from_state(cls, state: dict) -> PlateauHalving:
        """Return a schedule restored from ``state_dict()``."""
        return cls(**state)


def warmup_factor(samples: int, warmup_samples: int) -> float:
    """Return the share of the rate for the step that brings a run's count to ``samples``: it
    ramps linearly over the first ``warmup_samples`` samples, from a batch's share of them at the
    first step to 1 (1 throughout when ``warmup_samples`` is 0).  It depends on the count alone,
    so a resumed run goes on with it exactly.

    A warm start's new weights need it: AdamW moves every weight by about the rate at its first
    steps, whatever its gradient, and a network deepened from a trained one (weights at zero
    reading inputs whose means are far from zero) loses its start in one such step
    (README, "Training on a GPU").
    """
    return 1.0 if warmup_samples <= 0 else min(1.0, samples / warmup_samples)
