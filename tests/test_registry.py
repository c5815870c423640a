"""One place picks a network by name, role, board size and device: each rule and each error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from analysis.bot.levels import get_level
from analysis.bot.load import load_bot
from analysis.features import get_feature_set
from analysis.nets import checkpoint, registry
from analysis.nets.golois import GoloisConfig, GoloisNet
from analysis.nets.registry import device_kind, pick
from analysis.nets.zoo import UnknownNetwork, Zoo

ROOT = Path(__file__).resolve().parents[1]


def write(directory: Path, default: dict, networks: list[dict], files: bool = True) -> Zoo:
    """Write a manifest of ``networks`` (each with an empty file unless ``files`` is False or the
    network is called ``missing``) and return its zoo."""
    filler = {"title": "t", "paper": "p", "paper_figure": "f"}
    listed = [{"file": f"{n['name']}.pt", **filler, **n} for n in networks]
    for n in listed:
        if files and n["name"] != "missing":
            (directory / n["file"]).write_bytes(b"")
    (directory / "zoo.json").write_text(json.dumps({"default": default, "networks": listed}))
    return Zoo.load(directory)


NETWORKS = [
    {"name": "big", "role": "next", "value_head": True},
    {"name": "small", "role": "next", "value_head": True},
    {"name": "policy-only", "role": "next"},
    {"name": "res-back", "role": "previous"},
    {"name": "dense", "role": "previous", "board_sizes": [19]},
    {"name": "missing", "role": "next", "value_head": True},
]


@pytest.fixture
def zoo(tmp_path: Path) -> Zoo:
    return write(tmp_path, {"next": {"cpu": "small", "cuda": "big"}, "previous": "dense"}, NETWORKS)


def test_no_name_gives_the_default_of_the_devices_kind(zoo: Zoo) -> None:
    cpu = pick(None, "next", 19, "cpu", zoo)
    assert (cpu.name, cpu.kind, cpu.reason, cpu.asked) == ("small", "cpu", "the next default on cpu", None)
    assert pick("", "next", 19, "cuda", zoo).name == "big"
    assert pick(None, "next", 19, "cuda:1", zoo).name == "big"
    assert pick(None, "next", 19, torch.device("cuda", 0), zoo).name == "big"


def test_a_kind_the_default_does_not_name_takes_its_cpu_network(zoo: Zoo) -> None:
    choice = pick(None, "next", 19, "mps", zoo)
    assert choice.name == "small" and choice.kind == "mps"


def test_the_search_and_the_review_fall_back_to_the_next_default_without_their_own(zoo: Zoo) -> None:
    search, review = pick(None, "search", 19, "cuda", zoo), pick(None, "review", 19, "cuda", zoo)
    assert search.name == review.name == "big"
    assert search.reason == "the next default (the search has none of its own) on cuda"


def test_a_roles_own_default_wins_and_the_review_takes_the_searchs(tmp_path: Path) -> None:
    zoo = write(tmp_path, {"next": "small", "search": {"cpu": "small", "cuda": "big"}}, NETWORKS)
    assert pick(None, "next", None, "cuda", zoo).name == "small"
    assert pick(None, "search", None, "cuda", zoo).name == "big"
    review = pick(None, "review", None, "cuda", zoo)
    assert review.name == "big"
    assert review.reason == "the search default (the review has none of its own) on cuda"


def test_a_name_gives_that_network_on_every_device(zoo: Zoo) -> None:
    for device in ("cpu", "cuda"):
        choice = pick("small", "search", 19, device, zoo)
        assert (choice.name, choice.kind, choice.reason) == ("small", device, "small, asked by name")
    assert pick("dense", "previous", 19, None, zoo).kind is None  # no device needed, none found


def test_a_network_without_a_value_head_asked_to_search_gives_way_to_the_devices_default(zoo: Zoo) -> None:
    assert pick("policy-only", "next", 19, "cuda", zoo).name == "policy-only"
    for role in ("search", "review"):
        choice = pick("policy-only", role, 19, "cuda", zoo)
        assert (choice.name, choice.asked, choice.role) == ("big", "policy-only", role)
        assert choice.reason.startswith(f"policy-only has no value head for the {role}; the next default")
    assert pick("policy-only", "search", 19, "cpu", zoo).name == "small"


def test_a_default_that_does_not_read_the_board_gives_way_to_the_first_that_does(zoo: Zoo) -> None:
    assert pick(None, "previous", 19, "cpu", zoo).name == "dense"
    nine = pick(None, "previous", 9, "cpu", zoo)
    assert nine.name == "res-back"
    assert nine.reason == ("the previous default on cpu, dense, does not read 9x9 boards: "
                           "the first shipped network that fits")


@pytest.mark.parametrize("default, why", [("missing", "is not shipped"), ("policy-only", "has no value head"),
                                          ("res-back", "is not a next-move network")])
def test_a_default_that_cannot_serve_the_role_gives_way_to_the_first_that_can(
    tmp_path: Path, default: str, why: str
) -> None:
    zoo = write(tmp_path, {"next": default}, NETWORKS)
    choice = pick(None, "search", None, "cpu", zoo)
    assert choice.name == "big" and why in choice.reason


def test_a_role_without_any_default_takes_the_first_network_that_fits(tmp_path: Path) -> None:
    zoo = write(tmp_path, {"next": "small"}, NETWORKS)
    choice = pick(None, "previous", 9, "cpu", zoo)
    assert choice.name == "res-back"
    assert choice.reason == "no previous default in the manifest: the first that fits"


def test_an_unknown_name_is_an_error_listing_the_networks_of_the_role(zoo: Zoo) -> None:
    known = "known: big, small, policy-only$"
    with pytest.raises(UnknownNetwork, match=rf"^unknown next-move network 'alphago'; {known}"):
        pick("alphago", "search", 19, "cpu", zoo)
    with pytest.raises(UnknownNetwork, match="unknown next-move network 'missing'"):
        pick("missing", "next", 19, "cpu", zoo)


def test_a_network_of_the_other_kind_is_an_error(zoo: Zoo) -> None:
    with pytest.raises(UnknownNetwork, match="unknown back-prediction network 'big'; known: res-back, dense"):
        pick("big", "previous", 19, "cpu", zoo)


def test_a_network_asked_for_a_board_it_does_not_read_is_an_error(zoo: Zoo) -> None:
    with pytest.raises(UnknownNetwork, match=r"'dense' reads 19x19 boards only, not 9x9; "
                                             r"back-prediction networks for 9x9: res-back"):
        pick("dense", "previous", 9, "cpu", zoo)


def test_no_network_that_fits_is_an_error_naming_the_directory(tmp_path: Path) -> None:
    zoo = write(tmp_path, {"next": "policy-only"}, [{"name": "policy-only", "role": "next"}])
    with pytest.raises(UnknownNetwork) as refused:
        pick(None, "review", 9, "cpu", zoo)
    assert str(refused.value) == f"no next-move network with a value head for 9x9 is shipped in {tmp_path}"
    with pytest.raises(UnknownNetwork, match="no back-prediction network is shipped"):
        pick(None, "previous", None, "cpu", zoo)


def test_an_unknown_role_is_an_error(zoo: Zoo) -> None:
    with pytest.raises(ValueError, match="unknown role 'value'; roles: next, search, review, previous"):
        pick(None, "value", 19, "cpu", zoo)


def test_the_device_kind_of_a_name_a_torch_device_and_this_process() -> None:
    assert device_kind("cuda:3") == "cuda" and device_kind(torch.device("cpu")) == "cpu"
    assert device_kind(None) == ("cuda" if torch.cuda.is_available() else "cpu")


def test_a_level_picks_for_its_role_and_its_own_network(zoo: Zoo) -> None:
    assert get_level("rules").pick(19, "cpu", zoo) is None
    assert get_level("policy").pick(19, "cuda", zoo).role == "next"
    search = get_level("mcts-50").pick(19, "cuda", zoo)
    assert search.role == "search" and search.name == "big"
    assert get_level("mcts-50").pick(19, "cuda", zoo, name="policy-only").asked == "policy-only"
    with pytest.raises(UnknownNetwork, match="unknown next-move network 'darkforest'"):
        get_level("darkforest-2s").pick(19, "cpu", zoo)


def test_the_gtp_loader_applies_the_same_rule_to_a_network_without_a_value_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planes = get_feature_set("golois").num_planes
    for name, value in (("valued", True), ("policy-only", False)):
        net = GoloisNet(GoloisConfig(planes, blocks=1, channels=8, value_head=value))
        checkpoint.save(tmp_path / f"{name}.pt", net, "tiny")
    zoo = write(tmp_path, {"next": "valued"}, [{"name": "valued", "role": "next", "value_head": True},
                                               {"name": "policy-only", "role": "next"}], files=False)
    monkeypatch.setattr(registry, "shipped", lambda: zoo)
    bot, choice = load_bot("mcts-50", network="policy-only", board_size=9, resign_threshold=0)
    assert choice.name == "valued" and choice.asked == "policy-only" and bot.net.has_value
    bot, choice = load_bot("policy", network="policy-only", board_size=9)
    assert choice.name == "policy-only" and not bot.net.has_value


def test_gtp_names_the_network_it_plays_with_and_refuses_an_unknown_one() -> None:
    def gtp(*options: str, commands: str = "quit\n") -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "analysis.gtp", *options], input=commands,
                              capture_output=True, text=True, cwd=ROOT, timeout=120)

    played = gtp("--level", "mcts-50", "--network", "golois", "--size", "9", commands="genmove b\nquit\n")
    assert played.returncode == 0 and "network golois for mcts-50: golois, asked by name" in played.stderr
    # then, at the first batch, how the network computes and why
    on_cuda = torch.cuda.is_available()
    why = r"cuda \(the GPU's choice\)" if on_cuda else r"cpu \(timed on this machine: float32 NCHW"
    assert re.search(rf"network: (float32|bfloat16) (NCHW|NHWC) on {why}", played.stderr), played.stderr
    bad = gtp("--network", "alphago")
    assert bad.returncode != 0
    assert "cannot load the network: unknown next-move network 'alphago'; known: " in bad.stderr


def test_the_picking_kind_of_this_process_is_cpu_without_torch_while_no_default_names_another_kind(
        tmp_path: Path) -> None:
    assert registry.picking_kind("cuda:1") == "cuda" and registry.picking_kind("cpu") == "cpu"
    assert registry.picking_kind(None) == "cpu"  # weights/zoo.json names cpu defaults only
    code = ("import sys; from analysis.nets import registry; "
            "print(registry.picking_kind(None), 'torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["cpu", "False"]
    by_device = Zoo(tmp_path, (), {"next": {"cpu": "small", "cuda": "big"}})
    assert registry.picking_kind(None, by_device) == device_kind(None)  # this process's own, with torch
