"""Tang & Kaneko's back prediction: their CNN and capsule net, their input planes, their ladder set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from analysis.features import FeatureContext, extract, get_feature_set
from analysis.go.coords import BLACK, WHITE, from_gtp, to_sgf
from analysis.go.position import Position
from analysis.nets import checkpoint
from analysis.nets.capsule import CapsuleLayer, TangKanekoCapsuleNet, route, squash
from analysis.nets.inference import Network
from analysis.nets.presets import build, config_from_dict, get_preset
from analysis.nets.tang_kaneko import TangKanekoCNN, TangKanekoCNNConfig
from analysis.sgf import read_sgf
from analysis.train import ladder_set
from analysis.train.evaluate import evaluate
from analysis.train.example_sampler import ExampleSampler
from analysis.train.games import TrainingGame
from analysis.train.loop import TrainConfig, train

TK_PRESETS = ["tk-cnn1", "tk-cnn3", "tk-capsule", "tk-cnn1-k1"]

# The ladder of the hand-made game: White's C4 has two liberties, and Black's C3 starts a ladder
# that runs up and to the right to the edge (no breaker on its way).
LADDER_START = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . X . . . . . .
. X O . . . . . .
. . . X . . . . .
. . . . . . . . .
. . . . . . . . .
"""
LADDER_MOVES = ["C3", "D4", "E4", "D5", "D6", "E5", "F5", "E6"]  # Black chases, White extends
QUIET_MOVES = ["E5", "C7", "G3", "G7", "C3", "E3"]  # a game without a ladder



def game_of(sgf: str, source: str = "<game>") -> TrainingGame:
    """The training game of an SGF text."""
    return TrainingGame.from_record(read_sgf(sgf, source=source))

def on_19x19(diagram: str) -> str:
    """The 9x9 ``diagram`` in the top-left corner of an empty 19x19 board."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    return "\n".join(" ".join(row + ["."] * 10) for row in rows + [["."] * 9] * 10)


def sgf_game(size: int, moves: list[str], start: str | None = None) -> str:
    """An SGF game of ``moves`` (GTP, alternating from Black) from the stones of diagram ``start``."""
    setup = ""
    if start is not None:
        stones = Position.from_diagram(start).stones().ravel()
        for color, prop in ((BLACK, "AB"), (WHITE, "AW")):
            setup += prop + "".join(f"[{to_sgf(int(p), size)}]" for p in np.flatnonzero(stones == color))
    body = "".join(f";{'BW'[i % 2]}[{to_sgf(from_gtp(m, size), size)}]" for i, m in enumerate(moves))
    return f"(;GM[1]FF[4]SZ[{size}]KM[6.5]{setup}{body})"


@pytest.mark.parametrize("preset", TK_PRESETS)
@pytest.mark.parametrize("size", [9, 13, 19])
def test_each_network_gives_one_previous_move_logit_per_point_and_pass_and_no_value(preset: str,
                                                                                    size: int) -> None:
    config = get_preset(preset)
    assert config.target == "previous"
    model = build(config).eval()
    x = (torch.rand(3, config.in_planes, size, size) > 0.5).float()
    with torch.inference_mode():
        policy, value = model(x)
        heads = model.forward_all(x)
    assert policy.shape == (3, 1, size * size + 1) and torch.isfinite(policy).all()
    assert value is None and set(heads) == {"policy"}
    assert config_from_dict(config.to_dict()) == config


@pytest.mark.parametrize("preset", TK_PRESETS)
def test_boards_larger_than_the_dense_layers_are_refused(preset: str) -> None:
    config = get_preset(preset)
    with pytest.raises(ValueError, match="at most 19x19"):
        build(config)(torch.zeros(1, config.in_planes, 21, 21))


def test_the_cnn_has_the_papers_layers() -> None:
    model = build(get_preset("tk-cnn1"))
    assert isinstance(model, TangKanekoCNN)
    assert [(c.out_channels, c.kernel_size, c.padding) for c in model.convs] == [
        (48, (7, 7), (3, 3)), (32, (5, 5), (2, 2)), (32, (5, 5), (2, 2)), (32, (5, 5), (2, 2))]
    assert (model.hidden.in_features, model.hidden.out_features) == (32 * 361, 512)
    assert model.out.out_features == 361 + 1  # the paper's 361 outputs, plus pass
    assert build(get_preset("tk-cnn3")).out.out_features == 722 + 1  # move and colour, plus pass


def test_the_722_output_net_answers_from_the_half_of_the_colour_to_play() -> None:
    model = build(get_preset("tk-cnn3")).eval()
    with torch.no_grad():
        model.out.weight.zero_()
        model.out.bias.zero_()
        model.out.bias[5] = 10.0  # first half: Black to play
        model.out.bias[361 + 7] = 10.0  # second half: White to play
    black, white = Position(19), Position(19)
    black.play(from_gtp("E5", 19), WHITE)  # White moved, Black to play
    white.play(from_gtp("E5", 19), BLACK)
    fs = get_feature_set("tk-multiplane")
    x = torch.from_numpy(np.stack([fs.extract(FeatureContext(p)) for p in (black, white)]))
    with torch.inference_mode():
        policy, _ = model(x)
    assert policy[:, 0].argmax(1).tolist() == [5, 7]


def test_signed_stones_are_plus_one_for_the_player_to_move_and_the_k1_plane_is_the_board_before() -> None:
    pos = Position.from_diagram("""
        . X O .
        X O . .
        . X . .
        . . . .
    """, to_play=BLACK)
    pos.play(from_gtp("C3", 4), BLACK)  # captures White's B3
    k1 = extract(pos, "tk-oneplane-k1")  # White to play: White's stones are +1
    np.testing.assert_array_equal(k1[0], [[0, -1, 1, 0], [-1, 0, -1, 0], [0, -1, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(k1[1], [[0, -1, 1, 0], [-1, 1, 0, 0], [0, -1, 0, 0], [0, 0, 0, 0]])
    assert ((k1[0] - k1[1]) != 0).sum() == 2  # the move and its capture: the previous move given away
    multi = extract(pos, "tk-multiplane")
    assert multi[0].sum() == 4 and multi[1].sum() == 1 and (multi[2] == 0).all()  # White to play


def test_squash_keeps_the_direction_and_maps_lengths_below_one() -> None:
    s = torch.tensor([[3.0, 4.0], [0.03, 0.04], [0.0, 0.0]])
    v = squash(s)
    lengths = v.norm(dim=-1)
    assert lengths[0] == pytest.approx(25 / 26) and lengths[1] == pytest.approx(0.0025 / 1.0025, rel=1e-3)
    assert lengths[2] == 0
    torch.testing.assert_close(v[0] / lengths[0], s[0] / 5)


def test_routing_couplings_sum_to_one_over_the_output_capsules_and_lengths_stay_below_one() -> None:
    torch.manual_seed(0)
    predictions = 3 * torch.randn(2, 12, 30, 4)  # 12 lower capsules, 30 upper ones of 4 dimensions
    v, coupling = route(predictions, iterations=3)
    assert v.shape == (2, 30, 4) and coupling.shape == (2, 12, 30)
    torch.testing.assert_close(coupling.sum(dim=2), torch.ones(2, 12))
    assert (v.norm(dim=-1) < 1).all()
    assert not torch.allclose(coupling, torch.full_like(coupling, 1 / 30))  # agreement moved them
    with pytest.raises(ValueError):
        route(predictions, iterations=0)


def test_the_capsule_net_has_one_capsule_per_point_and_pass_whose_lengths_give_the_policy() -> None:
    torch.manual_seed(0)
    model = build(get_preset("tk-capsule")).eval()
    assert isinstance(model, TangKanekoCapsuleNet) and isinstance(model.capsules, CapsuleLayer)
    with torch.no_grad():
        model.capsules.weight.mul_(100)  # long capsules, some near 1
    x = (torch.rand(2, 1, 19, 19) > 0.5).float() - (torch.rand(2, 1, 19, 19) > 0.5).float()
    with torch.inference_mode():
        v, coupling = model.point_capsules(x)
        policy, _ = model(x)
    assert v.shape == (2, 362, 8) and coupling.shape == (2, 100, 362)
    torch.testing.assert_close(coupling.sum(dim=2), torch.ones(2, 100))
    lengths = v.norm(dim=-1)
    assert (lengths < 1).all()
    probs = torch.softmax(policy[:, 0], dim=1)  # the 361 points, then pass
    torch.testing.assert_close(probs, lengths / lengths.sum(dim=1, keepdim=True), rtol=1e-4, atol=1e-6)


def test_configs_refuse_heads_the_papers_nets_do_not_have() -> None:
    with pytest.raises(ValueError, match="one policy head"):
        TangKanekoCNNConfig(1, 4, 32, value_head=True)


@pytest.mark.parametrize("preset", ["tk-cnn1", "tk-cnn3", "tk-capsule"])
def test_a_shipped_half_precision_copy_loads_as_float32_with_the_same_answers(preset: str,
                                                                              tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = build(get_preset(preset)).eval()
    checkpoint.save(tmp_path / "run.pt", model, preset, optimizer={"state": {}}, samples=5, wall_seconds=1.0)
    checkpoint.ship(tmp_path / "run.pt", tmp_path / "shipped.pt", half=True)
    shipped = checkpoint.load(tmp_path / "shipped.pt")
    assert "optimizer" not in shipped and shipped["samples"] == 5
    assert all(t.dtype == torch.float16 for t in shipped["model"].values())
    loaded, _ = checkpoint.load_model(tmp_path / "shipped.pt")
    assert all(p.dtype == torch.float32 for p in loaded.parameters())
    pos = Position(19)
    for vertex in ("D4", "Q16", "D16"):
        pos.play(from_gtp(vertex, 19))
    first = Network(model, dtype="float32").predict([pos]).policy
    again = Network(loaded, dtype="float32").predict([pos]).policy
    np.testing.assert_allclose(again, first, atol=2e-3)
    assert again[0].argmax() == first[0].argmax()


def test_the_ladder_set_finds_every_chase_and_extension_of_a_hand_made_ladder() -> None:
    found = ladder_set.game_ladder_moves(game_of(sgf_game(9, LADDER_MOVES, LADDER_START)))
    points = [from_gtp(v, 9) for v in LADDER_MOVES]
    assert [(m.point, m.kind) for m in found] == [(p, "chase" if i % 2 == 0 else "extend")
                                                  for i, p in enumerate(points)]
    example = found[2].example()  # after Black's E4: White to find it
    assert example.move == from_gtp("E4", 9) and example.position.to_play == WHITE
    assert example.mask[example.move] and example.position.color_at(example.move) == BLACK
    assert ladder_set.game_ladder_moves(game_of(sgf_game(9, QUIET_MOVES))) == []


def test_the_ladder_set_is_split_by_game_name_wherever_the_game_is_stored(tmp_path: Path) -> None:
    assert ladder_set.game_name(game_of("(;SZ[9])", source="a/b/g1.sgf")) == "g1.sgf"
    assert ladder_set.game_name(game_of("(;SZ[9])", source="x.zip:2010/g1.sgf")) == "g1.sgf"
    names = [f"game{i}.sgf" for i in range(40)]
    splits = {n: ladder_set.split_of(n) for n in names}
    assert set(splits.values()) == {"train", "validation"}  # 40 games: both sides
    for name in names:
        (tmp_path / name).write_text(sgf_game(9, LADDER_MOVES, LADDER_START))
    found = ladder_set.build([str(tmp_path)], board_size=9)
    for split in ladder_set.SPLITS:
        games = sum(1 for s in splits.values() if s == split)
        assert found.games[split] == games and len(found.moves[split]) == games * len(LADDER_MOVES)
    saved = tmp_path / "cache" / "set.npz"
    found.save(saved)
    again = ladder_set.LadderSet.load(saved)
    assert again.games == found.games and again.describe() == found.describe()
    assert [m.point for m in again.moves["validation"]] == [m.point for m in found.moves["validation"]]


def test_the_example_sampler_visits_every_example_once_an_epoch() -> None:
    ladder = game_of(sgf_game(9, LADDER_MOVES, LADDER_START))
    examples = [m.example() for m in ladder_set.game_ladder_moves(ladder)]
    sampler = ExampleSampler(examples, "tk-oneplane", seed=1)
    batch = sampler.batch(len(examples))
    assert sampler.epochs == 1 and batch.inputs.shape == (8, 1, 9, 9)
    for i, move in enumerate(batch.moves[:, 0]):
        assert batch.legal[i, move]  # under its symmetry, the target is a stone of the player who moved
        assert batch.inputs[i, 0].ravel()[move] == -1
    sampler.batch(3)
    assert sampler.epochs == 2


def test_training_and_evaluation_on_the_ladder_set_use_its_two_parts(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ladder_set, "CACHE_DIR", tmp_path / "cache")
    folder = tmp_path / "games"
    folder.mkdir()
    moves = [v[0] + str(int(v[1:]) + 10) for v in LADDER_MOVES]  # the same points, 10 rows higher
    for i in range(20):
        (folder / f"game{i}.sgf").write_text(sgf_game(19, moves, on_19x19(LADDER_START)))
    built = ladder_set.load_or_build([str(folder)])
    assert list((tmp_path / "cache").glob("*.npz"))  # cached for the next run
    validation = len(built.moves["validation"])
    assert validation and built.moves["train"]
    metrics = train(TrainConfig(preset="tk-cnn1", data=[str(folder)], run_dir=str(tmp_path / "run"),
                                ladder_set=True, batch_size=8, max_samples=16, validate_every=8, workers=0,
                                progress=False, dtype="float32"))
    assert metrics["positions"] == validation
    assert (tmp_path / "run" / "best.pt").exists()
    result = evaluate([str(folder)], str(tmp_path / "run" / "last.pt"), 5000, 1, ladder_games=100)
    assert result["positions"] == validation and result["data"] == "ladder set validation"
    checkpoint.save(tmp_path / "next.pt", build(get_preset("golois-b4c48")), "golois-b4c48")
    with pytest.raises(ValueError, match="back-prediction"):
        evaluate([str(folder)], str(tmp_path / "next.pt"), 5000, 1, ladder_games=100)
