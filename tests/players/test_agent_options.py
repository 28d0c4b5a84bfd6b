"""The search agent's strength options (issue 16): tree reuse within one game, exact endgames at
the root and leaves, and the advisor's widening; each selectable by spec, each checked."""

from __future__ import annotations

import random

import pytest

from advisor.players.agents import SearchAgent, make_agent
from advisor.players.games import play_game
from advisor.players.specs import AgentSpecError
from advisor.players.tablebase import ExactEndgames, single_walker
from positions import Position, parse_action
from search.errors import SearchError
from search.ismcts import search
from search.request import SearchRequest
from solver_positions import load_entries, replay


def _root_visits(table: dict, pos: Position) -> int:
    node = table.get(_root_key(pos), {})
    return sum(stats.visits for stats in node.values())


def _root_key(pos: Position) -> tuple:
    """The node-table key of `pos`'s decision."""
    return (pos.current_player(), pos.information_set_key(pos.current_player()))


def _next_decision_of(pos: Position, player: int, rng: random.Random) -> Position:
    """Play on (heuristic decisions, seeded chance) to `player`'s next decision."""
    from advisor.players.bots import DEFAULT_ROLLOUT

    pos = pos.copy()
    pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))
    while pos.current_player() != player:
        pos.apply(pos.sample_chance(rng) if pos.is_chance() else DEFAULT_ROLLOUT.choose(pos, rng))
    return pos


def test_search_grows_a_reused_table_in_place() -> None:
    """reuse=table: the search adds to the caller's table, and a later search whose root the table
    already holds starts from those visits; the same seeds give the same statistics."""
    pos = Position.new_game(2)
    request = SearchRequest.of(iterations=400, seed=3)
    table: dict = {}
    first = search(pos, request, reuse=table)
    assert _root_visits(table, pos) == 400 == sum(s.visits for s in first.actions)
    later = pos.copy()
    later.apply(parse_action("draw"))  # player 0's hidden choice: player 1 decides next
    held = _root_visits(table, later)
    assert held > 0  # player 1's decision was a node of the first tree
    second = search(later, request, reuse=table)
    assert sum(s.visits for s in second.actions) == held + 400
    again: dict = {}
    search(pos, request, reuse=again)
    assert search(later, request, reuse=again).actions == second.actions


def test_reuse_needs_one_worker() -> None:
    """The table lives in the caller's process: several workers are refused, by search and by spec."""
    with pytest.raises(SearchError, match="reuse needs workers=1"):
        search(Position.new_game(2), SearchRequest.of(iterations=10, workers=2), reuse={})
    for bad, message in (("reuse=1,workers=2", "reuse=1 needs workers=1"), ("reuse=2", "reuse must be 0 or 1")):
        with pytest.raises(AgentSpecError, match=message):
            make_agent(f"ismcts:iterations=50,{bad}")


def test_agent_keeps_its_tree_only_within_a_game() -> None:
    """reuse=1: the next decision of the same game grows the kept tree; a new game (or an undo to an
    earlier turn) starts afresh, so a game's moves never depend on the games before it."""
    agent = make_agent("ismcts:iterations=120,reuse=1")
    assert isinstance(agent, SearchAgent)
    rng = random.Random(5)
    pos = Position.new_game(2)
    table = agent.table_for(pos)
    assert table is not None and len(table) == 0
    search(pos, agent.request(1), reuse=table)
    assert len(table) > 0
    later = _next_decision_of(pos, 0, rng)
    while later.turn == 0:
        later = _next_decision_of(later, 0, rng)
    if agent.table_for(later) is table:
        assert _root_key(later) in table  # kept only because it holds the new root
    else:
        assert _root_key(later) not in table
    fresh = agent.table_for(Position.new_game(2))  # an earlier turn: another game
    assert fresh is not table and fresh is not None and len(fresh) == 0
    assert make_agent("ismcts:iterations=50,reuse=0").table_for(pos) is None  # type: ignore[attr-defined]
    default = make_agent("ismcts:iterations=50").table_for(pos)  # type: ignore[attr-defined]
    assert default is not None and len(default) == 0
    assert make_agent("ismcts:iterations=50,workers=2").table_for(pos) is None  # type: ignore[attr-defined]


def test_a_decision_asked_again_starts_afresh() -> None:
    """The same decision asked twice (an engine's repeated go, a hint) gets the same answer: the
    default agent keeps its tree only for a game going forward to a new decision."""
    agent = make_agent("ismcts:iterations=80")
    assert isinstance(agent, SearchAgent) and agent.reuse
    pos = Position.new_game(2)
    first = agent.choose(pos, random.Random(3))
    assert agent.last is not None
    visits = agent.last.actions
    assert agent.choose(pos, random.Random(3)) == first
    assert agent.last.actions == visits and sum(s.visits for s in visits) == 80


def test_a_reusing_agent_plays_each_game_as_if_it_were_its_first() -> None:
    """Same deal, same moves: whether the agent played another game before changes nothing."""
    seasoned = make_agent("ismcts:iterations=60,reuse=1")
    play_game([seasoned, make_agent("heuristic")], "meadows", 7)
    after = play_game([seasoned, make_agent("heuristic")], "meadows", 8)
    fresh = play_game([make_agent("ismcts:iterations=60,reuse=1"), make_agent("heuristic")], "meadows", 8)
    assert after.position.returns() == fresh.position.returns()
    assert after.events == fresh.events


def test_exact_agent_plays_the_solvers_best_option() -> None:
    """exact=endgames: in the solver's scope (last walk, one walker) the agent's choice is an option
    with the best exact win chance, whatever its few iterations say."""
    agent = make_agent("ismcts:iterations=8,exact=endgames")
    assert isinstance(agent, SearchAgent)
    for entry in load_entries()[:4]:
        pos = replay(entry)
        assert single_walker(pos) == pos.current_player()
        best = max(option["win"] for option in entry["exact"])
        chosen = agent.choose(pos, random.Random(1))
        assert any(int(parse_action(o["action"])) == int(chosen) and o["win"] == pytest.approx(best)
                   for o in entry["exact"])
        assert agent.last is not None and all(s.exact for s in agent.last.actions)


def test_spec_options_reach_the_request() -> None:
    """exact= builds the request; exact endgames and the heuristic prior are the defaults (issue 16
    step 2), and prior=none,exact=none,evaluator=rollout is the search before."""
    default = make_agent("ismcts:iterations=50").request(1).config  # type: ignore[attr-defined]
    assert isinstance(default.oracle, ExactEndgames) and default.prior is not None
    assert default.widening == 0.0 and default.exploration_below is None
    before = make_agent("ismcts:iterations=50,prior=none,exact=none,evaluator=rollout").request(1).config  # type: ignore[attr-defined]
    assert before.oracle is None and before.prior is None and before.evaluator is None
    assert before.rollout_cutoff is None
    with pytest.raises(AgentSpecError, match="unknown exact 'perfect'"):
        make_agent("ismcts:iterations=50,exact=perfect")


def test_the_agent_keeps_the_search_before_the_step_root_until_it_passes_its_sprt() -> None:
    """Issue 22: "If the 2-player SPRT does not pass, ... the agent keeps today's default": the
    agent's default is step_root=0, step_root=1 is the advisor's search; the advisor's own request
    (best-move, annotate, track) searches from the step's start."""
    from advisor.players.presets import advisor_request
    assert make_agent("ismcts:iterations=50").request(1).config.step_root is False  # type: ignore[attr-defined]
    assert make_agent("ismcts:iterations=50,step_root=1").request(1).config.step_root is True  # type: ignore[attr-defined]
    assert advisor_request(iterations=50).config.step_root is True
    assert SearchRequest.of(iterations=50).config.step_root is True


RETIRED = ("chance_widening=1", "score_utility=0.3", "score_scale=8", "belief=heuristic", "trust=0.8",
           "widening=0.5", "below=0.3", "model=advisor/players/data/evaluator.json", "prior_model=p.json",
           "simultaneous=rm", "mixing=0.2")
"""Options of past experiments that lost or never won their test: no longer the agent's."""


@pytest.mark.parametrize("option", RETIRED)
def test_a_retired_option_is_an_unknown_parameter(option: str) -> None:
    name = option.partition("=")[0]
    with pytest.raises(AgentSpecError, match=f"^ismcts: unknown parameter '{name}' \\(expected "):
        make_agent(f"ismcts:iterations=50,{option}")


@pytest.mark.parametrize("option, message", [("cutoff=grow", "cutoff must be an int"),
                                              ("rollout=thrifty", "unknown rollout 'thrifty'"),
                                              ("prior=learned", "unknown prior 'learned'")])
def test_a_retired_value_is_refused(option: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message):
        make_agent(f"ismcts:iterations=50,{option}")


def test_the_agent_and_its_spec_have_at_most_twelve_knobs() -> None:
    """Issue 52: SearchAgent and the search configuration have at most 12 knobs each."""
    import dataclasses
    import inspect

    from advisor.players.agents import ISMCTS_OPTIONS
    from search.request import Limit, SearchConfig

    assert len(ISMCTS_OPTIONS) <= 12
    assert len(inspect.signature(SearchAgent).parameters) <= 12
    assert len(dataclasses.fields(SearchConfig)) <= 12 and len(dataclasses.fields(Limit)) == 4

