"""The native exact solvers (native/core/src/solver.rs, equilibrium.rs, through
advisor/players/native_solver.py) equal the Python ones (search.solver.ExactSolver,
search.equilibrium.EquilibriumSolver) call for call (issue 53, item 2).

Both are fed the same SEQUENCE of calls sharing one solver each, as the search makes them (a leaf
budget's ``value`` at every position of a last walk, a root budget's ``solve`` at the decisions, the
two-walker ``solve_step`` at a step's start, a refused root asked again), and after every call: the
same answer (values as exact Fractions, options in order, best, ``nodes``) or the same refusal (class
and one-line message), and the same memo size. Positions: last walks with one walker (2–4 players)
and with two walkers (2 players, at most ``TWO_WALKER_MAX_TILES`` walker tiles) from seeded random
and heuristic games on every route, the stored two-walker positions, and random continuations of
the shipped examples that reach either scope. The memo key is Python's, number for number.

Cost: every position a sequence meets is below its first position, so a sequence's Python work is
bounded by that position's size; positions are picked by size (measured on a throwaway native
solver) to keep the whole file near 40 s of Python solving.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter
from typing import Any, Iterator

import pytest

from advisor.players.native_solver import NativeExactSolver, built
from advisor.players.presets import AGENT_ROOT_NODES
from advisor.players.tablebase import (
    DEFAULT_MAX_NODES, LEAF_MAX_NODES, TWO_WALKER_LEAF_MAX_NODES, TWO_WALKER_MAX_NODES, TWO_WALKER_MAX_TILES,
    step_start, two_walkers, walker_tiles,
)
from positions.errors import ImpossiblePositionError
from positions.examples import example_names, load_example
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions.kernel.position import Position
from search.equilibrium import EquilibriumSolver
from search.errors import SearchConfigError, SolverLimitError
from search.solver import ExactSolver
from two_walker_positions import load_two_walker_entries, position_of

refuge_native = pytest.importorskip(
    "refuge_native", reason="the native module is not built (make native, or pip install ./native/py)")
if not built():
    pytest.skip("the native module has no ExactSolver (rebuild it)", allow_module_level=True)

ROUTES = ("meadows", "forest", "mountains")
POLICIES = ("random", "heuristic")
ONE_WALKER_COMBOS = [(players, route, policy) for players in (2, 3, 4) for route in ROUTES for policy in POLICIES]

Outcome = tuple[str, Any]
"""A call's answer ``("ok", result)``, or its refusal ``(class name, message)``."""


def outcome(solver: Any, kind: str, pos: Position) -> Outcome:
    """The answer of one call, or the refusal it raised."""
    try:
        return "ok", getattr(solver, kind)(pos)
    except SolverLimitError as error:
        return type(error).__name__, str(error)


class Twins:
    """A Python solver and a native one of one budget, fed the same calls and compared after each."""

    def __init__(self, budget: int, equilibrium: bool, seen: Counter[str]) -> None:
        self.budget = budget
        self.py = EquilibriumSolver(budget) if equilibrium else ExactSolver(budget)
        self.native = NativeExactSolver(budget, equilibrium=equilibrium)
        self.refused: list[tuple[str, Position]] = []
        self.seen = seen

    def call(self, kind: str, pos: Position, where: str) -> Outcome:
        """One call on both; a refusal is remembered, to be asked again."""
        expected = outcome(self.py, kind, pos)
        got = outcome(self.native, kind, pos)
        label = f"{where}: {kind} with max_nodes={self.budget}"
        assert got == expected, label
        assert self.native.memo_len() == len(self.py.memo), f"{label}: memo size"
        if expected[0] != "ok":
            self.refused.append((kind, pos))
        self.seen[expected[0]] += 1
        self.seen[f"{kind} {expected[0]}"] += 1
        if expected[0] != "ok":
            self.seen[expected[1]] += 1
        return expected

    def ask_refused_again(self, where: str) -> None:
        """Every root refused so far, asked again: refused at once, with the same message."""
        refused, self.refused = self.refused, []
        for kind, pos in refused:
            before = len(self.py.memo)
            again = self.call(kind, pos, f"{where} (asked again)")
            assert again[0] == "SolverLimitError" and len(self.py.memo) == before, where
            self.seen["again"] += 1
        self.refused.clear()


def play(start: Position, policy: str, seed: int) -> list[Position]:
    """Every position of a game played on from `start` to the end (random or heuristic decisions)."""
    pos, rng = start.copy(), random.Random(seed)
    seen = [pos.copy()]
    while not pos.is_terminal():
        action: int
        if pos.is_chance():
            action = pos.sample_chance(rng)
        elif policy == "heuristic":
            action = DEFAULT_ROLLOUT.choose(pos, rng)
        else:
            legal = pos.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        pos.apply(action)
        seen.append(pos.copy())
    return seen


def last_walk(pos: Position) -> bool:
    """Whether `pos` is in the game's last walk (or its end)."""
    return pos.walk == pos.ruleset.walks - 1 or pos.is_terminal()


def one_walker_scope(game: list[Position]) -> list[Position]:
    """The positions of `game` from the first one of the last walk with a single walker to the end
    (decisions, the other players' too, chance events, the end)."""
    for i, pos in enumerate(game):
        if last_walk(pos) and sum(pos.walking) == 1:
            return game[i:]
    return []


def two_walker_scope(game: list[Position]) -> list[Position]:
    """The positions of `game` from the first two-walker decision with at most
    ``TWO_WALKER_MAX_TILES`` walker tiles to the end."""
    for i, pos in enumerate(game):
        if two_walkers(pos) and walker_tiles(pos) <= TWO_WALKER_MAX_TILES:
            return game[i:]
    return []


def fresh_sizes(scope: list[Position], equilibrium: bool, cap: int) -> list[int | None]:
    """An upper bound of each position's fresh size (a native solver shared from the end backwards:
    its memo after a position holds everything below it), ``None`` beyond `cap`."""
    solver = NativeExactSolver(cap, equilibrium=equilibrium)
    sizes: list[int | None] = [None] * len(scope)
    for i in range(len(scope) - 1, -1, -1):
        if outcome(solver, "value", scope[i])[0] != "ok":
            break
        sizes[i] = solver.memo_len()
    return sizes


def start_within(scope: list[Position], sizes: list[int | None], limit: int) -> int:
    """The first index of `scope` whose position needs at most `limit` positions (len if none)."""
    return next((i for i, size in enumerate(sizes) if size is not None and size <= limit), len(scope))


def search_like(scope: list[Position], leaf: Twins, root: Twins, where: str, step: bool = False,
                before: Position | None = None, root_before: bool = False) -> None:
    """The calls a search makes down a game: the leaf budget's ``value`` at every position, the root
    budget's ``solve`` at every decision (with ``step``, ``solve_step`` at a step's start too), every
    refused root asked again before moving on. `before`, a position above the scope's first (too
    large), gets the leaf's ``value`` first (a refusal that leaves the memo part full), and with
    `root_before` the root's ``solve`` if it is a decision."""
    if before is not None:
        leaf.call("value", before, f"{where} before")
        if root_before and before.current_player() >= 0:
            root.call("solve", before, f"{where} before")
    for i, pos in enumerate(scope):
        here = f"{where} position {i}"
        leaf.call("value", pos, here)
        if pos.current_player() >= 0:
            root.call("solve", pos, here)
            start = step_start(pos) if step else None
            if start is not None:
                root.call("solve_step", start, here)
                leaf.call("solve_step", start, here)
        leaf.ask_refused_again(here)
        root.ask_refused_again(here)


def mixed_calls(scope: list[Position], twins: list[Twins], rng: random.Random, where: str, step: bool = False,
                ) -> None:
    """Calls in a random order on solvers of several budgets: each position once or twice, an
    earlier one now and then, ``value`` at chance and the end (now and then ``solve``: refused),
    ``value`` or ``solve`` at a decision (with ``step``, ``solve_step`` at its step's start too),
    refused roots again at random."""
    for i in range(len(scope) * 2):
        near = min(i // 2 + int(rng.random() * 3), len(scope) - 1)
        pos = scope[near] if rng.random() < 0.8 else scope[int(rng.random() * len(scope))]
        if pos.current_player() < 0:
            kind = "solve" if rng.random() < 0.1 else "value"
        else:
            start = step_start(pos) if step else None
            kind = "value" if rng.random() < 0.5 else "solve"
            if start is not None and rng.random() < 0.5:
                pos, kind = start, "solve_step"
        solver = twins[int(rng.random() * len(twins))]
        solver.call(kind, pos, f"{where} call {i}")
        if rng.random() < 0.2:
            solver.ask_refused_again(where)


def one_walker_games(seeds: range, continuations: int) -> Iterator[tuple[str, list[list[Position]]]]:
    """Every combination's seeded games (players x route x policy): from the game's first
    one-walker position, `continuations` games played on (random, then heuristic decisions in
    turn), each as its one-walker scope (the first position shared)."""
    for players, route, policy in ONE_WALKER_COMBOS:
        for seed in seeds:
            scope = one_walker_scope(play(Position.new_game(players, route), policy, seed))
            if scope:
                lines = [play(scope[0], POLICIES[n % 2], 1_000 * seed + n) for n in range(continuations)]
                yield f"{players}p {route} {policy} seed {seed}", lines


def within(line: list[Position], limit: int, equilibrium: bool = False) -> tuple[Position | None, list[Position]]:
    """The position just above the first one of `line` that needs at most `limit` positions (None
    if there is none), and the line from that one."""
    sizes = fresh_sizes(line, equilibrium, cap=max(limit, 1))
    first = start_within(line, sizes, limit)
    return (line[first - 1] if first else None), line[first:]


# --- the memo key ---------------------------------------------------------------------------------

def test_the_solver_key_is_pythons_number_for_number() -> None:
    """``State::solver_key`` holds the same 16-bit numbers as ``Position.solver_key`` at every
    position of seeded games (every phase, every player count, route and policy): the same memo
    equivalence."""
    positions = 0
    for players, route, policy in ONE_WALKER_COMBOS:
        for seed in range(2):
            for pos in play(Position.new_game(players, route), policy, 500 + seed):
                native = refuge_native.State.from_ints(pos.to_ints())
                assert native.solver_key() == array("h", pos.solver_key()).tolist(), f"{pos!r}"
                positions += 1
    assert positions > 2_000


# --- one walker -----------------------------------------------------------------------------------

@pytest.mark.parametrize("root_budget", [AGENT_ROOT_NODES, DEFAULT_MAX_NODES])
def test_one_walker_searches_agree_call_for_call(root_budget: int) -> None:
    """The oracle's calls down seeded last walks (leaf ``value`` at 2,000, root ``solve`` at the
    agent's or the advisor's budget), solvers shared by a game's continuations, each from its first
    position small enough (the one above it too large: a refusal that leaves the memo part full)."""
    seen: Counter[str] = Counter()
    seeds = range(1) if root_budget == AGENT_ROOT_NODES else range(1, 2)
    for where, lines in one_walker_games(seeds, continuations=4):
        leaf, root = Twins(LEAF_MAX_NODES, False, seen), Twins(root_budget, False, seen)
        for n, line in enumerate(lines):
            before, line = within(line, 3_000)
            search_like(line, leaf, root, f"{where} line {n}", before=before if n == 0 else None,
                        root_before=root_budget == AGENT_ROOT_NODES)
    assert seen["ok"] > 250 and seen["value SolverSizeError"] >= 5 and seen["again"] >= 5, seen
    if root_budget == AGENT_ROOT_NODES:
        assert seen["solve SolverSizeError"] >= 2, seen


def test_one_walker_small_budgets_refuse_alike_in_any_order() -> None:
    """Budgets of 1 to 400 on shared solvers, calls in a random order: refusals everywhere (the
    size limit, a second decider), answers from a memo that refusals left half full."""
    seen: Counter[str] = Counter()
    for n, (where, lines) in enumerate(one_walker_games(range(4, 7), continuations=2)):
        twins = [Twins(budget, False, seen) for budget in (1, 9, 60, 400)]
        for line in lines:
            mixed_calls(within(line, 2_000)[1], twins, random.Random(n), where)
        for solver in twins:
            solver.ask_refused_again(where)
    assert seen["ok"] > 300 and seen["SolverSizeError"] > 50 and seen["again"] > 50, seen
    assert any(str(key).startswith("solver: the root must be") for key in seen), seen


def test_one_walker_examples_played_on_agree() -> None:
    """The shipped examples played on (random decisions) into the last walk with one walker."""
    seen: Counter[str] = Counter()
    for name in example_names():
        start = load_example(name).position
        for seed in range(2):
            scope = one_walker_scope(play(start, "random", seed))
            if not scope:
                continue
            before, line = within(scope, 3_000)
            leaf, root = Twins(LEAF_MAX_NODES, False, seen), Twins(AGENT_ROOT_NODES, False, seen)
            search_like(line, leaf, root, f"{name} seed {seed}", before=before)
    assert seen["ok"] > 50, seen


# --- two walkers ----------------------------------------------------------------------------------

def two_walker_scopes() -> Iterator[tuple[str, list[Position]]]:
    """The stored two-walker positions played on (random decisions), and seeded 2-player heuristic
    games on every route that reach the two-walker scope."""
    for entry in load_two_walker_entries():
        start = position_of(entry)
        yield f"stored seed {entry['seed']}", two_walker_scope(play(start, "random", entry["seed"]))
    for route in ROUTES:
        for seed in range(40):
            game = play(Position.new_game(2, route), "heuristic", seed)
            scope = two_walker_scope(game)
            if scope:
                yield f"2p {route} heuristic seed {seed}", scope


def test_two_walker_searches_agree_call_for_call() -> None:
    """The oracle's two-walker calls (leaf ``value`` / ``solve_step`` at 500, root ``solve`` /
    ``solve_step`` at 20,000) down two-walker last walks, matrix-game equilibria included."""
    seen: Counter[str] = Counter()
    for where, scope in two_walker_scopes():
        before, line = within(scope, 4_000, equilibrium=True)
        leaf = Twins(TWO_WALKER_LEAF_MAX_NODES, True, seen)
        root = Twins(TWO_WALKER_MAX_NODES, True, seen)
        search_like(line, leaf, root, where, step=True, before=before)
    assert seen["ok"] > 300 and seen["solve_step ok"] > 20 and seen["again"] > 5, seen


def test_two_walker_small_budgets_in_any_order() -> None:
    """Two-walker solvers of budgets 3 to 300 fed ``value``, ``solve`` and ``solve_step`` in a
    random order, positions and step starts mixed; and the one-walker solver fed the same positions
    (refused: a second decider)."""
    seen: Counter[str] = Counter()
    for n, (where, scope) in enumerate(two_walker_scopes()):
        if n % 2:
            continue
        line = within(scope, 2_000, equilibrium=True)[1]
        twins = [Twins(budget, True, seen) for budget in (3, 40, 300)]
        mixed_calls(line, twins, random.Random(n), where, step=True)
        mixed_calls(line, [Twins(2_000, False, seen)], random.Random(n), f"{where} one-walker solver")
    assert seen["ok"] > 100 and seen["SolverSizeError"] > 20 and seen["solve_step ok"] > 5, seen
    assert any(str(key).startswith("solver: player") and "also decides" in str(key) for key in seen), seen


# --- bad input ------------------------------------------------------------------------------------

def test_bad_input_is_a_one_line_error() -> None:
    """Not an encoding: the kernel's one-line error; a budget below 1: refused as Python refuses
    it; ``solve_step`` on the one-walker solver: a refusal (Python's has no such method)."""
    core = refuge_native.ExactSolver(10)
    with pytest.raises(ImpossiblePositionError) as error:
        core.value([1, 2, 3])
    assert "\n" not in str(error.value)
    with pytest.raises(SearchConfigError, match="max_nodes must be an int >= 1, got 0"):
        NativeExactSolver(0)
    with pytest.raises(ValueError, match="max_nodes must be an int >= 1"):
        refuge_native.ExactSolver(0)
    with pytest.raises(SolverLimitError, match="needs the two-walker"):
        core.solve_step(Position.new_game(2, "meadows").to_ints())
    assert core.memo_len() == 0
