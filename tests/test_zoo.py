"""The shipped networks by name: roles, defaults and the board sizes a fixed-board network reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.nets import checkpoint
from analysis.nets.presets import config_from_dict
from analysis.nets.zoo import UnknownNetwork, Zoo


def entry(name: str, role: str, **extra: object) -> dict:
    return {"name": name, "file": f"{name}.pt", "role": role, "title": name, "paper": "p",
            "paper_figure": "f", **extra}


@pytest.fixture
def zoo(tmp_path: Path) -> Zoo:
    networks = [entry("res", "next"), entry("res-back", "previous"),
                entry("dense", "previous", board_sizes=[19]), entry("missing", "next")]
    for n in networks[:3]:
        (tmp_path / n["file"]).write_bytes(b"")
    manifest = {"default": {"next": "res", "previous": "dense"}, "networks": networks}
    (tmp_path / "zoo.json").write_text(json.dumps(manifest))
    return Zoo.load(tmp_path)


def test_only_networks_whose_file_is_present_are_shipped(zoo: Zoo) -> None:
    assert zoo.names() == ["res", "res-back", "dense"]
    assert zoo.names("next") == ["res"]
    with pytest.raises(UnknownNetwork, match="unknown next-move network 'missing'; known: res"):
        zoo.entry("missing", "next")


def test_a_fixed_board_network_is_offered_only_for_its_board(zoo: Zoo) -> None:
    assert zoo.names("previous", 19) == ["res-back", "dense"]
    assert zoo.names("previous", 9) == ["res-back"]
    assert zoo.entry("dense", "previous", 19).board_sizes == (19,)
    with pytest.raises(UnknownNetwork, match=r"'dense' reads 19x19 boards only, not 9x9; "
                                             r"back-prediction networks for 9x9: res-back"):
        zoo.entry("dense", "previous", 9)


def test_the_json_of_an_entry_names_the_board_sizes_it_reads_and_its_value_head(zoo: Zoo) -> None:
    assert zoo.entry("dense").to_json()["board_sizes"] == [19]
    assert zoo.entry("res").to_json()["board_sizes"] is None
    assert zoo.entry("res").to_json()["value_head"] is False


@pytest.mark.parametrize("default, message", [
    ({"next": {"cuda": "res"}}, "needs a 'cpu' network"),
    ({"next": ["res"]}, "a default is a name or an object of names"),
    ({"nest": "res"}, r"a default for an unknown role \(nest\); roles: next, search, review, previous"),
])
def test_a_malformed_default_is_refused_saying_why(tmp_path: Path, default: dict, message: str) -> None:
    manifest = {"default": default, "networks": [entry("res", "next")]}
    (tmp_path / "zoo.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match=message):
        Zoo.load(tmp_path)


def test_the_shipped_manifest_says_which_networks_have_a_value_head() -> None:
    shipped = Zoo.load()
    for e in shipped.entries:
        assert config_from_dict(checkpoint.load(e.path)["config"]).value_head == e.value_head, e.name


def test_the_shipped_dense_networks_read_19x19_only() -> None:
    shipped = Zoo.load()
    dense = [e.name for e in shipped.entries if e.name.startswith("tk-")]
    assert dense and all(shipped.entry(name).board_sizes == (19,) for name in dense)
    assert not set(dense) & set(shipped.names("previous", 9))
