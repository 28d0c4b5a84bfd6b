"""The native search and evaluator equal the Python ones bit for bit (issue 53, native/SEARCH.md).

Equality here is ``==`` on floats, not a tolerance: the Rust core adds in Python's order (Python
3.11's ``sum()`` is a plain left-to-right sum; 3.12's compensated one would differ) and takes
``exp``, ``log`` and ``sqrt`` from the same platform libm CPython's ``math`` calls (``sqrt`` is
exact in IEEE arithmetic; ``exp`` and ``log`` are assumed to be glibc's on both sides — a Rust
build linked against another libm may differ in the last bit, and these tests would say so).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import random

import pytest

from advisor.analysis.best_move import advise
from advisor.players.agents import SearchAgent
from advisor.players.presets import advisor_request
from advisor.players.tablebase import ExactEndgames
from advisor.players.learned import LearnedEvaluator
from positions import Position
from positions.examples import example_names, load_example
from positions.kernel import native_search
from positions.kernel.heuristics import DEFAULT_ROLLOUT, THRIFTY_ROLLOUT
from search.ismcts import nodes_from_native, run_tree, search
from search.backend import NativeRequest, joint_cell, native_request, root_sums
from search.request import Limit, SearchRequest

refuge_native = pytest.importorskip("refuge_native")
if not native_search.built():
    pytest.skip("refuge_native has no search (built without native/py/src/search.rs)", allow_module_level=True)

ROUTES = ("meadows", "forest", "mountains")


def played_positions(games: int, every: int = 5) -> list[Position]:
    """Decisions met in seeded random games of 2 to 4 players on every route (every `every`-th)."""
    found = []
    for game in range(games):
        players = 2 + game % 3
        position = Position.new_game(players, ROUTES[game % len(ROUTES)])
        rng = random.Random(game)
        events = 0
        while not position.is_terminal():
            if position.is_chance():
                position.apply(position.sample_chance(rng))
                continue
            events += 1
            if events % every == 0:
                found.append(position.copy())
            legal = position.legal_actions()
            position.apply(legal[int(rng.random() * len(legal))])
    return found


def grow(position: Position, request: NativeRequest, seed: int, iterations: int | None, *args: object) -> tuple | None:
    """One native tree (``native_search.search`` of one worker) with its statistics as the search's
    named records."""
    found = native_search.search(position, [request], [seed], [iterations], *args)  # type: ignore[arg-type]
    if found is None:
        return None
    return records(found[0])


def records(tree: tuple) -> tuple:
    """A native tree's statistics as the search's named records (the kept tree left out)."""
    answers, joint, nodes, done, _ = tree
    records = [root_sums(sums, player_sums) for sums, player_sums in answers]
    return ([(r.sums, r.player_sums) for r in records], {cell: joint_cell(v) for cell, v in joint.items()},
            nodes, done)


def decision_examples() -> list[tuple[str, Position]]:
    """The shipped examples at a player's decision."""
    examples = [(name, load_example(name).position) for name in example_names()]
    return [(name, position) for name, position in examples if position.current_player() >= 0]


def agent_request(iterations: int) -> SearchRequest:
    """The agent's default preset (one worker, no tree reuse: reuse is the caller's table)."""
    return SearchAgent("native", Limit(iterations=iterations), reuse=False).request(0)


PRESETS = {
    "random rollouts": lambda n: SearchRequest.of(iterations=n),
    "advisor": lambda n: advisor_request(iterations=n),
    "advisor, uniform root": lambda n: advisor_request(iterations=n, root_selection="uniform"),
    "agent": agent_request,
    "agent, thrifty rollout and prior": lambda n: SearchRequest.of(
        iterations=n, rollout=THRIFTY_ROLLOUT, prior=THRIFTY_ROLLOUT, rollout_cutoff=4,
        evaluator=LearnedEvaluator()),
    "regret matching, step root": lambda n: SearchRequest.of(iterations=n, rollout=DEFAULT_ROLLOUT,
                                                         simultaneous="rm", step_root=True),
    "exp3, widening": lambda n: SearchRequest.of(iterations=n, rollout=DEFAULT_ROLLOUT, simultaneous="exp3",
                                              widening=0.5, exploration_below=0.4),
}


def with_fresh_oracle(request: SearchRequest) -> SearchRequest:
    """`request` with fresh exact-endgame probes of the same budgets (none where it has no oracle)."""
    oracle = request.config.oracle
    if not isinstance(oracle, ExactEndgames):
        return request
    fresh = ExactEndgames(oracle.max_nodes, oracle.leaf_max_nodes, shared=False)
    return dataclasses.replace(request, config=dataclasses.replace(request.config, oracle=fresh))


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2712])
def test_root_statistics_equal_the_python_search(monkeypatch: pytest.MonkeyPatch, preset: str, seed: int) -> None:
    """Each engine from fresh exact-endgame probes (the native tree's own, then Python's)."""
    iterations = 150
    compared = 0
    for name, position in decision_examples():
        monkeypatch.delenv("REFUGE_BACKEND", raising=False)
        request = with_fresh_oracle(PRESETS[preset](iterations))
        assert native_search.unsupported(native_request(request)) == ""
        native = grow(position, native_request(request), seed, iterations)
        assert native is not None, name
        monkeypatch.setenv("REFUGE_BACKEND", "python")
        python = run_tree(position, with_fresh_oracle(request), seed, iterations)
        [(sums, player_sums)], joint, nodes, done = native
        assert done == iterations and joint == {}
        assert sums == python.sums, name
        assert player_sums == python.player_sums, name
        assert nodes == python.nodes, name
        compared += 1
    assert compared >= 5


def test_trees_grown_on_threads_of_the_core_equal_each_grown_alone() -> None:
    """Root parallelism: several workers' trees grown at once, each on its own thread with its own
    probes, equal the same trees grown one at a time (no tree sees another's thread), in worker
    order, whatever finishes first."""
    request = agent_request(300)
    for name, position in decision_examples()[:4]:
        seeds, budgets = [11, 12, 13], [300, 40, 200]
        fresh = with_fresh_oracle(request)
        requests = [native_request(fresh, worker) for worker in range(3)]
        assert len({id(r.oracle[0]) for r in requests}) == 3  # each worker its own probes
        together = native_search.search(position, requests, seeds, budgets)
        assert together is not None, name
        alone = [grow(position, native_request(with_fresh_oracle(request)), seed, budget)
                 for seed, budget in zip(seeds, budgets)]
        assert [records(tree) for tree in together] == alone, name
        assert [tree[3] for tree in together] == budgets


def _two_workers(position: Position) -> tuple:
    """A search of two workers' trees (the second on a kept thread of the core): what it answers."""
    result = search(position, SearchAgent("native", Limit(iterations=200, workers=2), reuse=False).request(7))
    return result.backend, result.chosen, [(a.action, a.visits, a.win, a.score) for a in result.actions]


def test_a_second_search_on_the_kept_threads_and_a_forked_process_answer_alike() -> None:
    """The later workers' trees run on threads the core keeps between searches; a process forked after
    they were made (``fork``: none of the parent's threads come along) makes its own, never waiting
    for the parent's: the same answer in both processes, and no hang."""
    position = decision_examples()[0][1]
    first = _two_workers(position)
    assert first[0] == "native" and _two_workers(position) == first
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_two_workers, (position,)).get(timeout=120) == first


def test_a_kept_table_or_a_hook_needs_a_single_tree() -> None:
    position = decision_examples()[0][1]
    request = native_request(agent_request(20))
    with pytest.raises(ValueError, match="a kept table or a progress hook needs a single tree"):
        native_search.search(position, [request, request], [1, 2], [10, 10], native_search.new_table())


def test_exact_endgame_leaves_are_answered_natively() -> None:
    """The oracle's probes answer the native search's leaves, one walker's and two walkers'
    (tests/native/test_endgames_identity.py compares them with Python's): no search hands back."""
    request = agent_request(50)
    solo = load_example("endgame-solo").position
    two_walkers = load_example("last-walk-last-turn").position
    for position in (solo, two_walkers):
        found = grow(position, native_request(request), 1, 50)
        assert found is not None and found[3] == 50


class FirstLegal:
    """A rollout policy the core does not play: the first legal action."""

    def choose(self, state: Position, rng: random.Random) -> int:
        """The first legal action."""
        return state.legal_actions()[0]


def test_requests_the_core_cannot_copy_are_named() -> None:
    assert native_search.unsupported(native_request(SearchRequest.of(iterations=10, keep_tree=True))) == ""
    first_legal = FirstLegal()
    assert native_search.unsupported(native_request(SearchRequest.of(iterations=10, rollout=first_legal))) \
        == f"the rollout policy {first_legal!r}"


def test_a_time_limit_stops_the_native_search_on_the_clock() -> None:
    position = load_example("opening-2p").position
    found = grow(position, native_request(SearchRequest.of(seconds=0.05)), 1, None)
    assert found is not None
    [(sums, _)], _, _, done = found
    assert done > 0 and sum(s.visits for s in sums.values()) == done


def test_a_kept_table_grows_as_the_python_one_across_searches() -> None:
    """Tree reuse: two searches on one native table give what two on one Python table give, and
    the native table converted (search.backend.KeptTree) is the Python one."""
    first, second = decision_examples()[0][1], decision_examples()[1][1]
    request = agent_request(80)
    table = native_search.new_table()
    python_table: dict = {}
    for position, seed in ((first, 3), (first, 4), (second, 5)):
        native = grow(position, native_request(request), seed, 80, table)
        python = run_tree(position, request, seed, 80, nodes=python_table)
        assert native is not None
        assert native == ([(python.sums, python.player_sums)], {}, python.nodes, python.iterations)
    converted = nodes_from_native(table.export())
    assert list(converted) == list(python_table)
    assert {k: {a: repr(s) for a, s in n.items()} for k, n in converted.items()} == \
        {k: {a: repr(s) for a, s in n.items()} for k, n in python_table.items()}


KEPT_EXAMPLES = ("opening-2p", "map-chain-4p", "buy-bear-deer-or-save", "which-tile", "thinning-cave-3p")


def kept_examples() -> list[tuple[str, Position]]:
    """A few shipped examples at a player's decision for the kept-tree comparisons."""
    return [(name, position) for name, position in decision_examples() if name in KEPT_EXAMPLES]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("seed", [1, 2712])
def test_a_kept_tree_equals_the_python_one(monkeypatch: pytest.MonkeyPatch, seed: int, workers: int) -> None:
    """The advisor's preset with keep_tree: the native search's tree (every node's (visits, value)
    per action, every edge walked; several workers merged) is the Python search's, in the same order."""
    request = advisor_request(iterations=120, seed=seed, workers=workers, keep_tree=True)
    compared = 0
    for name, position in kept_examples():
        monkeypatch.setenv("REFUGE_BACKEND", "native")
        native = search(position, request)
        assert native.backend == "native", name
        monkeypatch.setenv("REFUGE_BACKEND", "python")
        python = search(position, request)
        assert native.tree is not None and python.tree is not None
        assert native.tree.nodes == python.tree.nodes, name
        assert native.tree.following == python.tree.following, name
        assert list(native.tree.nodes) == list(python.tree.nodes), name
        assert list(native.tree.following) == list(python.tree.following), name
        assert native.actions == python.actions, name
        compared += 1
    assert compared >= 3


@pytest.mark.parametrize("seed", [1, 2712])
def test_the_advice_is_the_same_on_both_backends(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """``advise`` (keep_tree: the principal line, the widened intervals) runs natively and gives
    the Python backend's options and line."""
    request = advisor_request(iterations=200, seed=seed)
    compared = 0
    for name, position in kept_examples():
        monkeypatch.setenv("REFUGE_BACKEND", "native")
        native = advise(position, request)
        monkeypatch.setenv("REFUGE_BACKEND", "python")
        python = advise(position, request)
        assert native.result.actions == python.result.actions, name
        assert native.line == python.line and len(native.line) >= 1, name
        assert native.ranked == python.ranked, name
        assert native.exact_mix == python.exact_mix, name
        compared += native.result.backend == "native"
    assert compared >= 3


def test_a_game_between_default_agents_is_the_same_on_both_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's default (tree reuse, exact endgames) plays the same moves and finds the same
    statistics on both backends, every search of the game native."""

    backends: set[str] = set()

    def play(backend: str) -> list[tuple[int, tuple]]:
        monkeypatch.setenv("REFUGE_BACKEND", backend)
        agents = [SearchAgent(f"seat {seat}", Limit(iterations=40)) for seat in range(2)]
        position = Position.new_game(2, "forest")
        rng = random.Random(5)
        moves: list[tuple[int, tuple]] = []
        while not position.is_terminal() and len(moves) < 120:
            if position.is_chance():
                position.apply(position.sample_chance(rng))
                continue
            agent = agents[position.current_player()]
            action = agent.choose(position, rng)
            searched = agent.last.actions if agent.last is not None and len(position.legal_actions()) > 1 else ()
            if agent.last is not None and backend == "":
                backends.add(agent.last.backend)
            moves.append((int(action), searched))
            agent.last = None
            position.apply(int(action))
        return moves

    python = play("python")
    monkeypatch.delenv("REFUGE_BACKEND")
    assert play("") == python
    assert backends == {"native"}


def kept_tree_searches(monkeypatch: pytest.MonkeyPatch, backend: str) -> list[tuple]:
    """The root statistics of an agent's searches on its kept tree (tree reuse: the root's visits
    more than the search's 60 iterations) in a seeded game on `backend`, each checked: every option
    this search played has wins summing to 1 (C18) over its own iterations (``samples``)."""
    monkeypatch.setenv("REFUGE_BACKEND", backend)
    agent = SearchAgent("kept", Limit(iterations=60))
    position = Position.new_game(2, "meadows")
    rng = random.Random(11)
    on_kept: list[tuple] = []
    while not position.is_terminal() and len(on_kept) < 6:
        if position.is_chance():
            position.apply(position.sample_chance(rng))
            continue
        action = agent.choose(position, rng)
        result = agent.last
        searched = [] if result is None else [s for s in result.actions if s.samples]
        if result is not None and sum(s.visits for s in result.actions) > 60:
            assert result.backend == backend
            assert sum(s.samples for s in searched) == 60  # this search's iterations, not the kept ones
            for stats in searched:
                assert abs(sum(stats.wins) - 1.0) <= 1e-9, stats
                assert stats.samples <= stats.visits
            on_kept.append(result.actions)
        agent.last = None
        position.apply(int(action))
    assert len(on_kept) == 6
    return on_kept


def test_a_search_on_a_kept_tree_averages_its_own_iterations(monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent's later searches grow its kept tree, whose root visits also count the earlier
    searches': every player's chances are still means over this search's own iterations on both
    backends (:func:`kept_tree_searches`), and the two backends' statistics are equal."""
    assert kept_tree_searches(monkeypatch, "native") == kept_tree_searches(monkeypatch, "python")


def step_decisions() -> list[Position]:
    """Both seats' decisions of a simultaneous step, each as its seat sees it: played on from the
    opening (seeded random play) to a step where both decide, seat 0's choice made for seat 1."""
    rng = random.Random(4)
    position = load_example("opening-2p").position
    while True:
        if position.is_chance():
            position.apply(position.sample_chance(rng))
            continue
        legal = position.legal_actions()
        if position.is_simultaneous() and position.current_player() == 0 and len(legal) > 1:
            later = position.copy()
            later.apply(legal[0])
            if later.current_player() == 1 and later.is_simultaneous() and len(later.legal_actions()) > 1:
                return [position, later]
        position.apply(legal[int(rng.random() * len(legal))])


@pytest.mark.parametrize("pinned", [None, {1: -1}])
def test_a_step_search_equals_python(pinned: dict[int, int] | None) -> None:
    """search_step's tree (an answer node per seat, the joint cells, pinned actions) natively."""
    decisions = step_decisions()
    if pinned is not None:
        pinned = {1: decisions[1].legal_actions()[-1]}
    request = advisor_request(iterations=200, seed=3)
    native = grow(decisions[0], native_request(request), 3, 200, None, decisions[1:], pinned)
    python = run_tree(decisions[0], request, 3, 200, also=tuple(decisions[1:]), pinned=pinned)
    assert native is not None
    answers, joint, nodes, done = native
    assert answers == [(a.sums, a.player_sums) for a in python.answers]
    assert joint == python.joint and len(joint) > 1
    assert (nodes, done) == (python.nodes, python.iterations)
