"""Monte-Carlo tree search with a policy-and-value network (AlphaGo Zero's PUCT).

- ``Search`` (search.py): the tree, batched leaf evaluation under virtual loss,
  budgets, streaming snapshots, ``stop`` and subtree reuse (``advance``);
- ``SearchConfig`` (config.py): PUCT constants, batch size, darkforest's tree
  policy, root noise; ``SearchConfig.analysis()`` and ``SearchConfig.play()``;
- ``Evaluator`` (evaluator.py): the protocol the search evaluates leaves with;
  ``NetEvaluator`` (net_evaluator.py) is the network one, with an LRU cache, and
  ``BaggedRoot`` gives one search a root judged over the 8 symmetries;
- ``SearchResult`` / ``Candidate`` (result.py): visits, win rates, priors, PVs;
- ``choose_move`` (choose.py): play mode's move choice, with temperature;
- ``MoveFilter`` (restrict.py): KataGo's avoided and allowed moves near the root.
"""

from analysis.mcts.choose import choose_move
from analysis.mcts.config import SearchConfig
from analysis.mcts.evaluator import Evaluator
from analysis.mcts.net_evaluator import BaggedRoot, NetEvaluator
from analysis.mcts.restrict import MoveFilter
from analysis.mcts.result import Candidate, SearchResult
from analysis.mcts.search import Search

__all__ = [
    "BaggedRoot",
    "Candidate",
    "Evaluator",
    "MoveFilter",
    "NetEvaluator",
    "Search",
    "SearchConfig",
    "SearchResult",
    "choose_move",
]
