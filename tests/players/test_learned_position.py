"""The evaluator that reads the position (issue 27): the tiles of each kind in every bag and path
and the weather, ``train_evaluator.py --position``, in a version-3 model file."""

from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.players.agents import make_agent
from advisor.players.learned import (
    CONTEXT, FEATURES, POSITION_FEATURES, LearnedEvaluator, ModelFileError, feature_rows, load_model,
    position_rows, read_model, walks_left)
from advisor.players.training import Sample, learned_predictions, sample_rows
from positions.rules import storms_to_hit, weather_hit_chance
from positions.tiles import TILES
from test_learned import _decisions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def position_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A position model trained on 12 games labelled by 2 rollouts each (seed 3), by the script."""
    out = tmp_path_factory.mktemp("position") / "position.json"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", "3", "--per-game", "4", "--rollouts", "2", "--position", "-o", str(out)],
                   check=True, capture_output=True, cwd=ROOT)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_position_rows_count_every_tile_in_bag_and_path(players: int) -> None:
    """The thirteen come first; then each kind's count in the bag (C7: bags are open) and, while
    walking, on the path (a returned player's path is scored and gone: zero); then the context."""
    kinds = len(TILES)
    for pos in _decisions(50 + players, players, 40):
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


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(features=list(FEATURES)), "features"),
    (lambda d: d.update(win_weights=d["win_weights"][:len(FEATURES)]), f"win_weights must be {len(POSITION_FEATURES)}"),
    (lambda d: d["score_weights"].pop(), f"score_weights must be {len(POSITION_FEATURES) + 2}"),
])
def test_a_position_file_that_does_not_fit_is_refused(position_model_file: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(position_model_file.read_text())
    change(data)
    with pytest.raises(ModelFileError, match=f"m.json: {message}"):
        read_model(json.dumps(data), "m.json")


def test_evaluate_agrees_with_the_training_predictions_of_a_position_model(position_model_file: Path) -> None:
    """What the search sees (kind sums memoised per bag) is what training fitted and measured."""
    model = load_model(str(position_model_file))
    evaluator = LearnedEvaluator(model)
    for pos in _decisions(61, 3, 40) + _decisions(62, 2, 20) + _decisions(63, 4, 20):
        stored = Sample(0, sample_rows(pos, layout="position"), walks_left(pos), [], [], [], [])
        shares, projected = learned_predictions(model, [stored])
        got_shares, got_scores = evaluator.evaluate(pos)
        assert got_shares == pytest.approx(shares[0]) and got_scores == pytest.approx(projected[0])
        assert sum(got_shares) == pytest.approx(1.0)
    assert pickle.loads(pickle.dumps(evaluator)).evaluate(pos) == evaluator.evaluate(pos)


def test_position_features_never_read_the_others_hidden_choices(position_model_file: Path) -> None:
    """C7: a pending simultaneous choice is secret; every world the decider may be in reads alike."""
    evaluator = LearnedEvaluator(load_model(str(position_model_file)))
    rng = random.Random(6)
    checked = 0
    for pos in _decisions(12, 3, 300):
        if pos.is_simultaneous():
            worlds = [pos.determinize(pos.current_player(), rng) for _ in range(4)]
            assert len({repr(position_rows(w)) for w in worlds}) == 1
            assert len({repr(evaluator.evaluate(w)) for w in worlds}) == 1
            checked += 1
    assert checked > 20


def test_an_agent_plays_with_a_position_model(position_model_file: Path) -> None:
    agent = make_agent(f"ismcts:iterations=60,model={position_model_file}")
    evaluator = agent.template.evaluator  # type: ignore[attr-defined]
    assert isinstance(evaluator, LearnedEvaluator) and evaluator.model.layout == "position"
    pos = _decisions(7, 2, 1)[0]
    assert agent.choose(pos, random.Random(1)) in pos.legal_actions()
