"""Dirichlet noise on the root priors, for variety in play (AlphaGo Zero)."""

from __future__ import annotations

import numpy as np


def add_dirichlet_noise(
    prior: np.ndarray, epsilon: float, alpha: float, rng: np.random.Generator
) -> np.ndarray:
    """Return ``(1 - epsilon) * prior + epsilon * Dirichlet``, a new array summing to 1.

    ``alpha`` is the concentration on 19x19; it is scaled by 361 / len(prior), so that
    the noise's total concentration does not depend on the number of candidates.
    """
    noise = rng.dirichlet(np.full(prior.size, alpha * 361 / prior.size))
    return (1 - epsilon) * prior + epsilon * noise
