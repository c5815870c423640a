"""The policy network as a move chooser: probabilities over legal moves for the player to move."""

from __future__ import annotations

import numpy as np
import torch

from analysis.features import FeatureContext, get_feature_set
from analysis.go.position import Position


class PolicyNet:
    """A loaded network with its feature set; call ``evaluate`` on positions."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model = model.eval()
        self.features = get_feature_set(model.config.feature_set)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model.to(self.device)

    @torch.inference_mode()
    def evaluate(self, positions: list[Position]) -> tuple[np.ndarray, np.ndarray | None]:
        """Return (probabilities (N, n*n + 1) over legal moves and pass, win probabilities (N,) or None).

        Win probabilities are for the player to move.  All positions must share a board size.
        """
        inputs = torch.from_numpy(self.features.extract_batch([FeatureContext(p) for p in positions]))
        legal = torch.from_numpy(np.stack([np.append(p.legal_points(), True) for p in positions]))
        autocast = self.device.type == "cpu"
        with torch.autocast(self.device.type, dtype=torch.bfloat16, enabled=autocast):
            policy, value = self.model(inputs.to(self.device), legal.to(self.device))
        probs = torch.softmax(policy[:, 0].float(), dim=1).cpu().numpy()
        wins = torch.sigmoid(value.float()).cpu().numpy() if value is not None else None
        return probs, wins
