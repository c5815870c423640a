"""The tree search: tactics it must read, its bookkeeping, budgets, stopping and tree reuse.

The evaluators here are fakes, so the tests prove what the search itself does.
Diagrams: X black, O white, . empty; row 1 is the bottom line, column A the left.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

import numpy as np
import pytest

from analysis.go.coords import BLACK, WHITE, from_gtp, neighbors
from analysis.go.position import IllegalMoveError, Position
from analysis.go.scoring import area_score
from analysis.mcts import Search, SearchConfig, SearchResult, choose_move
from analysis.mcts.candidates import candidate_moves
from analysis.mcts.node import Node
from analysis.mcts.puct import puct_scores
from analysis.mcts.terminal import root_ownership, terminal_margin, terminal_value


class AreaEvaluator:
    """Uniform priors (pass ``pass_weight`` times as likely); the value is the area-score margin
    of the player to move, squashed."""

    def __init__(self, pass_weight: float = 1.0) -> None:
        self.pass_weight = pass_weight

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        priors = np.ones((len(positions), positions[0].size ** 2 + 1))
        priors[:, -1] = self.pass_weight
        margins = np.array([area_score(p).margin * p.to_play for p in positions])
        return priors, 0.5 + 0.5 * np.tanh(margins / 2), None


class TacticsEvaluator:
    """Priors favour captures, ataris and escapes from atari; the value is the stone balance."""

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        priors = np.array([self.prior(p) for p in positions])
        return priors, np.array([self.value(p) for p in positions]), None

    @staticmethod
    def prior(pos: Position) -> np.ndarray:
        n, me, board = pos.size, pos.to_play, pos.board
        weights = np.ones(n * n + 1)
        for p in np.flatnonzero(pos.legal_points()).tolist():
            in_atari = any(board.get(q) == me and board.liberties(q) == 1 for q in neighbors(p, n))
            captured = board.play(p, me)
            own = board.liberties(p)
            atari = any(board.get(q) == -me and board.liberties(q) == 1 for q in neighbors(p, n))
            board.undo()
            if captured:
                weights[p] = 50
            elif own == 1:
                weights[p] = 0.2
            elif atari or (in_atari and own >= 2):
                weights[p] = 20
        return weights / weights.sum()

    @staticmethod
    def value(pos: Position) -> float:
        return 0.5 + 0.5 * np.tanh(float(pos.stones().sum()) * pos.to_play / 3)


class HashEvaluator:
    """Peaked pseudo-random priors and values drawn from the position's hash, after ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, None]:
        time.sleep(self.delay)
        priors, values = [], []
        for p in positions:
            rng = np.random.default_rng([p.hash % 2**63, p.to_play + 1])
            logits = 2.0 * rng.normal(size=p.size ** 2 + 1)
            priors.append(np.exp(logits - logits.max()))
            values.append(rng.random())
        return np.array(priors), np.array(values), None


def walk(node: Node) -> Iterator[tuple[Node, int, Node]]:
    """Yield (parent, index, child) for every edge below ``node``."""
    for idx, child in node.children.items():
        yield node, idx, child
        yield from walk(child)


def at(vertex: str, size: int) -> int:
    return from_gtp(vertex, size)


# Black must atari from above: white then has no move (D3 is suicide) and D4 is taken.
# Atari from below (D3) lets white connect out at D5, and black loses at komi 20.5.
FORCED = """
    . O . O . O .
    O O O O O O O
    X X X . X X X
    X X X O X X X
    X X X . X X X
    X . X X X . X
    X X X . X X X
"""


@pytest.mark.parametrize("batch_size", [1, 8])
def test_search_finds_a_forced_capture_with_uniform_priors(batch_size: int) -> None:
    pos = Position.from_diagram(FORCED, komi=20.5)
    evaluator = AreaEvaluator()
    # One ply deep the evaluator cannot tell the two ataris apart: only reading finds D5.
    after = {v: pos.copy() for v in ("D5", "D3")}
    for vertex, p in after.items():
        p.play(at(vertex, 7))
    assert evaluator.evaluate([after["D5"]])[1][0] == evaluator.evaluate([after["D3"]])[1][0]
    result = Search(pos, evaluator, SearchConfig(batch_size=batch_size)).run(max_visits=100)
    assert result.best == at("D5", 7)
    assert result.candidates[0].winrate > 0.5
    assert {c.move: c.winrate for c in result.candidates}[at("D3", 7)] < 0.5


# White F5 is caught in a ladder towards the top right: F6 starts it; the atari at G5
# from the other side lets white extend to F6 with three liberties.
LADDER = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . X O . . .
    . . . . . X X . .
    . . . . . . . . .
    . . O . . . . . .
    . . . . . . O . .
"""


@pytest.mark.parametrize("batch_size", [1, 8])
def test_search_reads_a_ladder_to_the_capture_within_200_visits(batch_size: int) -> None:
    pos = Position.from_diagram(LADDER, komi=0)
    evaluator = TacticsEvaluator()
    prior = evaluator.prior(pos)
    assert prior[at("F6", 9)] == prior[at("G5", 9)]  # two ataris, equally likely to the evaluator
    result = Search(pos, evaluator, SearchConfig(batch_size=batch_size)).run(max_visits=200)
    assert result.best == at("F6", 9)
    winrates = {c.move: c.winrate for c in result.candidates}
    assert winrates[at("F6", 9)] > winrates[at("G5", 9)]
    # The principal variation runs the ladder to its end: replayed, it captures the white string.
    replay = pos.copy()
    captured = [replay.play(move) for move in result.candidates[0].pv]
    assert sum(captured[0::2]) >= 5
    assert replay.color_at(at("F5", 9)) != WHITE


def test_visits_add_up_and_no_virtual_loss_is_left_at_any_node() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=8))
    result = search.run(max_visits=300)
    assert result.visits == search.visits == 300 == 1 + search.root.n.sum()
    assert result.visits == 1 + sum(c.visits for c in result.candidates)
    for parent, idx, child in walk(search.root):
        assert not parent.vl.any() and not child.pending
        if child.terminal is None:
            assert parent.n[idx] == 1 + child.n.sum()  # its own evaluation, then its children's
        else:
            assert not child.children and parent.n[idx] >= 1
        assert abs(parent.w[idx]) <= parent.n[idx]


def test_every_principal_variation_is_a_legal_sequence() -> None:
    pos = Position.from_diagram(LADDER)
    result = Search(pos, HashEvaluator(), SearchConfig(batch_size=8)).run(max_visits=400)
    assert max(len(c.pv) for c in result.candidates) >= 4
    for candidate in result.candidates:
        assert candidate.pv[0] == candidate.move
        replay = pos.copy()
        for move in candidate.pv:
            replay.play(move)  # raises IllegalMoveError if the PV is not legal


def test_advance_keeps_the_subtree_of_the_move_played() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=8))
    result = search.run(max_visits=200)
    best = result.candidates[0]
    subtree = search.root.children[search.root.moves.index(best.move)]
    search.advance(best.move)
    assert search.root is subtree
    assert search.visits == best.visits
    pos.play(best.move)
    assert search.position.hash == pos.hash and search.position.to_play == WHITE
    # Its root win rate is the move's, seen from the other side.
    assert search.result().winrate == pytest.approx(1 - best.winrate)
    assert search.run(max_visits=50).visits == best.visits + 50


def test_advance_to_an_unsearched_move_starts_afresh_and_an_illegal_move_changes_nothing() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=4))
    search.run(max_visits=20)
    root = search.root
    with pytest.raises(IllegalMoveError):
        search.advance(at("F5", 9))  # occupied
    assert search.root is root and search.visits == 20
    unsearched = next(m for m in np.flatnonzero(pos.legal_points()).tolist() if m not in root.children)
    search.advance(unsearched)
    assert search.visits == 0 and not search.root.moves
    assert search.run(max_visits=10).visits == 10


def test_a_batch_of_one_builds_exactly_the_tree_of_plain_sequential_search() -> None:
    config = SearchConfig(batch_size=1)
    pos = Position.from_diagram(LADDER)
    evaluator = HashEvaluator()
    search = Search(pos, evaluator, config)
    search.run(max_visits=150)
    owner = root_ownership(pos)

    class Plain:
        """Textbook recursive PUCT: evaluate each leaf at once, no virtual loss."""

        def __init__(self, p: Position) -> None:
            priors, wins, _ = evaluator.evaluate([p])
            legal = np.append(p.legal_points(), True)
            self.moves, self.prior = candidate_moves(priors[0], legal, config)
            self.value = 2 * wins[0] - 1
            self.n = np.zeros(self.moves.size)
            self.w = np.zeros(self.moves.size)
            self.children: dict[int, Plain | float] = {}

        def visit(self, p: Position) -> float:
            """Visit once; return the value for the player to move at this node."""
            fpu = self.value - config.fpu_reduction
            idx = int(np.argmax(puct_scores(self.prior, self.n, self.w, fpu, config.c_puct)))
            p.play(int(self.moves[idx]))
            child = self.children.get(idx)
            if child is None and p.consecutive_passes() >= 2:
                value = self.children[idx] = terminal_value(terminal_margin(p, owner))
            elif child is None:
                child = self.children[idx] = Plain(p)
                value = child.value
            elif isinstance(child, float):
                value = child
            else:
                value = child.visit(p)
            p.undo()
            self.n[idx] += 1
            self.w[idx] -= value
            return -value

    plain_pos = pos.copy()
    plain = Plain(plain_pos)
    for _ in range(149):
        plain.visit(plain_pos)

    def same(node: Node, ref: Plain) -> None:
        assert node.moves == ref.moves.tolist()
        np.testing.assert_array_equal(node.n, ref.n)
        np.testing.assert_allclose(node.w, ref.w, rtol=0, atol=1e-12)
        assert node.children.keys() == ref.children.keys()
        for idx, child in node.children.items():
            if isinstance(ref.children[idx], Plain):
                same(child, ref.children[idx])
            else:
                assert child.terminal == ref.children[idx]

    same(search.root, plain)
    assert max(len(c.pv) for c in search.result().candidates) >= 3


def test_the_budget_in_visits_is_exact_and_snapshots_stream_while_searching() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=8))
    snapshots = list(search.iterate(max_visits=61, every_visits=16))
    # The root's evaluation, then batches of 8; the last batch is cut to fit the budget.
    assert [s.visits for s in snapshots] == [17, 33, 49, 61]
    seen: list[int] = []
    final = search.run(max_visits=40, callback=lambda r: seen.append(r.new_visits), every_visits=10)
    assert final.visits == 101 and final.new_visits == 40
    assert seen == [16, 24, 32, 40]  # snapshots once 10, 20, 30 visits are passed, then the final one


def test_the_budget_in_seconds_ends_the_search_in_time() -> None:
    search = Search(Position(9), HashEvaluator(delay=0.01), SearchConfig(batch_size=4))
    t0 = time.perf_counter()
    result = search.run(max_seconds=0.2, every_seconds=0.05)
    assert 0.2 <= time.perf_counter() - t0 < 1.0
    assert result.visits > 1 and result.seconds >= 0.2 and result.visits_per_second > 0


def test_a_search_stopped_from_another_thread_returns_a_legal_move() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(delay=0.005), SearchConfig(batch_size=8))
    results: list[SearchResult] = []
    worker = threading.Thread(target=lambda: results.append(search.run()))  # no budget: until stopped
    worker.start()
    time.sleep(0.1)
    search.stop()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert pos.is_legal(results[0].best)


def test_a_search_stopped_before_it_starts_returns_a_legal_move_after_the_root_evaluation() -> None:
    pos = Position.from_diagram(LADDER)
    search = Search(pos, HashEvaluator(), SearchConfig(batch_size=8))
    assert search.run(callback=lambda _: search.stop(), every_visits=1).visits == 9  # after one batch
    stopped = Search(pos, HashEvaluator())
    stopped.stop()  # before the run: it still evaluates the root, and stops there
    result = stopped.run(max_visits=100)
    assert result.visits == 1 and not result.candidates
    assert pos.is_legal(result.best)
    assert stopped.run(max_visits=100).visits == 101  # the stop was used up


# Black owns columns A-D (28 points), white E-G (21): black wins by 7 on the board.
WALL = "\n".join([". . . X O . ."] * 7)


@pytest.mark.parametrize(("komi", "winrate"), [(6.5, 1.0), (7.5, 0.0)])
def test_passing_after_a_pass_ends_the_game_and_scores_by_area(komi: float, winrate: float) -> None:
    pos = Position.from_diagram(WALL, komi=komi, to_play=WHITE)
    pos.pass_move()
    search = Search(pos, AreaEvaluator(pass_weight=10), SearchConfig(batch_size=4))
    result = search.run(max_visits=60)
    passing = {c.move: c for c in result.candidates}[pos.pass_point]
    assert passing.winrate == winrate and passing.pv == (pos.pass_point,)
    assert (result.best == pos.pass_point) == (winrate == 1.0)  # black passes when that wins
    node = search.root.children[search.root.moves.index(pos.pass_point)]
    assert node.terminal == (-1.0 if winrate else 1.0)  # scored for white, who would be to move


@pytest.mark.parametrize(("scoring", "winrate"), [("area", 1.0), ("territory", 0.0)])
def test_a_game_the_search_ends_is_counted_by_the_positions_scoring(scoring: str, winrate: float) -> None:
    """Black filled a point of its own territory (A1), White passed: by area Black still wins by
    0.5, by territory that point cost it the game (20 points against 14 + 6.5)."""
    pos = Position.from_diagram(WALL, komi=6.5)
    pos.scoring = scoring
    pos.play(from_gtp("A1", 7))
    pos.pass_move()
    search = Search(pos, AreaEvaluator(pass_weight=10), SearchConfig(batch_size=4))
    result = search.run(max_visits=40)
    assert {c.move: c for c in result.candidates}[pos.pass_point].winrate == winrate
    assert terminal_margin_after_pass(pos) == (0.5 if scoring == "area" else -0.5)


def terminal_margin_after_pass(pos: Position) -> float:
    ended = pos.copy()
    ended.pass_move()
    return -terminal_margin(ended)  # for Black, who passed


DEAD_STONE = """
. . . X O . .
. . . X O . .
. O . X O . .
. . . X O . .
. . . X O . .
. . . X O . .
. . . X O . .
"""


@pytest.mark.parametrize("scoring", ["area", "territory"])
def test_a_game_the_search_ends_is_counted_with_the_roots_dead_stones_taken_off(scoring: str) -> None:
    """White's stone at B5 is dead in Black's territory.  Passing wins for Black (the count takes
    it off, as the site's does), while capturing it first, with four stones in its own territory,
    loses under territory scoring: the search no longer has Black fill its territory to end the
    game, nor calls the pass a mistake."""
    pos = Position.from_diagram(DEAD_STONE, komi=6.5)
    pos.scoring = scoring
    owner = root_ownership(pos)
    ended = pos.copy()
    ended.pass_move()
    ended.pass_move()
    # area: 21 + 7 points against 21 + 6.5; territory: 21 + 1 prisoner against 14 + 6.5 (capturing
    # first: 17 + 1 against 20.5)
    assert terminal_margin(ended, owner) == (0.5 if scoring == "area" else 1.5)
    assert terminal_margin(ended) < 0  # every stone alive: B5 spoils Black's area
    search = Search(pos, AreaEvaluator(pass_weight=10), SearchConfig(batch_size=4))
    search.run(max_visits=60)
    passed = search.root.children[search.root.moves.index(pos.pass_point)]
    ended_node = passed.children[passed.moves.index(pos.pass_point)]
    assert ended_node.terminal == 1.0  # won, for Black to move there


def test_a_stone_played_into_settled_territory_and_left_there_is_dead_at_the_count() -> None:
    pos = Position.from_diagram(DEAD_STONE, komi=6.5)
    owner = root_ownership(pos)
    invaded = pos.copy()
    invaded.play(at("A7", 7), WHITE)  # into Black's area: counted off if Black never answers
    invaded.play(at("B4", 7), WHITE)  # B5 grown, still inside Black's area: dead too
    invaded.pass_move()
    invaded.pass_move()
    assert terminal_margin(invaded, owner) == 0.5  # as if neither had been played (area)
    out = pos.copy()
    out.play(at("F4", 7), BLACK)  # a black stone in White's area is dead as well
    out.pass_move()
    out.pass_move()
    assert terminal_margin(out, owner) == -0.5  # for White to move: Black's 0.5


def test_darkforest_tree_policy_searches_only_the_top_moves() -> None:
    config = SearchConfig(tree_policy="darkforest", darkforest_mass=0.8, darkforest_max_moves=3)
    prior = np.array([0.05, 0.5, 0.0, 0.25, 0.1, 0.1])
    legal = np.array([True, True, True, True, False, True])
    moves, p = candidate_moves(prior, legal, config)
    assert moves.tolist() == [1, 3]  # 0.5 + 0.25 is 0.83 of the legal 0.9: more than 0.8
    assert p.tolist() == pytest.approx([2 / 3, 1 / 3])
    moves, _ = candidate_moves(prior, legal, SearchConfig(tree_policy="darkforest", darkforest_mass=0.5))
    assert moves.tolist() == [1]  # 0.5 / 0.9 = 0.56
    capped = SearchConfig(tree_policy="darkforest", darkforest_mass=0.99, darkforest_max_moves=3)
    assert candidate_moves(prior, legal, capped)[0].tolist() == [1, 3, 5]
    assert candidate_moves(prior, legal, SearchConfig())[0].tolist() == [1, 3, 5, 0]
    search = Search(Position.from_diagram(LADDER), HashEvaluator(), config)
    search.run(max_visits=100)
    assert all(len(child.moves) <= 3 for _, _, child in walk(search.root))


def test_play_mode_adds_root_noise_but_reports_the_evaluator_priors() -> None:
    pos = Position.from_diagram(LADDER)
    first = Search(pos, HashEvaluator(), SearchConfig.play(), seed=1)
    r1 = first.run(max_visits=50)
    again = Search(pos, HashEvaluator(), SearchConfig.play(), seed=1).run(max_visits=50)
    assert r1.candidates == again.candidates  # the seed makes the noise reproducible
    root = first.root
    assert not np.allclose(root.prior, root.raw_prior) and root.prior.sum() == pytest.approx(1.0)
    raw = dict(zip(root.moves, root.raw_prior.tolist(), strict=True))
    assert all(c.prior == raw[c.move] for c in r1.candidates)
    analysis = Search(pos, HashEvaluator(), SearchConfig.analysis())
    analysis.run(max_visits=10)
    assert analysis.root.prior is analysis.root.raw_prior


def test_temperature_samples_by_visits_in_the_opening_only() -> None:
    pos = Position.from_diagram(LADDER)
    result = Search(pos, HashEvaluator(), SearchConfig(batch_size=8)).run(max_visits=200)
    rng = np.random.default_rng(0)
    early = {choose_move(result, 3, rng, opening_moves=30) for _ in range(300)}
    assert result.best in early and len(early) > 1
    assert early <= {c.move for c in result.candidates}
    assert {choose_move(result, 30, rng, opening_moves=30) for _ in range(20)} == {result.best}
    assert choose_move(result, 0, rng, temperature=0) == result.best
    with pytest.raises(ValueError, match="temperature"):
        choose_move(result, 0, rng, temperature=-1)


def test_config_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="tree policy"):
        SearchConfig(tree_policy="ucb1")
    with pytest.raises(ValueError, match="batch_size"):
        SearchConfig(batch_size=0)
    with pytest.raises(ValueError, match="noise_epsilon"):
        SearchConfig(noise_epsilon=1.5)
    assert SearchConfig.analysis().noise_epsilon == 0 and SearchConfig.play().noise_epsilon == 0.25
    assert SearchConfig.play(batch_size=32).batch_size == 32


class LeadEvaluator:
    """Black wins whatever happens; White's expected loss is 10 points when Black holds ``small``,
    40 when Black holds ``big``, 25 otherwise.  The priors prefer ``small``, then ``big``."""

    def __init__(self, small: int, big: int) -> None:
        self.small, self.big = small, big

    def evaluate(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        priors = np.full((len(positions), positions[0].size ** 2 + 1), 0.01)
        priors[:, self.small], priors[:, self.big] = 1.5, 1.0
        black_lead = [
            10.0 if p.color_at(self.small) == BLACK else 40.0 if p.color_at(self.big) == BLACK else 25.0
            for p in positions
        ]
        mover = np.array([p.to_play for p in positions])
        return priors, np.where(mover == BLACK, 0.99, 0.01), np.array(black_lead) * mover


@pytest.mark.parametrize("utility", [True, False])
def test_far_ahead_the_search_plays_for_the_bigger_lead_only_with_the_score_utility(utility: bool) -> None:
    small, big = from_gtp("C3", 9), from_gtp("G7", 9)
    config = SearchConfig(batch_size=4, score_utility=0.1 if utility else 0.0,
                          score_utility_dynamic=0.3 if utility else 0.0)
    result = Search(Position(9), LeadEvaluator(small, big), config).run(max_visits=400)
    assert result.winrate == pytest.approx(0.99, abs=0.01) and result.score_lead > 9
    leads = {c.move: c.score_lead for c in result.candidates}
    assert leads[small] == pytest.approx(10.0) and leads[big] == pytest.approx(40.0)
    assert result.best == (big if utility else small)
