"""The learned evaluator's mix features (issue 27): a worth per tile kind fitted to the games,
``train_evaluator.py --mix``, in a version-2 model file."""

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
    FEATURES, MIX_FEATURES, LearnedEvaluator, ModelFileError, load_model, mix_rows, owned_kinds,
    read_model, shipped_model, walks_left)
from lab.training import MIX_L2, Sample, fit_win_weights, learned_predictions, reliability, sample_rows
from positions import Position
from positions.kernel.tiles import STORM
from builders import random_decisions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mix_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mix model trained on 12 games (seed 3), by the script a user runs."""
    out = tmp_path_factory.mktemp("mix") / "mix.json"
    subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", "3", "--per-game", "4", "--mix", "-o", str(out)],
                   check=True, capture_output=True, cwd=ROOT)
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_mix_features_are_the_shares_of_what_each_player_owns(players: int) -> None:
    """Per player the counts cover every owned tile once (bag, hand, path, set aside, Storms held:
    C12 puts a bought tile in the bag), and the row is those shares times the walks left."""
    for pos in random_decisions(30 + players, players, 40):
        for p, row in enumerate(mix_rows(pos)):
            counts, total = owned_kinds(pos, p)
            owned = (len(pos.bags[p]) + len(pos.paths[p]) + len(pos.hands[p]) + len(pos.set_aside[p])
                     + pos.owned_storms[p])
            assert total == owned and len(row) == len(MIX_FEATURES)
            assert counts[STORM] == pos.bags[p].count(STORM) + pos.paths[p].count(STORM) + pos.owned_storms[p]
            assert sum(row) == pytest.approx(walks_left(pos))
            assert all(v >= 0 and math.isfinite(v) for v in row)


def test_a_mix_model_file_is_version_2_and_round_trips(mix_model_file: Path) -> None:
    model = load_model(str(mix_model_file))
    data = json.loads(mix_model_file.read_text())
    assert model.mix and data["version"] == 2
    assert tuple(data["features"]) == FEATURES + MIX_FEATURES
    assert len(model.win_weights) == len(FEATURES) + len(MIX_FEATURES)
    assert len(model.score_weights) == len(model.win_weights) + 2  # the walks left and a constant
    assert model.training["command"].endswith("--mix") and model.training["mix_l2"] == MIX_L2
    assert read_model(json.dumps(model.to_json())) == model
    assert not shipped_model().mix and shipped_model().to_json()["version"] == 1


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(version=5), r"version 5, expected one of \[1, 2, 3, 4\]"),
    (lambda d: d.update(version=True), "version True"),
    (lambda d: d.update(features=list(FEATURES)), "features"),
    (lambda d: d.update(win_weights=d["win_weights"][:len(FEATURES)]), "win_weights must be 44"),
])
def test_a_mix_file_that_does_not_fit_is_refused(mix_model_file: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(mix_model_file.read_text())
    change(data)
    with pytest.raises(ModelFileError, match=message):
        read_model(json.dumps(data), "m.json")


def test_evaluate_agrees_with_the_training_predictions_of_a_mix_model(mix_model_file: Path) -> None:
    """What the search sees is what training measured, bit for bit (one summation order)."""
    model = load_model(str(mix_model_file))
    evaluator = LearnedEvaluator(model)
    for pos in random_decisions(41, 3, 40) + random_decisions(42, 2, 20):
        stored = Sample(0, sample_rows(pos, layout="mix"), walks_left(pos), [], [], [], [])
        shares, projected = learned_predictions(model, [stored])
        got_shares, got_scores = evaluator.evaluate(pos)
        assert (got_shares, got_scores) == (shares[0], projected[0])
        assert sum(got_shares) == pytest.approx(1.0)
    assert pickle.loads(pickle.dumps(evaluator)).evaluate(pos) == evaluator.evaluate(pos)


def test_mix_features_never_read_the_others_hidden_choices(mix_model_file: Path) -> None:
    evaluator = LearnedEvaluator(load_model(str(mix_model_file)))
    rng = random.Random(6)
    checked = 0
    for pos in random_decisions(12, 3, 300):
        if pos.is_simultaneous():
            worlds = [pos.determinize(pos.current_player(), rng) for _ in range(4)]
            assert len({repr(mix_rows(w)) for w in worlds}) == 1
            assert len({repr(evaluator.evaluate(w)) for w in worlds}) == 1
            checked += 1
    assert checked > 20


def test_a_kind_the_games_seldom_show_keeps_a_small_weight() -> None:
    """One sample in 4,000 has a player owning a rare kind, and that player won: standardized, the
    fit would give the kind a weight of tens; in its own units it stays near 0, its worth then
    heuristics.WORTH's (MIX_L2)."""
    rng = random.Random(8)
    samples = []
    for game in range(4000):
        skill = [rng.gauss(0, 1), rng.gauss(0, 1)]
        winner = 0 if skill[0] + rng.gauss(0, 1) > skill[1] + rng.gauss(0, 1) else 1
        rare = [[0.0], [0.0]]
        if game == 0:
            rare[winner] = [0.3]
        samples.append(Sample(game, [[skill[0]] + rare[0], [skill[1]] + rare[1]], 1, [], [],
                              [1.0 - winner, float(winner)], [0.0, 0.0]))
    standardized = fit_win_weights(samples, 1e-3)
    own_units = fit_win_weights(samples, 1e-3, own_units=1)
    assert abs(standardized[1]) > 10
    assert abs(own_units[1]) < 1.0
    assert own_units[0] == pytest.approx(standardized[0], rel=0.05)  # the common feature is unchanged


def test_a_search_takes_a_mix_model(mix_model_file: Path) -> None:
    """A mix model plays as the agent's cut-off evaluator (the retired ``model=PATH``, in the lab)."""
    evaluator = LearnedEvaluator(load_model(str(mix_model_file)))
    assert evaluator.model.mix
    agent = SearchAgent("mix", Limit(iterations=60), dataclasses.replace(agent_config(), evaluator=evaluator))
    pos = Position.new_game(2)
    assert agent.choose(pos, random.Random(1)) in pos.legal_actions()


def test_reliability_bins_and_ece() -> None:
    table, ece = reliability([[0.25, 0.75], [0.25, 0.75]], [[0.0, 1.0], [1.0, 0.0]])
    assert [(b["count"], b["forecast"], b["observed"]) for b in table] == [(2, 0.25, 0.5), (2, 0.75, 0.5)]
    assert ece == pytest.approx(0.25)
    assert reliability([[0.5, 0.5]] * 4, [[1.0, 0.0], [0.0, 1.0]] * 2)[1] == 0.0
