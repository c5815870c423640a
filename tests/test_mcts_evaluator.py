"""The network evaluator of the search (with a tiny untrained net) and its LRU cache."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.features import get_feature_set
from analysis.go.coords import WHITE, from_gtp
from analysis.go.position import Position
from analysis.mcts import NetEvaluator, Search, SearchConfig
from analysis.mcts.cache import LRUCache, position_key
from analysis.nets import checkpoint
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.inference import Network


def tiny_net(value_head: bool = True) -> GoloisNet:
    torch.manual_seed(0)
    config = GoloisConfig(get_feature_set("golois").num_planes, blocks=1, channels=8, value_head=value_head)
    return GoloisNet(config).eval()


def opening(size: int = 9) -> Position:
    pos = Position(size)
    for vertex in ("E5", "C3", "G7", "C7"):
        pos.play(from_gtp(vertex, size))
    return pos


def test_a_search_with_an_untrained_tiny_net_on_9x9_returns_legal_analysis() -> None:
    pos = opening()
    evaluator = NetEvaluator(Network(tiny_net()))  # the dtype is chosen on the first batch
    search = Search(pos, evaluator, SearchConfig(batch_size=8))
    result = search.run(max_visits=64)
    assert result.visits == 64 and evaluator.network.dtype is not None
    assert 0 <= result.winrate <= 1 and pos.is_legal(result.best)
    for candidate in result.candidates:
        assert 0 <= candidate.winrate <= 1 and 0 < candidate.prior <= 1
        replay = pos.copy()
        for move in candidate.pv:
            replay.play(move)
    search.advance(result.best)
    assert search.run(max_visits=16).visits >= 16


def test_net_priors_are_a_distribution_over_the_legal_moves_and_pass() -> None:
    pos = Position.from_diagram(
        """
        . X . . . . . . .
        X X . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        """,
        to_play=WHITE,
    )
    for ladder_adjust in (False, True):
        evaluator = NetEvaluator(Network(tiny_net(), dtype="float32"), ladder_adjust=ladder_adjust)
        priors, wins, leads = evaluator.evaluate([pos, opening()])
        assert leads is None  # the tiny net has no score head
        assert priors.shape == (2, 82) and wins.shape == (2,)
        assert np.allclose(priors.sum(axis=1), 1, atol=1e-5)
        assert priors[0, from_gtp("B9", 9)] == 0 and priors[0, from_gtp("A8", 9)] == 0  # occupied
        assert priors[0, from_gtp("A9", 9)] == 0  # suicide for white
        assert ((wins > 0) & (wins < 1)).all()


def test_net_evaluations_are_cached_by_position() -> None:
    evaluator = NetEvaluator(Network(tiny_net(), dtype="float32"), cache_size=10)
    positions = [opening(), Position(9)]
    first = evaluator.evaluate(positions)
    assert (evaluator.cache.hits, evaluator.cache.misses) == (0, 2)
    again = evaluator.evaluate(positions[::-1])
    assert evaluator.cache.hits == 2
    np.testing.assert_array_equal(again[0], first[0][::-1])
    np.testing.assert_array_equal(again[1], first[1][::-1])


def test_a_net_without_value_head_is_refused() -> None:
    with pytest.raises(ValueError, match="value head"):
        NetEvaluator(Network(tiny_net(value_head=False)))


def test_an_evaluator_loads_from_a_checkpoint(tmp_path) -> None:
    path = tmp_path / "tiny.pt"
    checkpoint.save(path, tiny_net(), "tiny")
    evaluator = NetEvaluator(Network.from_checkpoint(path, dtype="float32"))
    assert evaluator.evaluate([opening()])[0].shape == (1, 82)


def test_the_lru_cache_forgets_the_least_recently_used_entry() -> None:
    cache = LRUCache(2)
    entry = (np.zeros(2), 0.5)
    cache.put("a", entry)
    cache.put("b", entry)
    assert cache.get("a") is entry
    cache.put("c", entry)
    assert cache.get("b") is None and cache.get("a") is entry and cache.get("c") is entry
    assert len(cache) == 2
    nothing = LRUCache(0)
    nothing.put("a", entry)
    assert nothing.get("a") is None
    with pytest.raises(ValueError):
        LRUCache(-1)


def test_the_cache_key_tells_apart_the_player_to_move_komi_and_size() -> None:
    pos = opening()
    other = pos.copy()
    other.to_play = -pos.to_play
    assert position_key(pos) != position_key(other)
    assert position_key(Position(9, komi=7.5)) != position_key(Position(9, komi=6.5))
    assert position_key(Position(9)) != position_key(Position(13))
    assert position_key(pos) == position_key(pos.copy())
