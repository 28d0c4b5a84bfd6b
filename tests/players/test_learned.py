"""The learned cut-off evaluator (issue 16, item 3): its features, the shipped model file, training
by seed, its accuracy against the HeuristicEvaluator, and the agent option that selects it."""

from __future__ import annotations

import json
import math
import pickle
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from advisor.players.agents import make_agent
from advisor.players.presets import DEFAULT_CUTOFF
from advisor.players.bots import HeuristicEvaluator
from advisor.players.learned import (
    FEATURES, HiddenLayer, LearnedEvaluator, ModelFileError, feature_rows, features, read_model, shipped_model,
    walks_left)
from advisor.players.specs import AgentSpecError
from advisor.players.bots import DEFAULT_ROLLOUT
from lab.training import (
    Sample, generate, learned_predictions, metrics, rollout_outcome, train, training_game)
from builders import random_decisions
from positions import Position
from search.ismcts import search
from search.request import SearchRequest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_features_are_finite_and_of_fixed_length(players: int) -> None:
    for pos in random_decisions(players, players, 60):
        for player in range(players):
            values = features(pos, player)
            assert values.shape == (len(FEATURES),)
            assert all(math.isfinite(v) for v in values)


def test_features_never_read_the_others_hidden_choices() -> None:
    """In a simultaneous step the search's determinizations differ only in the others' unrevealed
    choices: every player's features, and so the evaluation, are the same in all of them."""
    rng = random.Random(5)
    checked = 0
    for pos in random_decisions(11, 3, 300):
        if not pos.is_simultaneous():
            continue
        me = pos.current_player()
        worlds = [pos.determinize(me, rng) for _ in range(4)]
        for player in range(pos.players):
            assert len({tuple(features(w, player)) for w in worlds}) == 1
        assert len({repr(LearnedEvaluator().evaluate(w)) for w in worlds}) == 1
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("players", [2, 3, 4])
def test_shares_sum_to_one(players: int) -> None:
    evaluator = LearnedEvaluator()
    for pos in random_decisions(20 + players, players, 40):
        shares, scores = evaluator.evaluate(pos)
        assert len(shares) == len(scores) == players
        assert all(0.0 <= s <= 1.0 for s in shares)
        assert sum(shares) == pytest.approx(1.0)
        assert all(math.isfinite(s) for s in scores)


def test_the_shipped_model_describes_its_training() -> None:
    model = shipped_model()
    assert len(model.win_weights) == len(FEATURES)
    training = model.training
    for field in ("command", "seed", "games", "agents", "samples", "held_out", "label", "rules_version"):
        assert field in training, field
    assert "scripts/train_evaluator.py" in training["command"]
    held_out = training["held_out"]
    for name in ("learned", "heuristic"):
        assert set(held_out[name]) == {"log_loss", "accuracy", "score_mae"}
    assert held_out["learned"]["log_loss"] < held_out["heuristic"]["log_loss"]


def test_a_model_for_other_features_is_refused() -> None:
    data = shipped_model().to_json()
    data["features"] = data["features"][:-1]
    with pytest.raises(ModelFileError, match="features"):
        read_model(json.dumps(data), "x.json")
    with pytest.raises(ModelFileError, match="not JSON"):
        read_model("{", "x.json")


def test_evaluate_agrees_with_the_training_predictions() -> None:
    """What the search sees (evaluate on a position) is what training measured (the stored rows)."""
    model = shipped_model()
    evaluator = LearnedEvaluator(model)
    for pos in random_decisions(9, 3, 20):
        stored = Sample(0, feature_rows(pos), walks_left(pos), [], [], [], [])
        shares, projected = learned_predictions(model, [stored])
        got_shares, got_scores = evaluator.evaluate(pos)
        assert got_shares == pytest.approx(shares[0]) and got_scores == pytest.approx(projected[0])


def test_learned_beats_the_heuristic_on_fresh_games() -> None:
    """Held-out games of a seed the model was not trained on: a clearly lower log loss and a
    better score projection than the HeuristicEvaluator's."""
    samples = generate(150, seed=2024, per_game=8)
    measured = metrics(shipped_model(), samples)
    learned, heuristic = measured["learned"], measured["heuristic"]
    assert learned["log_loss"] < heuristic["log_loss"] - 0.05
    assert learned["accuracy"] > heuristic["accuracy"]
    assert learned["score_mae"] < heuristic["score_mae"]


def _train(out: Path, seed: int, *extra: str) -> bytes:
    subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "train_evaluator.py"), "--games", "12",
                    "--seed", str(seed), "--per-game", "4", "-o", str(out), *extra],
                   check=True, capture_output=True, cwd=ROOT)
    return out.read_bytes()


def test_training_is_reproducible_by_seed(tmp_path: Path) -> None:
    first = _train(tmp_path / "a.json", 3)
    assert _train(tmp_path / "b.json", 3) == first
    other = read_model(_train(tmp_path / "c.json", 4).decode())
    model = read_model(first.decode())
    assert other.win_weights != model.win_weights
    assert model.training["games"] == 12 and model.training["seed"] == 3
    assert model.training["samples"] == {"training": 40, "held_out": 8}


def test_training_on_the_thrifty_continuation_says_so(tmp_path: Path) -> None:
    """--continuation thrifty: the heuristic seats play the thrifty heuristic (issue 27), so the same
    seed gives other games and another model, and the file records it; an unknown one is refused."""
    default = read_model(_train(tmp_path / "a.json", 3).decode())
    thrifty = read_model(_train(tmp_path / "t.json", 3, "--continuation", "thrifty").decode())
    assert thrifty.training["continuation"] == "thrifty" and "continuation" not in default.training
    assert thrifty.win_weights != default.win_weights
    assert thrifty.training["command"].endswith("--continuation thrifty")
    with pytest.raises(ValueError, match="unknown continuation 'stingy'"):
        generate(2, seed=1, per_game=2, continuation="stingy")
    with pytest.raises(ValueError, match="unknown continuation 'stingy'"):
        train(10_000, seed=1, continuation="stingy")  # refused before any game is played


def test_a_rollout_label_is_the_mean_of_the_search_rollouts_from_the_decision() -> None:
    """--rollouts K (issue 27): a kept decision is labelled by K rollouts of the continuation from it,
    what a search without a cut-off would see there; the mean shares sum to 1 (C18 splits a tie),
    a finished game labels itself, and the same seed gives the same labels."""
    for pos in random_decisions(5, 2, 6):
        shares, scores = rollout_outcome(pos, 12, DEFAULT_ROLLOUT, random.Random(1))
        assert sum(shares) == pytest.approx(1.0)
        assert all(0 <= share <= 1 for share in shares)
        assert all(score >= 0 for score in scores)
        assert (shares, scores) == rollout_outcome(pos, 12, DEFAULT_ROLLOUT, random.Random(1))
    finished = random_decisions(6, 2, 1)[0]
    finished.playout(random.Random(2), DEFAULT_ROLLOUT)
    assert rollout_outcome(finished, 3, DEFAULT_ROLLOUT, random.Random(3)) == (
        finished.returns(), [float(v) for v in finished.scores()])
    by_result = training_game(4, seed=7, per_game=6)
    by_rollouts = training_game(4, seed=7, per_game=6, rollouts=8)
    assert [s.rows for s in by_rollouts] == [s.rows for s in by_result]  # the same decisions
    assert [s.returns for s in by_rollouts] != [s.returns for s in by_result]
    assert any(share not in (0.0, 0.5, 1.0) for sample in by_rollouts for share in sample.returns)  # means
    assert training_game(4, seed=7, per_game=6, rollouts=8) == by_rollouts
    with pytest.raises(ValueError, match="rollouts must be 0"):
        train(10, seed=1, rollouts=-1)


def test_training_on_rollout_labels_is_reproducible_and_says_so(tmp_path: Path) -> None:
    """lab/scripts/train_evaluator.py --rollouts K writes the same file for the same seed, and the file
    (like the shipped evaluator-rollouts.json) records its label and command."""
    first = _train(tmp_path / "a.json", 3, "--rollouts", "4")
    assert _train(tmp_path / "b.json", 3, "--rollouts", "4") == first
    model = read_model(first.decode())
    assert model.training["command"].endswith("--rollouts 4")
    assert "mean of 4 rollouts" in model.training["label"]
    assert model.win_weights != read_model(_train(tmp_path / "c.json", 3).decode()).win_weights
    shipped = read_model((ROOT / "lab/data/evaluator-rollouts.json").read_text())
    assert "mean of 16 rollouts" in shipped.training["label"]
    assert shipped.training["command"].endswith("--games 8000 --seed 1 --per-game 8 --held-out 0.2 "
                                                "--l2 0.001 --rollouts 16")


def test_the_agent_option_selects_the_evaluator() -> None:
    """The default agent cuts rollouts off after DEFAULT_CUTOFF decisions and asks the learned
    evaluator (issue 16 step 2); evaluator=heuristic and evaluator=rollout (to the end) stay."""
    learned = make_agent("ismcts:iterations=40,cutoff=4,evaluator=learned")
    assert isinstance(learned.template.config.evaluator, LearnedEvaluator)  # type: ignore[attr-defined]
    assert learned.template.config.rollout_cutoff == 4  # type: ignore[attr-defined]
    default = make_agent("ismcts:iterations=40").template.config  # type: ignore[attr-defined]
    assert isinstance(default.evaluator, LearnedEvaluator) and default.rollout_cutoff == DEFAULT_CUTOFF
    heuristic = make_agent("ismcts:iterations=40,evaluator=heuristic").template.config  # type: ignore[attr-defined]
    assert isinstance(heuristic.evaluator, HeuristicEvaluator) and heuristic.rollout_cutoff == DEFAULT_CUTOFF
    full = make_agent("ismcts:iterations=40,evaluator=rollout").template.config  # type: ignore[attr-defined]
    assert full.evaluator is None and full.rollout_cutoff is None
    pos = Position.new_game(2)
    assert learned.choose(pos, random.Random(1)) in pos.legal_actions()


@pytest.mark.parametrize("spec, message", [
    ("ismcts:cutoff=4,evaluator=rollout", "cutoff=4 needs an evaluator"),
    ("ismcts:cutoff=4,evaluator=neural", "unknown evaluator 'neural'"),
])
def test_bad_evaluator_options_are_refused(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_a_search_with_the_learned_evaluator_is_seeded() -> None:
    pos = Position.new_game(2)
    request = SearchRequest.of(iterations=150, seed=4, rollout_cutoff=4, evaluator=LearnedEvaluator())
    first = search(pos, request)
    assert search(pos, request).actions == first.actions
    assert sum(s.visits for s in first.actions) == 150


def test_the_evaluator_pickles() -> None:
    """Root-parallel searches send the request, evaluator included, to worker processes."""
    pos = Position.new_game(3)
    evaluator = LearnedEvaluator()
    assert pickle.loads(pickle.dumps(evaluator)).evaluate(pos) == evaluator.evaluate(pos)


def test_the_gap_script_compares_feature_sets_against_the_rollout_labels() -> None:
    """lab/scripts/evaluator_gap.py (issue 27): the labels' entropy, then per feature set (and the
    network) a held-out log loss no lower than that floor and the squared error left once the
    labels' own noise is taken out; bad counts are a one-line error, exit 2."""
    script = str(ROOT / "lab" / "scripts" / "evaluator_gap.py")
    done = subprocess.run([sys.executable, script, "--games", "8", "--per-game", "3", "--rollouts", "4",
                           "--seed", "2", "--hidden", "3"], capture_output=True, text=True, cwd=ROOT, check=True)
    lines = done.stdout.splitlines()
    floor = float(re.search(r"entropy \(4 rollouts\): ([0-9.]+)", lines[0]).group(1))  # type: ignore[union-attr]
    found = {m.group(1): float(m.group(2)) for m in
             (re.match(r"  (.+?) +\d+ features  held-out log loss ([0-9.]+)  reducible squared error", line)
              for line in lines[1:]) if m}
    assert list(found) == ["the evaluator's 13", "13 + extra", "13 + products", "13 + extra + products",
                           "13 + tiles by kind + weather", "network, 3 hidden units"]
    assert all(loss >= floor - 1e-9 for loss in found.values())
    bad = subprocess.run([sys.executable, script, "--games", "2"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--games >= 4" in bad.stderr


def test_the_reducible_error_takes_out_the_labels_noise() -> None:
    """Two independent halves of the rollouts: E[(A - f)(B - f)] is (E A - f)^2, so a forecast of the
    true chances scores about 0 however noisy the labels, and a wrong one its squared distance."""
    from lab.scripts.evaluator_gap import reducible_error

    rng = random.Random(4)
    truth = [[p, 1 - p] for p in (rng.random() for _ in range(4000))]

    def half(chances: list[float]) -> list[float]:
        wins = sum(rng.random() < chances[0] for _ in range(4)) / 4
        return [wins, 1 - wins]

    data = [(0, None, half(t), half(t)) for t in truth]
    assert abs(reducible_error(truth, data)) < 0.005  # type: ignore[arg-type]
    off = [[min(1.0, t[0] + 0.2), 0.0] for t in truth]
    expected = sum((o[0] - t[0]) ** 2 + t[1] ** 2 for o, t in zip(off, truth)) / len(truth)
    assert reducible_error(off, data) == pytest.approx(expected, abs=0.01)  # type: ignore[arg-type]



@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, 3.0, -2.5, 0.1, 7e-3]), min_size=6, max_size=6),
       st.integers(0, 2**32))
def test_a_hidden_layer_skips_zero_features_without_changing_a_bit(row: list[float], seed: int) -> None:
    """``HiddenLayer.logit`` skips the row's zeros; the plain ordered sum over every feature gives
    the same number, to the sign of a zero (the order the native core copies, docs/evaluator.md)."""
    rng = random.Random(seed)
    units = 3
    layer = HiddenLayer(tuple(tuple(rng.uniform(-1, 1) for _ in range(units)) for _ in row),
                        tuple(rng.uniform(-1, 1) for _ in range(units)), tuple(rng.uniform(-1, 1) for _ in range(units)))
    plain = 0.0
    for j in range(units):
        total = 0.0
        for x, weights in zip(row, layer.weights_in):
            total += x * weights[j]
        plain += math.tanh(total + layer.bias[j]) * layer.weights_out[j]
    assert repr(layer.logit(row)) == repr(plain)
