"""Expert iteration on the native core (issue 54, item 3): `lab/scripts/expert_iteration.py` end to
end on tiny generations, its store, its determinism and resume, and the models it writes."""

from __future__ import annotations

import dataclasses
import json
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.arena.match import ArenaSettings, run_arena
from advisor.players.agents import SearchAgent, make_agent
from advisor.players.learned import POSITION_FEATURES, LearnedEvaluator, load_model, shipped_model
from advisor.players.presets import agent_config
from advisor.players.specs import AgentSpecError
from lab.expert_fit import calibration_error, labels, log_loss, split_games, win_shares
from lab.expert_gate import GATE_SECONDS, gate_settings, generation_spec
from lab.expert_selfplay import root_value
from lab.expert_store import Decisions, ExpertStore, pack_rows, unpack_rows
from lab.training import Sample, learned_predictions, reliability
from lab.training import log_loss as training_log_loss
from lab.scripts import expert_iteration
from builders import midgame
from search.request import ActionStats, Limit, SearchResult

ROOT = Path(__file__).resolve().parents[2]
GAMES = 3
ITERATIONS = 30
"""Tiny generations: about 0.1 CPU-s a game."""


def run(out: Path, *extra: str, generations: int = 2, games: int = GAMES, seed: int = 7) -> int:
    """The script, in process."""
    return expert_iteration.main(["--generations", str(generations), "--games", str(games), "--seed", str(seed),
                                  "--out", str(out), "--iterations", str(ITERATIONS), *extra])


def stored_settings(out: Path) -> dict[str, object]:
    """The run settings a store holds (to open it again)."""
    db = sqlite3.connect(out / "selfplay.sqlite")
    try:
        return {k: json.loads(v) for k, v in db.execute("SELECT key, value FROM settings")
                if k not in ("kind", "version")}
    finally:
        db.close()


def digest(out: Path) -> str:
    store = ExpertStore(str(out / "selfplay.sqlite"), stored_settings(out))
    try:
        return store.digest()
    finally:
        store.close()


def decisions(out: Path, generation: int) -> Decisions:
    store = ExpertStore(str(out / "selfplay.sqlite"), stored_settings(out))
    try:
        return store.decisions(generation)
    finally:
        store.close()


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two generations of 3 games (seed 7), one worker."""
    out = tmp_path_factory.mktemp("expert") / "run"
    assert run(out) == 0
    return out


def test_a_generation_end_to_end(one_run: Path) -> None:
    for generation in (1, 2):
        stored = decisions(one_run, generation)
        assert set(stored.game.tolist()) == set(range(GAMES))
        assert len(stored) > 40 * GAMES  # every asked decision of a whole game is kept
        assert stored.rows.shape == (len(stored), 2, len(POSITION_FEATURES))
        assert (stored.rows[:, 0, POSITION_FEATURES.index("walks_left")] == stored.walks_left).all()
        assert np.allclose(stored.search_wins.sum(axis=1), 1.0)
        assert {tuple(sorted(r)) for r in stored.returns.tolist()} <= {(0.0, 1.0), (0.5, 0.5)}
        db = sqlite3.connect(one_run / "selfplay.sqlite")
        (budget,) = db.execute("SELECT iterations FROM decisions WHERE generation = ? GROUP BY iterations "
                               "ORDER BY COUNT(*) DESC LIMIT 1", (generation,)).fetchone()
        db.close()
        assert budget == ITERATIONS  # the label is the move's own search, not a kept tree's earlier visits
        model = load_model(str(one_run / f"gen-{generation}" / "evaluator.json"))
        assert model.layout == "network" and model.hidden is not None
        parent = f"gen-{generation - 1}"
        held_out = model.training["held_out"]
        assert set(held_out) == {"new", parent}
        for measures in held_out.values():
            assert measures["all"]["decisions"] == sum(m["decisions"] for k, m in measures.items() if k != "all")
            assert all(0 <= m["ece"] <= 1 and m["log_loss_outcome"] > 0 for m in measures.values())
        assert model.training["games"] == {"fitted": 2, "held_out": 1}


def test_the_measures_are_the_evaluators_and_the_trainings(one_run: Path) -> None:
    """NumPy's win shares are the evaluator's (to rounding), the log loss and ECE lab.training's."""
    stored = decisions(one_run, 2).take(np.arange(60))
    for model in (load_model(str(one_run / "gen-1" / "evaluator.json")), shipped_model()):
        shares = win_shares(model, stored.rows)
        samples = [Sample(0, rows, int(left), [], [], [], []) for rows, left in
                   zip(stored.rows.tolist(), stored.walks_left.tolist())]
        expected, _ = learned_predictions(model, samples)
        assert np.allclose(shares, expected, atol=1e-12)
        assert log_loss(shares, stored.returns) == pytest.approx(training_log_loss(expected, stored.returns.tolist()))
        _, ece = reliability(expected, stored.returns.tolist())
        assert calibration_error(shares, stored.returns) == pytest.approx(ece)


def test_the_same_seed_gives_the_same_store_and_models_whatever_the_workers(one_run: Path, tmp_path: Path) -> None:
    other = tmp_path / "two-workers"
    assert run(other, "--workers", "2") == 0
    assert digest(other) == digest(one_run)
    for generation in (1, 2):
        name = Path(f"gen-{generation}") / "evaluator.json"
        assert (other / name).read_bytes() == (one_run / name).read_bytes()
    another = tmp_path / "another-seed"
    assert run(another, generations=1, seed=8) == 0
    assert digest(another) != digest(one_run)
    assert not np.array_equal(decisions(another, 1).rows[:50], decisions(one_run, 1).rows[:50])


@pytest.mark.parametrize("stopped", ["during generation 1", "after generation 1's model"])
def test_a_resumed_run_equals_one_run(one_run: Path, tmp_path: Path, stopped: str) -> None:
    """A run killed anywhere holds whole games only (one transaction each) and the models written
    so far: recreate that state from the finished run, then resume it."""
    out = tmp_path / "resumed"
    shutil.copytree(one_run, out)
    db = sqlite3.connect(out / "selfplay.sqlite")
    if stopped == "during generation 1":
        db.execute("DELETE FROM decisions WHERE generation = 2 OR (generation = 1 AND game = 1)")
        db.execute("DELETE FROM games WHERE generation = 2 OR (generation = 1 AND game = 1)")
        shutil.rmtree(out / "gen-1")
    else:
        db.execute("DELETE FROM decisions WHERE generation = 2 AND game > 0")
        db.execute("DELETE FROM games WHERE generation = 2 AND game > 0")
    db.commit()
    db.close()
    shutil.rmtree(out / "gen-2")
    assert digest(out) != digest(one_run)
    assert run(out, "--resume") == 0
    assert digest(out) == digest(one_run)
    for generation in (1, 2):
        name = Path(f"gen-{generation}") / "evaluator.json"
        assert (out / name).read_bytes() == (one_run / name).read_bytes()


def test_a_run_killed_mid_game_resumes_to_the_same_store(one_run: Path, tmp_path: Path) -> None:
    """SIGKILL while games are being played and stored (two workers), then --resume: the store
    and the models equal an uninterrupted run's."""
    out = tmp_path / "killed"
    command = [sys.executable, "-m", "lab.scripts.expert_iteration", "--generations", "2", "--games", str(GAMES),
               "--seed", "7", "--out", str(out), "--iterations", str(ITERATIONS), "--workers", "2"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while process.poll() is None and not stored_games(out):
            time.sleep(0.005)
    finally:
        process.kill()
        process.wait()
    assert 0 < stored_games(out) < 2 * GAMES, "killed before the first game or after the last"
    assert run(out, "--resume") == 0
    assert digest(out) == digest(one_run)
    for generation in (1, 2):
        name = Path(f"gen-{generation}") / "evaluator.json"
        assert (out / name).read_bytes() == (one_run / name).read_bytes()


def stored_games(out: Path) -> int:
    """Games in a run's store (0 while it does not exist yet)."""
    path = out / "selfplay.sqlite"
    if not path.exists():
        return 0
    db = sqlite3.connect(path, timeout=30.0)
    try:
        return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not made yet
        return 0
    finally:
        db.close()


def test_a_stored_run_is_continued_only_as_itself(one_run: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "copy"
    shutil.copytree(one_run, out)
    assert run(out) == 2
    assert "add --resume" in capsys.readouterr().err
    assert run(out, "--resume", games=GAMES + 1) == 2
    error = capsys.readouterr().err
    assert "games=3" in error and error.count("\n") == 1
    assert run(tmp_path / "none", "--resume") == 2
    assert "no run to resume" in capsys.readouterr().err
    assert run(out, "--resume", generations=2) == 0  # done already: nothing played, nothing changed
    assert digest(out) == digest(one_run)


def test_the_native_search_takes_the_model(one_run: Path) -> None:
    evaluator = LearnedEvaluator(load_model(str(one_run / "gen-2" / "evaluator.json")))
    assert evaluator.native_weights() is not None
    position = midgame()
    assert len(position.legal_actions()) > 1
    results = []
    for config in (agent_config(), dataclasses.replace(agent_config(), evaluator=evaluator)):
        agent = SearchAgent("agent", Limit(iterations=200), config)
        agent.choose(position, random.Random(3))
        assert agent.last is not None and agent.last.backend == "native"
        results.append([s.wins for s in agent.last.actions])
    assert results[0] != results[1]  # the cut-offs were judged by the new model, not the shipped one


def test_the_gate_plays_generations_through_the_arena(one_run: Path, tmp_path: Path) -> None:
    settings = gate_settings(str(one_run), 2, 40, seed=7, workers=2)
    assert [name for name, _ in settings.agents] == ["gen-2", "gen-1"]
    assert settings.agents[0][1] == generation_spec(str(one_run), 2)
    assert f"seconds={GATE_SECONDS:g}" in settings.agents[1][1] and "gen-1" in settings.agents[1][1]
    assert settings.sprt is not None and (settings.sprt.elo0, settings.sprt.elo1) == (0.0, 10.0)
    assert not settings.resume and settings.db.endswith("gen-2/gate.sqlite")
    assert generation_spec(str(one_run), 0) == "ismcts:seconds=0.2"
    model = one_run / "gen-1" / "evaluator.json"
    db = str(tmp_path / "arena.sqlite")
    agents = [("gen-1", f"expert:iterations=20,model={model}"), ("gen-0", "ismcts:iterations=20")]
    tally = run_arena(ArenaSettings(agents, games=2, seed=3, db=db))
    assert len(tally.played) == 2
    with pytest.raises(AgentSpecError, match="model=PATH"):
        make_agent("expert:iterations=20")


def result_of(actions: list[ActionStats]) -> SearchResult:
    return SearchResult(0, tuple(actions), actions[0].action, 0, 0.0)


def test_the_root_value_is_the_mean_over_the_searchs_own_iterations() -> None:
    a = ActionStats(1, 30, 0.6, 0, 1, 20.0, (0.6, 0.4), (20.0, 18.0), samples=30)
    b = ActionStats(2, 10, 0.2, 0, 1, 10.0, (0.2, 0.8), (10.0, 30.0), samples=10)
    unvisited = ActionStats(3, 0, 0.0, 0, 1, 0.0)
    wins, scores, iterations = root_value(result_of([a, b, unvisited]))
    assert wins == pytest.approx([0.5, 0.5]) and scores == pytest.approx([17.5, 21.0]) and iterations == 40
    # a kept tree: 20 of a's visits and all 10 of b's were made by an earlier search, so the means
    # are over this search's 10 + 0 iterations (its own samples), whatever the visits say
    kept_a = ActionStats(1, 30, 0.6, 0, 1, 20.0, (0.6, 0.4), (20.0, 10.0), samples=10)
    kept_b = ActionStats(2, 10, 0.2, 0, 1, 10.0)
    wins, scores, iterations = root_value(result_of([kept_a, kept_b]))
    assert wins == pytest.approx([0.6, 0.4]) and scores == pytest.approx([20.0, 10.0]) and iterations == 10
    solved = ActionStats(4, 0, 1.0, 1, 1, 40.0, (1.0, 0.0), (40.0, 12.0), exact=True)
    assert root_value(result_of([solved])) == ([1.0, 0.0], [40.0, 12.0], 0)


def test_labels_mix_the_search_and_the_result() -> None:
    one = np.array([[0.8, 0.2]]), np.array([[30.0, 20.0]]), np.array([[0.0, 1.0]]), np.array([[25.0, 27.0]])
    d = Decisions(np.array([0]), np.array([0]), np.array([4]), np.zeros((1, 2, 3)), *one)
    assert labels(d, 0.0)[0].tolist() == [[0.0, 1.0]]
    assert labels(d, 1.0)[0].tolist() == [[0.8, 0.2]]
    wins, scores = labels(d, 0.5)
    assert np.allclose(wins, [[0.4, 0.6]]) and np.allclose(scores, [[27.5, 23.5]])
    two = dataclasses.replace(d.take(np.array([0, 0])), game=np.array([0, 1]))
    fitted, held = split_games(two, 0.2)
    assert fitted.game.tolist() == [0] and held.game.tolist() == [1]
    with pytest.raises(ValueError, match="at least 2 games"):
        split_games(d, 0.2)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=84, max_size=84),
                min_size=2, max_size=4))
def test_rows_are_stored_exactly(rows: list[list[float]]) -> None:
    assert unpack_rows(pack_rows(rows), len(rows)) == rows
