"""The evaluator that reads the position (issue 27): the tiles of each kind in every bag and path
and the weather, ``train_evaluator.py --position``, in a version-3 model file."""

from __future__ import annotations

import dataclasses
import json
import math
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.players.agents import SearchAgent
from advisor.players.presets import agent_config
from search.request import Limit
from advisor.players.learned import (
    CONTEXT, FEATURES, POSITION_FEATURES, LearnedEvaluator, ModelFileError, feature_rows, load_model,
    position_rows, read_model, walks_left)
from lab.training import Sample, learned_predictions, sample_rows
from positions.kernel.rules import storms_to_hit, weather_hit_chance
from positions.kernel.tiles import TILES
from builders import random_decisions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def position_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A position model trained on 12 games labelled by 2 rollouts each (seed 3), by the script."""
    out = tmp_path_factory.mktemp("position") / "position.json"
    subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", "3", "--per-game", "4", "--rollouts", "2", "--position", "-o", str(out)],
                   check=True, capture_output=True, cwd=ROOT)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_position_rows_count_every_tile_in_bag_and_path(players: int) -> None:
    """The thirteen come first; then each kind's count in the bag (C7: bags are open) and, while
    walking, on the path (a returned player's path is scored and gone: zero); then the context."""
    kinds = len(TILES)
    for pos in random_decisions(50 + players, players, 40):
        summary = feature_rows(pos)
        for p, row in enumerate(position_rows(pos)):
            assert len(row) == len(POSITION_FEATURES) and row[:len(FEATURES)] == summary[p]
            bag = row[len(FEATURES):len(FEATURES) + kinds]
            path = row[len(FEATURES) + kinds:len(FEATURES) + 2 * kinds]
            assert sum(bag) == len(pos.bags[p]) and all(bag[k] == pos.bags[p].count(k) for k in range(kinds))
            assert sum(path) == (len(pos.paths[p]) if pos.walking[p] else 0)
            context = dict(zip(CONTEXT, row[-len(CONTEXT):]))
            assert context["walks_left"] == walks_left(pos) and context["storms_to_hit"] == storms_to_hit(pos)
            assert context["hit_chance_if_walking"] == (weather_hit_chance(pos) if pos.walking[p] else 0.0)
            assert context["others_walking"] == sum(pos.walking) - pos.walking[p]


def test_a_position_model_file_is_version_3_and_round_trips(position_model_file: Path) -> None:
    model = load_model(str(position_model_file))
    data = json.loads(position_model_file.read_text())
    assert model.layout == "position" and not model.mix and data["version"] == 3
    assert tuple(data["features"]) == POSITION_FEATURES
    assert len(model.score_weights) == len(POSITION_FEATURES) + 2  # the walks left and a constant
    assert model.training["command"].endswith("--position --rollouts 2")
    assert read_model(json.dumps(model.to_json())) == model


def test_position_features_never_read_the_others_hidden_choices(position_model_file: Path) -> None:
    """C7: a pending simultaneous choice is secret; every world the decider may be in reads alike."""
    evaluator = LearnedEvaluator(load_model(str(position_model_file)))
    rng = random.Random(6)
    checked = 0
    for pos in random_decisions(12, 3, 300):
        if pos.is_simultaneous():
            worlds = [pos.determinize(pos.current_player(), rng) for _ in range(4)]
            assert len({repr(position_rows(w)) for w in worlds}) == 1
            assert len({repr(evaluator.evaluate(w)) for w in worlds}) == 1
            checked += 1
    assert checked > 20


def test_an_agent_plays_with_a_position_model(position_model_file: Path) -> None:
    evaluator = LearnedEvaluator(load_model(str(position_model_file)))
    assert evaluator.model.layout == "position"
    agent = SearchAgent("position", Limit(iterations=60), dataclasses.replace(agent_config(), evaluator=evaluator))
    pos = random_decisions(7, 2, 1)[0]
    assert agent.choose(pos, random.Random(1)) in pos.legal_actions()


@pytest.fixture(scope="module")
def network_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A network model (4 tanh units) trained on 12 games labelled by 2 rollouts each, by the script."""
    out = tmp_path_factory.mktemp("network") / "network.json"
    subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", "3", "--per-game", "4", "--rollouts", "2", "--network", "4", "-o", str(out)],
                   check=True, capture_output=True, cwd=ROOT)
    return out


def test_a_network_model_file_is_version_4_and_round_trips(network_model_file: Path) -> None:
    model = load_model(str(network_model_file))
    data = json.loads(network_model_file.read_text())
    assert model.layout == "network" and data["version"] == 4 and tuple(data["features"]) == POSITION_FEATURES
    assert model.hidden is not None and len(model.hidden.bias) == 4
    assert len(model.hidden.weights_in) == len(POSITION_FEATURES)
    assert read_model(json.dumps(model.to_json())) == model
    again = network_model_file.with_name("again.json")
    subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", "3", "--per-game", "4", "--rollouts", "2", "--network", "4", "-o", str(again)],
                   check=True, capture_output=True, cwd=ROOT)
    assert again.read_bytes() == network_model_file.read_bytes()  # seeded: the same file byte for byte


@pytest.mark.parametrize("fixture, change, message", [
    ("position_model_file", lambda d: d.update(features=list(FEATURES)), "features"),
    ("position_model_file", lambda d: d.update(win_weights=d["win_weights"][:len(FEATURES)]),
     f"win_weights must be {len(POSITION_FEATURES)}"),
    ("position_model_file", lambda d: d["score_weights"].pop(), f"score_weights must be {len(POSITION_FEATURES) + 2}"),
    ("network_model_file", lambda d: d.pop("hidden"), "hidden must be an object with units >= 1"),
    ("network_model_file", lambda d: d["hidden"].update(units=0), "hidden must be an object with units >= 1"),
    ("network_model_file", lambda d: d["hidden"]["weights_in"].pop(),
     f"hidden.weights_in must be {len(POSITION_FEATURES)} rows"),
    ("network_model_file", lambda d: d["hidden"]["weights_in"][3].append(1.0),
     r"hidden.weights_in\[3\] must be 4 finite numbers"),
    ("network_model_file", lambda d: d["hidden"].update(bias=[0.0, "x", 0.0, 0.0]), "hidden.bias must be 4 finite numbers"),
])
def test_a_model_file_that_does_not_fit_is_refused(request, fixture: str, change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(request.getfixturevalue(fixture).read_text())
    change(data)
    with pytest.raises(ModelFileError, match=f"m.json: {message}"):
        read_model(json.dumps(data), "m.json")


@pytest.mark.parametrize("fixture", ["position_model_file", "network_model_file"])
def test_evaluate_agrees_with_the_training_predictions(request: pytest.FixtureRequest, fixture: str) -> None:
    """What the search sees is what training fitted and measured on the whole row, bit for bit:
    one summation order (the native core's, docs/evaluator.md)."""
    model = load_model(str(request.getfixturevalue(fixture)))
    evaluator = LearnedEvaluator(model)
    assert model.hidden is None or any(abs(w) > 1e-3 for w in model.hidden.weights_out)
    for pos in random_decisions(61, 3, 40) + random_decisions(62, 2, 20) + random_decisions(63, 4, 20):
        stored = Sample(0, sample_rows(pos, layout=model.layout), walks_left(pos), [], [], [], [])
        shares, projected = learned_predictions(model, [stored])
        got_shares, got_scores = evaluator.evaluate(pos)
        assert (got_shares, got_scores) == (shares[0], projected[0])
        assert sum(got_shares) == pytest.approx(1.0)
    copied_shares, copied_scores = pickle.loads(pickle.dumps(evaluator)).evaluate(pos)
    assert copied_shares == pytest.approx(got_shares) and copied_scores == pytest.approx(got_scores)


def test_a_fitted_network_on_raw_rows_is_the_standardized_one() -> None:
    """The file keeps the network on raw features (standardization folded into the weights)."""
    from lab.value_net import fit_network

    rng = random.Random(9)
    groups = [[[rng.gauss(5, 3) for _ in range(6)] for _ in range(rng.choice([2, 3]))] for _ in range(300)]
    labels = [[1.0 if p == max(range(len(g)), key=lambda q: g[q][0] + g[q][1] ** 2 / 9) else 0.0
               for p in range(len(g))] for g in groups]
    network = fit_network(groups, labels, hidden=5, epochs=20, seed=1)
    linear, layer = network.raw_weights()
    for rows in groups[:40]:
        raw = [sum(w * x for w, x in zip(linear, row)) for row in rows]
        raw = [a + b for a, b in zip(raw, layer.logits(rows))]
        top = max(raw)
        expected = [math.exp(z - top) for z in raw]
        assert network.shares(rows) == pytest.approx([e / sum(expected) for e in expected], abs=1e-5)
    fitted_again = fit_network(groups, labels, hidden=5, epochs=20, seed=1)
    assert (fitted_again.hidden_in == network.hidden_in).all()  # the same seed, the same weights
