"""SearchConfig: the knobs of the tree search, with an analysis and a play preset."""

from __future__ import annotations

from dataclasses import dataclass, replace

TREE_POLICIES = ("puct", "darkforest")


@dataclass(frozen=True)
class SearchConfig:
    """How the search selects, batches and perturbs; values are on the -1..+1 scale.

    - ``c_puct``: weight of the prior term in PUCT, ``Q + c * P * sqrt(N) / (1 + n)``.
    - ``fpu_reduction``: an unvisited child's Q is its parent's network value minus this.
    - ``batch_size``: leaves gathered with virtual loss for one evaluator call (8-16 suit a
      CPU, 64 or more a GPU; 1 is plain sequential search).
    - ``virtual_loss``: each pending leaf counts as this many lost visits on its path.
    - ``tree_policy``: ``"puct"`` searches every legal move the evaluator gives a prior;
      ``"darkforest"`` (Tian & Zhu 2015) keeps only the top moves until their priors add
      up to more than ``darkforest_mass``, and at most ``darkforest_max_moves`` of them.
    - ``noise_epsilon``: weight of the Dirichlet noise mixed into the root priors (0: none);
      ``noise_alpha`` is its concentration on 19x19, scaled by 361 / (number of candidates).
    - ``score_utility`` and ``score_utility_dynamic``: KataGo's static and dynamic score
      utility factors (:mod:`analysis.mcts.utility`), used when the evaluator gives score leads.
    """

    c_puct: float = 1.25
    fpu_reduction: float = 0.2
    batch_size: int = 8
    virtual_loss: float = 1.0
    tree_policy: str = "puct"
    darkforest_mass: float = 0.8
    darkforest_max_moves: int = 10
    noise_epsilon: float = 0.0
    noise_alpha: float = 0.03
    score_utility: float = 0.1
    score_utility_dynamic: float = 0.3

    def __post_init__(self) -> None:
        """Raises ValueError for a value out of range or an unknown tree policy."""
        if self.tree_policy not in TREE_POLICIES:
            raise ValueError(f"unknown tree policy {self.tree_policy!r}; known: {', '.join(TREE_POLICIES)}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {self.batch_size}")
        if self.c_puct <= 0 or self.virtual_loss < 0:
            raise ValueError("c_puct must be positive and virtual_loss non-negative")
        if not 0 < self.darkforest_mass <= 1 or self.darkforest_max_moves < 1:
            raise ValueError("darkforest_mass must be in (0, 1] and darkforest_max_moves at least 1")
        if not 0 <= self.noise_epsilon <= 1 or self.noise_alpha <= 0:
            raise ValueError("noise_epsilon must be in [0, 1] and noise_alpha positive")

    @classmethod
    def analysis(cls, **changes: object) -> SearchConfig:
        """Return the analysis preset (no noise), with ``changes`` applied."""
        return replace(cls(), **changes)

    @classmethod
    def play(cls, **changes: object) -> SearchConfig:
        """Return the play preset (Dirichlet noise at the root, AlphaGo Zero's 0.25), with ``changes``."""
        return replace(cls(noise_epsilon=0.25), **changes)
