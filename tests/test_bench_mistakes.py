"""The mistakes bench's figures of a game and of a sample of games, from made-up mistake lists."""

from __future__ import annotations

from analysis.bench.mistakes import game_figures, none_found


def ranked(drops: list[float], points: list[float]) -> dict[str, list[dict]]:
    return {"mistakes": [{"loss": d} for d in drops], "point_mistakes": [{"points_lost": p} for p in points]}


def test_a_games_figures_count_the_moves_over_each_threshold() -> None:
    figures = game_figures(ranked([0.12, 0.05, 0.049], [6.0, 3.0, 2.9]))
    assert figures == {"biggest_winrate_drop": 0.12, "most_points_lost": 6.0,
                       "over_winrate": {"10%": 1, "5%": 2}, "over_points": {"5": 1, "3": 2}}


def test_the_sample_counts_the_games_in_which_a_threshold_finds_no_mistake() -> None:
    games = [game_figures(ranked([0.069], [5.4, 3.1])), game_figures(ranked([], []))]
    assert games[1]["biggest_winrate_drop"] == 0.0
    assert none_found(games) == {"winrate": {"10%": 2, "5%": 1}, "points": {"5": 1, "3": 1}}
