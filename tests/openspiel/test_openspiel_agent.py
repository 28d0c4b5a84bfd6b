"""OpenSpiel's Python ISMCTSBot as an agent kind: built from specs, legal, seeded, playing whole games."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")

from advisor.players.specs import AgentSpecError  # noqa: E402
from advisor.players.agents import make_agent  # noqa: E402
from advisor.players.games import play_game  # noqa: E402
from positions import Position  # noqa: E402


def test_make_agent_finds_the_openspiel_kind() -> None:
    agent = make_agent("openspiel-ismcts:iterations=30,exploration=1.0")
    assert agent.name == "openspiel-ismcts:iterations=30,exploration=1.0"
    assert agent.iterations == 30 and agent.exploration == 1.0


@pytest.mark.parametrize("spec, message", [
    ("openspiel-ismcts:depth=3", "unknown parameter 'depth'"),
    ("openspiel-ismcts:iterations=0", "iterations must be an int >= 1"),
    ("openspiel-ismcts:iterations=10,seconds=1", "not both"),
    ("openspiel-ismcts:rollout=smart", "unknown rollout 'smart'"),
    ("openspiel-nothing", "unknown agent 'openspiel-nothing'"),
])
def test_bad_specs_are_agent_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


@pytest.mark.parametrize("rollout", ["openspiel", "engine"])
def test_choice_is_legal_and_determined_by_the_seed(rollout: str) -> None:
    agent = make_agent(f"openspiel-ismcts:iterations=40,rollout={rollout}")
    pos = Position.new_game(3, "forest")
    choices = [agent.choose(pos, random.Random(seed)) for seed in (4, 4)]
    assert choices[0] in pos.legal_actions()
    assert choices[0] == choices[1]
    assert agent.last_simulations == 40


def test_time_budget_runs_at_least_one_simulation() -> None:
    agent = make_agent("openspiel-ismcts:seconds=0.001")
    pos = Position.new_game(2)
    assert agent.choose(pos, random.Random(1)) in pos.legal_actions()
    assert agent.last_simulations >= 1


def test_plays_a_whole_game_against_our_search() -> None:
    agents = [make_agent("openspiel-ismcts:iterations=8"), make_agent("ismcts:iterations=8,rollout=random")]
    final = play_game(agents, "meadows", seed=3).position
    assert final.is_terminal()
    assert sum(final.returns()) == pytest.approx(1.0)
