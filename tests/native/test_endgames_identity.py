"""The native exact endgames equal Python's (native/core/src/endgames.rs ⇄ advisor/players/tablebase.py):
the scope, the probes' answers and what they learn (solvers' sizes, the sizes found too large), and
the search with the oracle answering its leaves — root statistics bit for bit, REFUGE_BACKEND=python
(Python search, Python solver) against the native core, each from fresh probes."""

from __future__ import annotations

import dataclasses
import json
import random
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from advisor.analysis.best_move import advise
from advisor.players import tablebase
from advisor.players.agents import SearchAgent
from advisor.players.presets import AGENT_ROOT_NODES, advisor_request
from advisor.players.tablebase import ExactEndgames, single_walker, step_start, two_walkers, walker_tiles
from positions import Position
from positions.kernel import native_search
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.saved import parse_position
from search.errors import SearchConfigError
from search.ismcts import search
from search.request import Limit, SearchRequest, SearchResult

refuge_native = pytest.importorskip("refuge_native")
if not native_search.built() or not hasattr(refuge_native, "EndgameProbes"):
    pytest.skip("refuge_native has no exact endgames (native/py/src/endgames.rs)", allow_module_level=True)

ROUTES = ("meadows", "forest", "mountains")


@lru_cache(maxsize=1)
def last_walk_positions() -> tuple[Position, ...]:
    """Decisions of the last walk in seeded heuristic games of 2 to 4 players on every route: one
    walker, two walkers, and more walking."""
    found = []
    for game in range(40):
        players = 2 + game % 3 if game % 2 else 2
        position = Position.new_game(players, ROUTES[game % len(ROUTES)])
        rng = random.Random(game)
        while not position.is_terminal():
            if position.is_chance():
                position.apply(position.sample_chance(rng))
                continue
            if position.walk >= position.ruleset.walks - 1:
                found.append(position.copy())
            position.apply(DEFAULT_ROLLOUT.choose(position, rng))
    return tuple(found)


def one_walker() -> list[Position]:
    """Last-walk decisions of the single walker."""
    return [p for p in last_walk_positions() if single_walker(p) is not None]


def two_walker() -> list[Position]:
    """Last-walk decisions of a two-player game with both walking."""
    return [p for p in last_walk_positions() if two_walkers(p)]


@lru_cache(maxsize=1)
def small_two_walkers() -> tuple[Position, ...]:
    """Two walkers with few tiles (in the two-walker solver's scope): the stored positions
    (tests/data/two_walker_positions.json) and the decisions seeded random play reaches from them
    while both walk."""
    data = json.loads((Path(__file__).parent.parent / "data" / "two_walker_positions.json").read_text())
    found = []
    for index, entry in enumerate(data["positions"]):
        position = parse_position(entry["position"]).position
        rng = random.Random(index)
        while not position.is_terminal():
            if position.is_chance():
                position.apply(position.sample_chance(rng))
                continue
            if not two_walkers(position):
                break
            found.append(position.copy())
            legal = position.legal_actions()
            position.apply(legal[int(rng.random() * len(legal))])
    return tuple(found)


def test_the_scope_equals_pythons() -> None:
    positions = last_walk_positions()
    assert len(one_walker()) > 40 and len(two_walker()) > 40
    starts = 0
    for position in positions:
        start = step_start(position)
        starts += start is not None
        expected = (single_walker(position), two_walkers(position), walker_tiles(position),
                    None if start is None else start.to_ints())
        assert refuge_native.endgame_scope(position.to_ints()) == expected, position
    assert starts > 5


PerBudget = list[tuple[int, int]]
LearntState = tuple[tuple[PerBudget, PerBudget], tuple[PerBudget, PerBudget]]
"""What probes learnt: (too_large, pair_too_large), (solvers' memo sizes, pair solvers'), each per budget."""


def python_probes_state(probes: tablebase._Probes) -> LearntState:
    """What Python's probes learnt: too_large per budget, then the solvers' memo sizes per budget."""
    return ((sorted(probes.too_large.items()), sorted(probes.pair_too_large.items())),
            ([(b, len(s.memo)) for b, s in sorted(probes.solvers.items())],
             [(b, len(s.memo)) for b, s in sorted(probes.pair_solvers.items())]))


def native_probes_state(probes: Any) -> LearntState:
    """The same of native probes (``refuge_native.EndgameProbes``)."""
    return probes.too_large(), probes.memo_sizes()


@pytest.mark.parametrize("budgets", [(40, 15), (2_000, 300)])
def test_a_sequence_of_one_walker_probes_answers_and_learns_as_python(budgets: tuple[int, int]) -> None:
    """exact_options (root budget) and exact_value (leaf budget) on one walker's positions, one
    probes object each side: equal floats, equal refusals, equal memo sizes after every probe."""
    root_budget, leaf_budget = budgets
    python = tablebase._Probes()
    native = refuge_native.EndgameProbes()
    answered = refused = 0
    for position in one_walker()[:60]:
        ints = position.to_ints()
        expected_options = python.exact_options(position, root_budget)
        found = native.exact_options(ints, root_budget)
        assert (None if found is None else dict(found)) == expected_options
        expected_value = python.exact_value(position, leaf_budget)
        assert native.exact_value(ints, leaf_budget) == expected_value
        assert native.in_budget(ints, leaf_budget) == python.in_budget(position, leaf_budget)
        assert native_probes_state(native) == python_probes_state(python)
        answered += expected_value is not None
        refused += expected_value is None
    assert answered > 0 and (refused > 0 or leaf_budget > 1_000)


def test_a_sequence_of_two_walker_probes_answers_and_learns_as_python(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """exact_value, exact_options and exact_step on two walkers' positions (both budgets of each), one
    oracle each side: equal answers (``StepResult``s with equal Fractions) and equal memory."""
    positions = small_two_walkers()[::6]
    answers: dict[str, list[tuple[Any, Any, Any]]] = {}
    learnt: dict[str, object] = {}
    for backend in ("python", "native"):
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        oracle = ExactEndgames(shared=False)
        answers[backend] = [(oracle.exact_value(p), oracle.exact_options(p), oracle.exact_step(p))
                            for p in positions]
        learnt[backend] = probes_state(oracle)
    assert answers["native"] == answers["python"]
    assert learnt["native"] == learnt["python"]
    steps = [step for _, _, step in answers["python"] if step is not None]
    assert steps and any(value is not None for value, _, _ in answers["python"])


def fresh(request: SearchRequest, oracle: ExactEndgames) -> SearchRequest:
    """`request` with `oracle` (fresh probes of the same budgets)."""
    return dataclasses.replace(request, config=dataclasses.replace(request.config, oracle=oracle))


def agent(iterations: int, seed: int) -> SearchRequest:
    """The agent's default preset with its own fresh probes (one worker, no tree reuse)."""
    request = SearchAgent("native", Limit(iterations=iterations, seed=seed), reuse=False).request(seed)
    return fresh(request, ExactEndgames(AGENT_ROOT_NODES, shared=False))


def advisor(iterations: int, seed: int) -> SearchRequest:
    """The advisor's preset with fresh probes of its budgets."""
    return fresh(advisor_request(iterations=iterations, seed=seed), ExactEndgames(shared=False))


PRESETS = {"agent": agent, "advisor": advisor}


def timeless(result: SearchResult) -> SearchResult:
    """A result without what may differ between engines: the time taken and the engine's name."""
    return dataclasses.replace(result, seconds=0.0, backend="")


def both(monkeypatch: pytest.MonkeyPatch, position: Position, make: object, iterations: int,
         seed: int) -> tuple[SearchResult, SearchResult, object, object]:
    """The search of `position` with Python's engine and solver, then the native core's, each from
    fresh probes: (python, native, what python's probes learnt, what the native ones learnt)."""
    results = []
    learnt = []
    for backend in ("python", "native"):
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        request = make(iterations, seed)  # type: ignore[operator]
        results.append(search(position, request))
        learnt.append(probes_state(request.config.oracle))
    return results[0], results[1], learnt[0], learnt[1]


def probes_state(oracle: ExactEndgames) -> object:
    """What `oracle`'s probes learnt (Python's or the native ones, as REFUGE_BACKEND says), with the
    positions they hold."""
    probes = oracle._probes
    if isinstance(probes, tablebase._Probes):
        return python_probes_state(probes), probes.solved_positions()
    assert isinstance(probes, tablebase._NativeProbes)
    return native_probes_state(probes.core), probes.solved_positions()


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2712])
def test_one_walker_searches_equal_pythons_with_the_oracle_answering(
        monkeypatch: pytest.MonkeyPatch, preset: str, seed: int) -> None:
    positions = one_walker()[::6][:8]
    exact = 0
    for position in positions:
        python, native, python_learnt, native_learnt = both(monkeypatch, position, PRESETS[preset], 120, seed)
        assert native.backend == "native" and python.backend == "python"
        assert timeless(native) == timeless(python), position
        assert native_learnt == python_learnt
        exact += any(a.exact for a in native.actions)
    assert exact > 0


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_searches_at_two_walkers_equal_pythons(monkeypatch: pytest.MonkeyPatch, preset: str) -> None:
    """Two walkers, large (rolled out) and small (solved): the native search and its probes give Python's."""
    large = [p for p in last_walk_positions() if p.players == 2 and single_walker(p) is None][::8][:4]
    positions = large + list(small_two_walkers()[5::40])
    assert large and len(positions) > len(large)
    solved = 0
    for position in positions:
        python, native, python_learnt, native_learnt = both(monkeypatch, position, PRESETS[preset], 80, 5)
        assert native.backend == "native" and python.backend == "python"
        assert timeless(native) == timeless(python), position
        assert native_learnt == python_learnt
        solved += native_learnt != ((([], []), ([], [])), 0)
    assert solved > 0


def test_a_sequence_of_searches_sharing_one_oracle_carries_the_memory_over(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's game: one unshared oracle across its searches; each search's probes start where the
    last left off, on both engines alike."""
    positions = one_walker()[:40:4]
    results: dict[str, list[SearchResult]] = {}
    states: dict[str, list[object]] = {}
    for backend in ("python", "native"):
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        oracle = ExactEndgames(AGENT_ROOT_NODES, leaf_max_nodes=200, shared=False)
        request = fresh(SearchAgent("x", Limit(iterations=100), reuse=False).request(3), oracle)
        results[backend] = []
        states[backend] = []
        for position in positions:
            results[backend].append(timeless(search(position, request)))
            states[backend].append(probes_state(oracle))
    assert results["native"] == results["python"]
    assert states["native"] == states["python"]


def test_worker_trees_have_their_own_probes_and_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers: each tree probes its own memory (worker 0 the oracle's), and the same seed,
    worker count and history give the same result."""
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    position = one_walker()[3]
    found = []
    for _ in range(2):
        oracle = ExactEndgames(AGENT_ROOT_NODES, shared=False)
        request = fresh(SearchAgent("x", Limit(iterations=200, workers=2), reuse=False).request(9), oracle)
        found.append(timeless(search(position, request)))
        assert found[-1].workers == 2
        first, second = oracle.native_oracle(0), oracle.native_oracle(1)
        assert first is not None and second is not None and first[0] is not second[0]
        assert isinstance(oracle._probes, tablebase._NativeProbes) and first[0] is oracle._probes.core
    assert found[0] == found[1]


def test_a_live_analysis_probing_its_oracle_mid_search_equals_pythons(monkeypatch: pytest.MonkeyPatch) -> None:
    """The web board's live analysis (``advise(on_progress=...)``) at a two-walker simultaneous step:
    each report's advice asks the oracle for the step's exact mix while the native search holds the
    same probes; the reports and the advice equal Python's, where those probes interleave the same."""
    positions = [p for p in small_two_walkers() if p.is_simultaneous() and step_start(p) is not None][:3]
    assert positions
    mixes = 0
    for position in positions:
        seen: dict[str, list[tuple[Any, Any, Any]]] = {}
        for backend in ("python", "native"):
            monkeypatch.setenv("REFUGE_BACKEND", backend)
            request = fresh(advisor_request(iterations=96, seed=4), ExactEndgames(shared=False))
            reports: list[tuple[Any, Any, Any]] = []

            def report(build: Any) -> None:
                advice = build()
                reports.append((timeless(advice.result), advice.line, advice.exact_mix))

            final = advise(position, request, on_progress=report, progress_every=32)
            seen[backend] = [*reports, (timeless(final.result), final.line, final.exact_mix)]
            assert final.result.backend == backend
        assert seen["native"] == seen["python"]
        mixes += any(mix for _, _, mix in seen["native"][:-1])
    assert mixes > 0, "a report asked for the exact mix while the search ran"


def test_exact_step_builds_pythons_step_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """exact_step through the native probes returns Python's ``StepResult`` (Fractions) and equals
    the Python probes' answer."""
    positions = [p for p in small_two_walkers() if step_start(p) is not None][:4]
    assert positions
    for position in positions:
        monkeypatch.setenv("REFUGE_BACKEND", "python")
        expected = ExactEndgames(shared=False).exact_step(position)
        monkeypatch.setenv("REFUGE_BACKEND", "native")
        assert ExactEndgames(shared=False).exact_step(position) == expected


@pytest.mark.parametrize("budgets", [(0, 10), (10, 0), (-1, 10), (10, 2.5)])
def test_a_budget_below_one_is_refused_in_one_line_on_both_backends(monkeypatch: pytest.MonkeyPatch,
                                                                      budgets: tuple[Any, Any]) -> None:
    for backend in ("python", "native"):
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        with pytest.raises(SearchConfigError, match="max_nodes must be an int >= 1"):
            ExactEndgames(*budgets)
