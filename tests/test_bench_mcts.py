"""The search bench measures the network it is asked for by name, and refuses one that cannot search."""

from __future__ import annotations

import pytest

from analysis.bench import mcts
from analysis.bench.__main__ import main
from analysis.bench.positions import VALIDATION
from analysis.nets.zoo import UnknownNetwork


@pytest.mark.skipif(not VALIDATION.exists(), reason=f"{VALIDATION} is not there")
def test_the_search_bench_measures_the_shipped_network_named():
    figures = mcts.run(quick=True, network="golois-score-b12c128")
    assert figures["net"] == "golois-score-b12c128 from weights/golois-score-b12c128.pt"
    assert figures["search_visits_per_s"] > 0 and figures["raw_positions_per_s"] > 0


@pytest.mark.skipif(not VALIDATION.exists(), reason=f"{VALIDATION} is not there")
def test_the_search_bench_times_the_search_in_each_layout_when_asked():
    figures = mcts.run(quick=True, network="golois-score", compare_layouts=True)
    layouts = figures["layouts"]
    assert set(layouts) == {"NCHW_visits_per_s", "NHWC_visits_per_s", "NHWC_over_NCHW_median_per_position"}
    assert all(rate > 0 for rate in layouts.values())
    assert figures["layout"] in ("NCHW", "NHWC") and "NHWC" in figures["precision_reason"]


def test_the_search_bench_refuses_a_network_that_cannot_search():
    with pytest.raises(UnknownNetwork, match="backpred"):
        mcts.searching_net("backpred")


def test_the_search_bench_refuses_a_name_that_is_not_shipped():
    with pytest.raises(UnknownNetwork, match="no-such-net"):
        mcts.searching_net("no-such-net")


def test_the_bench_command_answers_a_network_that_cannot_search_with_a_clear_error(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["mcts", "--quick", "--network", "backpred"])
    assert stopped.value.code == 2
    assert "error: unknown next-move network 'backpred'" in capsys.readouterr().err
