"""Expert iteration (issue 27, item 2): the self-play data labelled by deeper searches, its training,
the model option that loads a generation's evaluator, and the script that runs the generations."""

from __future__ import annotations

import dataclasses
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from advisor.players.agents import make_agent
from lab.expert import (
    DataSettings, ExpertDataError, game_deal, game_route, generate_data, label_game, read_data,
    root_value)
from lab.expert_fit import split_games, train_generation
from advisor.players.games import GameLoop, derive_seed
from advisor.players.learned import FEATURES, LearnedEvaluator, feature_rows, read_model, shipped_model
from lab.learned_prior import (
    ACTION_FEATURES, LearnedPrior, PolicyModel, action_features, load_policy)
from advisor.players.specs import AgentSpecError
from lab.training import reliability
from positions import Position
from positions.kernel.view import seat_view
from search.ismcts import search
from search.request import SearchRequest

ROOT = Path(__file__).resolve().parents[2]
TINY = DataSettings(agent="ismcts:iterations=8", label_iterations=16, games=2, per_game=3, seed=5)


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The data file of TINY, made with one worker."""
    path = tmp_path_factory.mktemp("expert") / "tiny.jsonl"
    assert generate_data(str(path), TINY, workers=1) == 2
    return path.read_bytes()


def _true_decisions(settings: DataSettings, game: int) -> list[Position]:
    """The whole position (every hidden choice in it) at each asked decision of a data game, replayed."""
    loop = GameLoop([make_agent(settings.agent) for _ in range(settings.players)],
                    game_route(settings, game), game_deal(settings, game))
    found = []
    while not loop.position.is_terminal():
        pos = loop.position
        if not pos.is_chance() and len(pos.legal_actions()) > 1:
            found.append(pos.copy())
        loop.step()
    return found


@pytest.mark.parametrize("players", [2, 3])
def test_rows_hold_only_what_the_decider_may_know(players: int) -> None:
    """A row's features are the decider's view's (the same in every view of that seat, so nothing
    another seat hides), and its search label is the same from another view of the seat."""
    settings = dataclasses.replace(TINY, per_game=6, players=players)
    rows = label_game(settings, 0)
    truths = _true_decisions(settings, 0)
    assert len(rows) == 6
    labeller = make_agent(settings.agent).template  # type: ignore[attr-defined]
    for row in rows:
        truth = truths[row["decision"]]
        seat = row["player"]
        assert truth.current_player() == seat and truth.walk == row["walk"] and truth.turn == row["turn"]
        for draw in range(3):
            view = seat_view(truth, seat, random.Random(draw))
            assert feature_rows(view) == row["rows"]
            prior_rng = random.Random(derive_seed(settings.seed, "expert", 0, "prior", row["index"]))
            assert action_features(view, prior_rng) == row["action_features"]
        request = dataclasses.replace(labeller, iterations=settings.label_iterations, seconds=None,
                                      seed=_label_seed(settings, 0, row["index"]))
        other_view = seat_view(truth, seat, random.Random(99))
        assert root_value(search(other_view, request))[0] == pytest.approx(row["search"]["wins"])
        assert len(row["rows"]) == settings.players and len(row["rows"][0]) == len(FEATURES)
        assert sum(row["search"]["wins"]) == pytest.approx(1.0)
        assert sum(v for _, v in row["policy"]) == settings.label_iterations
        assert sorted(a for a, _ in row["policy"]) == sorted(truth.legal_actions())
        assert sum(row["returns"]) == pytest.approx(1.0)


def _label_seed(settings: DataSettings, game: int, index: int) -> int:
    return derive_seed(settings.seed, "expert", game, "label", index)


def test_the_root_value_is_the_visit_weighted_mean() -> None:
    result = search(Position.new_game(2), SearchRequest(iterations=60, seed=3))
    wins, scores = root_value(result)
    total = sum(s.visits for s in result.actions)
    assert wins[0] == pytest.approx(sum(s.visits * s.win for s in result.actions) / total)
    assert scores[1] == pytest.approx(sum(s.visits * s.scores[1] for s in result.actions if s.visits) / total)
    assert sum(wins) == pytest.approx(1.0)


def test_data_is_the_same_whatever_the_worker_count(tmp_path: Path, tiny_data: bytes) -> None:
    two = tmp_path / "two.jsonl"
    assert generate_data(str(two), TINY, workers=2) == 2
    assert two.read_bytes() == tiny_data
    settings, rows = read_data(str(two))
    assert settings == TINY and len(rows) == 6
    assert generate_data(str(two), TINY) == 0  # finished: nothing to do


def test_a_stopped_run_continues_to_the_same_file(tmp_path: Path, tiny_data: bytes) -> None:
    """Stopped in the header, in the first game's rows, in the last game's closing line, or
    after the first game: the same command writes the same file."""
    data = tiny_data
    lines = data.splitlines(keepends=True)
    header = len(lines[0])
    for cut in (header // 2, header + len(lines[1]) // 2, len(data) - 1):
        stopped = tmp_path / f"cut-{cut}.jsonl"
        stopped.write_bytes(data[:cut])
        generate_data(str(stopped), TINY)
        assert stopped.read_bytes() == data, cut
    shorter = tmp_path / "shorter.jsonl"
    generate_data(str(shorter), dataclasses.replace(TINY, games=1))
    assert data.startswith(shorter.read_bytes()) and len(shorter.read_bytes()) < len(data)
    assert read_data(str(shorter))[0].games == 1
    assert generate_data(str(shorter), TINY) == 1 and shorter.read_bytes() == data


def test_a_file_of_other_settings_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    generate_data(str(path), dataclasses.replace(TINY, games=1))
    with pytest.raises(ExpertDataError, match="made with other settings"):
        generate_data(str(path), dataclasses.replace(TINY, games=1, label_iterations=17))
    lines = path.read_text().splitlines()
    row = json.loads(lines[1])
    del row["search"]
    (tmp_path / "broken.jsonl").write_text("\n".join([lines[0], json.dumps(row), *lines[2:]]) + "\n")
    with pytest.raises(ExpertDataError, match="broken.jsonl: line 2 has no 'search'"):
        read_data(str(tmp_path / "broken.jsonl"))
    (tmp_path / "x.jsonl").write_text('{"kind": "other"}\n')
    with pytest.raises(ExpertDataError, match="not an expert-iteration data file"):
        read_data(str(tmp_path / "x.jsonl"))


@pytest.mark.parametrize("changes, message", [
    ({"agent": "heuristic"}, "must be an ismcts: spec"),
    ({"agent": "ismcts:seconds=0.1"}, "has a clock"),
    ({"agent": "ismcts:iterations=8,workers=2"}, "one search worker"),
    ({"agent": "ismcts:iterations=8,model=missing.json"}, "missing.json: cannot read the file"),
    ({"label_iterations": 0}, "label_iterations must be an int >= 1"),
    ({"players": 5}, "players must be 2, 3 or 4"),
])
def test_bad_data_settings_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ExpertDataError, match=message):
        dataclasses.replace(TINY, **changes).check()  # type: ignore[arg-type]


def _synthetic_data(path: Path, games: int, seed: int) -> None:
    """A data file whose outcomes follow a known conditional logit of the features."""
    rng = random.Random(seed)
    truth = [0.3 * rng.uniform(-1, 1) for _ in FEATURES]
    prior_truth = [0.5 * rng.uniform(-1, 1) for _ in ACTION_FEATURES]
    lines = [json.dumps(DataSettings(agent="ismcts:iterations=8", label_iterations=16, seed=seed).header())]
    for game in range(games):
        for index in range(4):
            rows = [[rng.gauss(0, 3) for _ in FEATURES] for _ in range(2)]
            logits = [sum(w * f for w, f in zip(truth, row)) for row in rows]
            top = max(logits)
            shares = [math.exp(x - top) / sum(math.exp(y - top) for y in logits) for x in logits]
            winner = 0 if rng.random() < shares[0] else 1
            scores = [10.0 + 2 * row[0] for row in rows]
            actions = [[rng.gauss(0, 2) for _ in ACTION_FEATURES] for _ in range(rng.choice((2, 3, 5)))]
            odds = [math.exp(sum(w * f for w, f in zip(prior_truth, a))) for a in actions]
            visits = [0] * len(actions)
            for _ in range(50):
                visits[rng.choices(range(len(actions)), odds)[0]] += 1
            lines.append(json.dumps({
                "game": game, "index": index, "player": 0, "rows": rows, "walks_left": 2, "heuristic": [0.5, 0.5],
                "heuristic_scores": [10.0, 10.0], "search": {"wins": shares, "scores": scores},
                "policy": [[a, v] for a, v in enumerate(visits)], "action_features": actions,
                "returns": [1.0 - winner, float(winner)], "scores": scores}))
        lines.append(json.dumps({"game": game, "end": True, "rows": 4}))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_training_beats_a_constant_forecast_on_held_out_games(tmp_path: Path, weight: float) -> None:
    data = tmp_path / "synthetic.jsonl"
    _synthetic_data(data, 150, seed=7)
    model, measured, policy, policy_measured = train_generation(
        str(data), {"shipped": shipped_model()}, weight=weight, held_out=0.2)
    new, constant = measured["new"], measured["constant"]
    assert new["log_loss_outcome"] < constant["log_loss_outcome"] - 0.05
    assert new["log_loss_search"] < constant["log_loss_search"] - 0.05
    assert new["score_mae"] < constant["score_mae"]
    assert model.training["weight"] == weight
    assert model.training["samples"] == {"training": 480, "held_out": 120}
    assert model.training["held_out_games"] == 30 and set(measured) == {"new", "shipped", "heuristic", "constant"}
    assert policy is not None and policy_measured is not None
    assert policy_measured["learned"]["cross_entropy"] < policy_measured["uniform"]["cross_entropy"] - 0.1
    assert policy.training["samples"] == {"training": 480, "held_out": 120}


def test_the_split_keeps_games_whole() -> None:
    rows = [{"game": g, "index": i} for g in range(10) for i in range(3)]
    fitted, held = split_games(rows, 0.2)
    assert {r["game"] for r in held} == {8, 9} and not {r["game"] for r in fitted} & {8, 9}
    with pytest.raises(ExpertDataError, match="at least 2 games"):
        split_games(rows[:3], 0.2)


def test_reliability_bins_and_ece() -> None:
    table, ece = reliability([[0.25, 0.75], [0.25, 0.75]], [[0.0, 1.0], [1.0, 0.0]])
    assert [(b["count"], b["forecast"], b["observed"]) for b in table] == [(2, 0.25, 0.5), (2, 0.75, 0.5)]
    assert ece == pytest.approx(0.25)
    assert reliability([[0.5, 0.5]] * 4, [[1.0, 0.0], [0.0, 1.0]] * 2)[1] == 0.0


def test_a_trained_model_round_trips_and_loads_into_an_agent(tmp_path: Path) -> None:
    data = tmp_path / "synthetic.jsonl"
    _synthetic_data(data, 20, seed=3)
    model = train_generation(str(data), {}, held_out=0.25).model
    path = tmp_path / "evaluator.json"
    path.write_text(json.dumps(model.to_json(), indent=1) + "\n")
    assert read_model(path.read_text()) == model
    agent = make_agent(f"ismcts:iterations=30,cutoff=4,model={path}")
    evaluator = agent.template.evaluator  # type: ignore[attr-defined]
    assert isinstance(evaluator, LearnedEvaluator) and evaluator.model == model
    pos = Position.new_game(2)
    assert agent.choose(pos, random.Random(1)) in pos.legal_actions()


def test_a_fitted_policy_round_trips_and_guides_a_search(tmp_path: Path) -> None:
    data = tmp_path / "synthetic.jsonl"
    _synthetic_data(data, 20, seed=4)
    policy = train_generation(str(data), {}, held_out=0.25).policy
    assert policy is not None and len(policy.weights) == len(ACTION_FEATURES)
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(policy.to_json()))
    assert load_policy(str(path)) == policy
    pos = Position.new_game(2)
    result = search(pos, SearchRequest(iterations=30, prior=LearnedPrior(load_policy(str(path))), prior_weight=2))
    assert result.chosen in pos.legal_actions() and result.iterations == 30


def test_the_learned_prior_picks_the_action_of_highest_logit() -> None:
    """A policy that only weighs the heuristic's choice is the heuristic; its negation avoids it."""
    follow = [0.0] * len(ACTION_FEATURES)
    follow[ACTION_FEATURES.index("heuristic_choice")] = 1.0
    avoid = [-w for w in follow]
    from advisor.players.bots import DEFAULT_ROLLOUT

    for pos in _decisions_with_choices(12):
        favourite = DEFAULT_ROLLOUT.choose(pos, random.Random(0))
        assert LearnedPrior(PolicyModel(tuple(follow), {})).choose(pos, random.Random(0)) == favourite
        assert LearnedPrior(PolicyModel(tuple(avoid), {})).choose(pos, random.Random(0)) != favourite


@pytest.mark.parametrize("players", [2, 3, 4])
def test_action_features_never_read_the_others_hidden_choices(players: int) -> None:
    """Every view of a seat (the others' unrevealed choices drawn afresh) gives the same features
    of every action: a choice that completes a simultaneous step does not show the guessed ones."""
    checked = 0
    for pos in _decisions_with_choices(150, players):
        me = pos.current_player()
        views = [seat_view(pos, me, random.Random(draw)) for draw in range(4)]
        assert len({json.dumps(action_features(v, random.Random(1))) for v in views}) == 1
        checked += pos.is_simultaneous()
    assert checked > 10


def _decisions_with_choices(count: int, players: int = 3) -> list[Position]:
    rng = random.Random(8 + players)
    pos, found = Position.new_game(players), []
    while len(found) < count and not pos.is_terminal():
        if not pos.is_chance() and len(pos.legal_actions()) > 1:
            found.append(pos.copy())
        pos.apply(pos.sample_chance(rng) if pos.is_chance() else rng.choice(pos.legal_actions()))
    return found


@pytest.mark.parametrize("spec, message", [
    ("ismcts:model=/nonexistent/e.json", r"ismcts: model /nonexistent/e.json: cannot read the file"),
    ("ismcts:model=README.md", "ismcts: model README.md: not JSON"),
    ("ismcts:evaluator=heuristic,model=x.json", "model needs evaluator=learned"),
])
def test_bad_model_options_are_refused(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def _script(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "lab" / "scripts" / "expert_iteration.py"), *args],
                          capture_output=True, text=True, cwd=cwd)


SMOKE = ("--generations", "1", "--games", "2", "--label-iterations", "12", "--seed", "4",
         "--out", "run", "--agent", "ismcts:iterations=6", "--per-game", "2")


def test_the_loop_runs_a_generation_and_does_not_redo_it(tmp_path: Path) -> None:
    first = _script(*SMOKE, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    folder = tmp_path / "run" / "gen-1"
    files = {name: (folder / name).read_bytes() for name in ("data.jsonl", "evaluator.json", "report.md")}
    model = read_model(files["evaluator.json"].decode())
    assert model.training["weight"] == 0.5 and model.training["held_out_games"] == 1
    assert make_agent("ismcts:iterations=10,model=" + str(folder / "evaluator.json"))
    command = first.stdout.strip()
    assert command == ("refuge arena --agent gen-1=ismcts:seconds=0.2,model=run/gen-1/evaluator.json "
                       "--agent gen-0=ismcts:seconds=0.2 " + command.split("ismcts:seconds=0.2 ")[1])
    assert "--sprt 0,10" in command and command in files["report.md"].decode()
    assert (folder / "policy.json").exists() and "## Policy prior" in files["report.md"].decode()
    again = _script(*SMOKE, cwd=tmp_path)
    assert again.returncode == 0 and "done already" in again.stderr and again.stdout == first.stdout
    assert {name: (folder / name).read_bytes() for name in files} == files
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _script(*SMOKE, "--workers", "2", cwd=elsewhere).returncode == 0
    assert {name: (elsewhere / "run" / "gen-1" / name).read_bytes() for name in files} == files


@pytest.mark.parametrize("args, message", [
    (("--games", "1"), "--games: need at least 2 games"),
    (("--agent", "greedy"), "must be an ismcts: spec"),
    (("--agent", "ismcts:iterations=5,model=x.json"), "no model="),
    (("--held-out", "1.5"), "--held-out: expected a share in (0, 1)"),
    (("--weight", "2"), "expected a number in [0, 1]"),
    (("--generations", "0"), "expected a whole number >= 1"),
    (("--label-iterations", "x"), "expected a whole number >= 1"),
])
def test_bad_arguments_give_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    given = dict(zip(SMOKE[::2], SMOKE[1::2]))
    given.update(zip(args[::2], args[1::2]))
    result = _script(*[x for pair in given.items() for x in pair], cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run" / "gen-1" / "report.md").exists()
