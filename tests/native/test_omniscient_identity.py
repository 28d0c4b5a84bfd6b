"""The native foreseen search (native/core/src/foreseen.rs, ``refuge_native.search(streams=...)``)
equals the Python reference (advisor.players.omniscient.Foreseen) bit for bit, like
test_search_identity.py for the ordinary search."""

from __future__ import annotations

import random
from typing import Any

import pytest

from advisor.players.agents import SearchAgent, make_agent
from advisor.players.games import DealStreams, deal_seed, play_game
from advisor.players.learned import LearnedEvaluator
from advisor.players.omniscient import Foreseen, OmniscientAgent
from positions.kernel.actions import Action
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.position import Position
from search.backend import joint_cell, native_request, root_sums
from search.ismcts import run_tree
from search.request import SearchRequest

refuge_native = pytest.importorskip("refuge_native")
if not getattr(refuge_native, "FORESEEN_SEARCH", False):
    pytest.skip("refuge_native has no foreseen search (built before native/core/src/foreseen.rs)",
                allow_module_level=True)

ROUTES = ("meadows", "forest", "mountains")


def foreseen_positions(games: int, every: int) -> list[Foreseen]:
    """Decisions met in seeded random games of 2 to 4 players on every route (every `every`-th),
    each with the deal's streams as they stand there."""
    found = []
    for game in range(games):
        players = 2 + game % 3
        streams = DealStreams(deal_seed(99, game), players)
        position = Position.new_game(players, ROUTES[game % len(ROUTES)])
        rng = random.Random(game)
        events = 0
        while not position.is_terminal():
            if position.is_chance():
                position.apply(streams.sample(position))
                continue
            events += 1
            if events % every == 0:
                found.append(Foreseen.of(position, streams.copy()))
            legal = position.legal_actions()
            position.apply(legal[int(rng.random() * len(legal))])
    return found


def omniscient_request(iterations: int) -> SearchRequest:
    """The omniscient agent's request (``omniscient:``: the agent's preset, no oracle, no reuse)."""
    agent = make_agent(f"omniscient:iterations={iterations},reuse=0")
    assert isinstance(agent, OmniscientAgent)
    return agent.request(0)


PRESETS = {
    "omniscient agent": omniscient_request,
    "random rollouts": lambda n: SearchRequest.of(iterations=n, oracle=None),
    "heuristic rollouts to the end, regret matching, step root": lambda n: SearchRequest.of(
        iterations=n, rollout=DEFAULT_ROLLOUT, prior=DEFAULT_ROLLOUT, simultaneous="rm", step_root=True),
    "cut-off, exp3, widening": lambda n: SearchRequest.of(
        iterations=n, rollout=DEFAULT_ROLLOUT, rollout_cutoff=4, evaluator=LearnedEvaluator(), simultaneous="exp3",
        widening=0.5, exploration_below=0.4),
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2712])
def test_root_statistics_equal_the_python_reference(preset: str, seed: int) -> None:
    iterations = 80
    positions = foreseen_positions(6, every=23)
    assert len(positions) >= 10
    for position in positions:
        request = PRESETS[preset](iterations)
        assert position.native_unsupported(native_request(request)) == ""
        found = position.native_search([native_request(request)], [seed], [iterations])
        assert found is not None
        answers, joint, nodes, done, _ = found[0]
        [native] = [root_sums(sums, player_sums) for sums, player_sums in answers]
        python = run_tree(position, request, seed, iterations)
        assert done == iterations and {cell: joint_cell(v) for cell, v in joint.items()} == {}
        assert native.sums == python.sums, position
        assert native.player_sums == python.player_sums, position
        assert nodes == python.nodes, position


def test_workers_on_threads_see_the_same_future() -> None:
    """Root parallelism: every worker's tree from the same streams, each equal to it grown alone."""
    position = foreseen_positions(1, every=17)[0]
    request = native_request(omniscient_request(60))
    together = position.native_search([request, request], [3, 4], [60, 60])
    alone = [position.native_search([request], [seed], [60]) for seed in (3, 4)]
    assert together is not None and together == [tree[0] for tree in alone if tree is not None]


def test_an_oracle_or_bad_streams_are_refused_in_one_line() -> None:
    position = foreseen_positions(1, every=17)[0]
    default = make_agent("ismcts:iterations=10,reuse=0")  # the default agent: exact endgames
    assert isinstance(default, SearchAgent) and default.template.config.oracle is not None
    assert "an oracle" in position.native_unsupported(native_request(default.request(0)))
    states = position.streams.states()
    ints = position.to_ints()
    common: dict[str, Any] = dict(exploration=0.7, exploration_below=0.7, widening=0.0, prior_weight=1.0,
                                  cutoff=None, uniform_root=False, step_root=False, simultaneous="uct",
                                  mixing=0.1, rollout=None, prior=None, evaluator=None)
    with pytest.raises(ValueError, match="search: 3 streams for 2 players"):
        refuge_native.search(ints, [(1, 10, None)], streams=states[:3], **common)
    with pytest.raises(ValueError, match="search: stream 0 is not a Mersenne Twister state"):
        refuge_native.search(ints, [(1, 10, None)], streams=[(states[0][0][:5], 0), *states[1:]], **common)
    hidden = Position.from_ints(ints)
    hidden.hidden_bags = (1,)
    with pytest.raises(ValueError, match="search: with streams no bag may be hidden"):
        refuge_native.search(hidden.to_ints(), [(1, 10, None)], streams=states, **common)


def test_a_game_of_the_omniscient_agent_is_the_same_on_both_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Against the default agent, tree reuse on: the same game event for event, every search native."""
    backends: set[str] = set()

    class Noting(OmniscientAgent):
        def choose_foreseen(self, position: Position, streams: Any, rng: random.Random) -> Action:
            action = super().choose_foreseen(position, streams, rng)
            assert self.last is not None
            backends.add(self.last.backend)
            return action

    def play(backend: str) -> list[Action]:
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        spec = make_agent("omniscient:iterations=40")
        assert isinstance(spec, OmniscientAgent)
        omniscient = Noting(spec.name, spec.template.limit, spec.template.config, spec.reuse)
        return play_game([omniscient, make_agent("ismcts:iterations=40")], "forest", deal_seed(5, 0)).events

    python = play("python")
    assert backends == {"python"}
    backends.clear()
    assert play("native") == python
    assert backends == {"native"}
