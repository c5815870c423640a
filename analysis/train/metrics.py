"""Move-prediction and value metrics, shared by training validation and the evaluate command."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F


@dataclass
class Metrics:
    """Accumulated accuracy and losses over positions."""

    positions: int = 0
    top1: int = 0
    top5: int = 0
    top10: int = 0
    policy_loss: float = 0.0
    value_positions: int = 0
    value_loss: float = 0.0
    value_bins: np.ndarray | None = None  # (10, 2): predicted-probability bin -> [count, wins]

    def add_policy(self, logits: torch.Tensor, targets: torch.Tensor) -> None:
        """Add a batch: logits (N, A) with illegal moves at -inf, targets (N,) move indices."""
        logits = logits.float()
        self.policy_loss += F.cross_entropy(logits, targets, reduction="sum").item()
        # Ties count against the target: a move ranks below every equal move with a smaller index.
        target_logit = logits.gather(1, targets[:, None])
        earlier = torch.arange(logits.shape[1])[None, :] < targets[:, None]
        ranks = ((logits > target_logit) | ((logits == target_logit) & earlier)).sum(dim=1)
        self.top1 += int((ranks < 1).sum())
        self.top5 += int((ranks < 5).sum())
        self.top10 += int((ranks < 10).sum())
        self.positions += len(targets)

    def add_value(self, logits: torch.Tensor, targets: torch.Tensor) -> None:
        """Add value predictions (N,) logits against targets (N,) in [0, 1] or NaN (skipped)."""
        known = ~torch.isnan(targets)
        if not known.any():
            return
        logits, targets = logits.float()[known], targets[known]
        self.value_loss += F.binary_cross_entropy_with_logits(logits, targets, reduction="sum").item()
        self.value_positions += int(known.sum())
        if self.value_bins is None:
            self.value_bins = np.zeros((10, 2))
        probs = torch.sigmoid(logits).numpy()
        bins = np.minimum((probs * 10).astype(int), 9)
        np.add.at(self.value_bins, (bins, 0), 1)
        np.add.at(self.value_bins, (bins, 1), targets.numpy())

    def summary(self) -> dict:
        """Return the metrics as plain numbers (accuracies in [0, 1], mean losses)."""
        n = max(self.positions, 1)
        out = {
            "positions": self.positions,
            "top1": self.top1 / n,
            "top5": self.top5 / n,
            "top10": self.top10 / n,
            "policy_loss": self.policy_loss / n,
        }
        if self.value_positions:
            out["value_positions"] = self.value_positions
            out["value_log_loss"] = self.value_loss / self.value_positions
            bins = self.value_bins
            out["value_calibration"] = [
                {"predicted": f"{i / 10:.1f}-{(i + 1) / 10:.1f}", "positions": int(bins[i, 0]),
                 "won": round(float(bins[i, 1] / bins[i, 0]), 3) if bins[i, 0] else None}
                for i in range(10)
            ]
        return out
