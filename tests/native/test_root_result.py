"""The native core merges a search's trees into its answer exactly as ``SearchResult.from_trees``
does (``native/core/src/root_result.rs``), bit for bit: on hypothesis-drawn root sums and on the
trees of real searches (presets × workers × seeds, a kept table), and the result a native
``search`` returns is the one the Python merge of its trees gives."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings, strategies as st

from advisor.arena.bench import BENCH_SEED, bench_positions
from advisor.players.agents import SearchAgent
from advisor.players.presets import advisor_request
from positions.kernel import native_search
from search.backend import native_requests, root_sums
from search.ismcts import search
from search.parallel import split_iterations, worker_seeds
from search.records import PlayerSums, RootStats
from search.request import ActionStats, Limit, RootSums, SearchRequest, SearchResult, _merged, action_stats

refuge_native = pytest.importorskip("refuge_native")
if not hasattr(refuge_native, "merge_answer"):
    pytest.skip("refuge_native has no merge_answer (built before native/core/src/root_result.rs)",
                allow_module_level=True)


def native_merge(trees: list[tuple], player: int, legal: list[int], by_win: bool) -> SearchResult:
    """The core's merge of raw trees (``refuge_native.merge_answer``) as a result."""
    rows, chosen, per_worker, _ = refuge_native.merge_answer(trees, player, legal, by_win)
    actions = tuple(action_stats(action, row) for action, row in zip(legal, rows))
    return SearchResult.answered(player, actions, legal[chosen], tuple(per_worker), 0.0, by_win, "native")


def python_merge(trees: list[tuple], player: int, legal: list[int], by_win: bool) -> SearchResult:
    """The Python reference's merge of the same raw trees."""
    return SearchResult.from_trees(player, legal, [root_sums(*tree) for tree in trees], 0.0, by_win, "native")


def same(native: SearchResult, python: SearchResult) -> bool:
    """Equal results, floats bit for bit (``repr`` tells 0.0 from -0.0; ``inf`` equals itself)."""
    return repr(native) == repr(python) and native == python


@st.composite
def root_trees(draw: st.DrawFn) -> tuple[list[tuple], int, list[int], bool]:
    """Raw trees of one search: 1–4 workers' root sums over some of 1–6 actions, with or without
    a mean strategy, every player's sums on a kept tree's share of the visits."""
    players = draw(st.integers(2, 4))
    actions = draw(st.lists(st.integers(0, 40), min_size=1, max_size=6, unique=True))
    strategy = draw(st.booleans())
    trees = []
    for _ in range(draw(st.integers(1, 4))):
        sums, player_sums = [], []
        for action in draw(st.permutations(actions)):
            if draw(st.integers(0, 4)) == 0:
                continue  # not visited in this tree
            visits = draw(st.integers(1, 500))
            count = draw(st.integers(0, visits))  # a kept tree's earlier visits hold no player sums
            wins = draw(st.floats(0, 1))
            score = draw(st.floats(-5, 80))
            policy = draw(st.floats(0, visits)) if strategy else 0.0
            sums.append((action, visits, wins * visits, score * visits, policy))
            if count:
                returns = [wins * count] + [(1 - wins) * count / (players - 1)] * (players - 1)
                scores = [draw(st.floats(0, 80)) * count for _ in range(players)]
                squared = draw(st.floats(0, 6400)) * count
                player_sums.append((action, [*returns, *scores, squared, float(count)]))
        trees.append((sums, player_sums))
    legal = sorted(set(actions) | set(draw(st.lists(st.integers(41, 45), max_size=2))))
    return trees, draw(st.integers(0, players - 1)), legal, draw(st.booleans())


@settings(max_examples=400, deadline=None)
@given(root_trees())
def test_the_cores_merge_is_the_python_one(drawn: tuple[list[tuple], int, list[int], bool]) -> None:
    trees, player, legal, by_win = drawn
    assert same(native_merge(trees, player, legal, by_win), python_merge(trees, player, legal, by_win))


def test_the_merged_sums_are_pythons_merged() -> None:
    """``_merged`` (the readable reference) and the core add the trees in the same order."""
    a = RootSums({3: RootStats(20, 18.0, 40.0), 5: RootStats(4, 1.0, 8.0)},
                 {3: PlayerSums([18.0, 2.0], [30.0, 10.0], 900.0, 20.0)})
    b = RootSums({5: RootStats(6, 3.0, 6.0), 3: RootStats(10, 1.0, 2.0)},
                 {3: PlayerSums([1.0, 9.0], [5.0, 50.0], 250.0, 10.0)})
    sums, players = _merged([a, b])
    assert list(sums) == [3, 5] and sums[3] == RootStats(30, 19.0, 42.0, 0.0)
    assert players[3] == PlayerSums([19.0, 11.0], [35.0, 60.0], 1150.0, 30.0)
    raw = [([(3, 20, 18.0, 40.0, 0.0), (5, 4, 1.0, 8.0, 0.0)], [(3, [18.0, 2.0, 30.0, 10.0, 900.0, 20.0])]),
           ([(5, 6, 3.0, 6.0, 0.0), (3, 10, 1.0, 2.0, 0.0)], [(3, [1.0, 9.0, 5.0, 50.0, 250.0, 10.0])])]
    merged = native_merge(raw, 0, [3, 5], False)
    assert [(s.action, s.visits, s.win, s.wins, s.samples) for s in merged.actions] == \
        [(3, 30, 19.0 / 30, (19.0 / 30, 11.0 / 30), 30), (5, 10, 0.4, (), 0)]
    assert same(merged, python_merge(raw, 0, [3, 5], False))


def test_bad_rows_are_one_line_errors() -> None:
    with pytest.raises(ValueError, match="no tree"):
        refuge_native.merge_answer([], 0, [1], False)
    with pytest.raises(ValueError, match="2 × players \\+ 2"):
        refuge_native.merge_answer([([(1, 2, 1.0, 1.0, 0.0)], [(1, [1.0, 1.0, 1.0])])], 0, [1], False)


def requests() -> list[tuple[str, SearchRequest]]:
    """The agent's preset (its exact endgames, its evaluator) and the advisor's (uniform root)."""
    return [("agent", SearchAgent("merge", Limit(iterations=240, workers=3), reuse=False).request(5)),
            ("advisor", advisor_request(iterations=240, seed=5, workers=3))]


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_a_native_searchs_answer_is_the_python_merge_of_its_trees(workers: int) -> None:
    """Every bench position, both presets: ``search(..., answer=True)`` answers what the Python
    merge of the trees the same call grows without it gives."""
    compared = 0
    for name, request in requests():
        request = request.replace(workers=workers)
        for label, position in bench_positions():
            budgets = split_iterations(request.iterations, workers)
            seeds = worker_seeds(BENCH_SEED, workers)
            core = native_requests(request, workers)
            answer = native_search.answer(position, core, seeds, budgets)
            trees = native_search.search(position, core, seeds, budgets)
            assert answer is not None and trees is not None, (name, label)
            rows, chosen, per_worker, kept = answer
            legal = position.legal_actions()
            native = SearchResult.answered(position.current_player(),
                                           tuple(action_stats(a, row) for a, row in zip(legal, rows)), legal[chosen],
                                           tuple(per_worker), 0.0, request.config.root_selection == "uniform", "native")
            python = SearchResult.from_trees(position.current_player(), position.legal_actions(),
                                             [root_sums(*answers[0]) for answers, *_ in trees], 0.0,
                                             request.config.root_selection == "uniform", "native")
            assert same(native, python), (name, label)
            assert kept == [] and all(math.isfinite(s.win) for s in native.actions)
            compared += 1
    assert compared == 2 * len(bench_positions())


def test_a_search_on_a_kept_table_merges_as_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a kept table (tree reuse) the core's answer and ``search``'s result are the Python merge's."""
    (_, first), (_, second) = bench_positions()[:2]
    request = SearchAgent("merge", Limit(iterations=120), reuse=False).request(9)
    core = native_requests(request)
    grown, answered = native_search.new_table(), native_search.new_table()
    for position in (first, first, second):
        trees = native_search.search(position, core, [4], [120], grown)
        answer = native_search.answer(position, core, [4], [120], answered)
        assert trees is not None and answer is not None
        python = SearchResult.from_trees(position.current_player(), position.legal_actions(),
                                         [root_sums(*trees[0][0][0])], 0.0)
        legal = position.legal_actions()
        native = SearchResult.answered(position.current_player(),
                                       tuple(action_stats(a, row) for a, row in zip(legal, answer[0])),
                                       legal[answer[1]], tuple(answer[2]), 0.0)
        assert same(dataclasses.replace(native, backend="python"), python)
    assert len(grown) == len(answered)
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    result = search(first, request.replace(workers=2))
    assert result.backend == "native" and result.per_worker_iterations == (60, 60)


def test_a_result_of_merged_actions_sets_every_field() -> None:
    """``SearchResult.answered`` (without the dataclass's ``__init__``) and ``action_stats`` make
    what the constructors make, every field set."""
    stats = action_stats(4, (10, 0.5, 0.2, 0.8, 3.0, (0.5, 0.5), (3.0, 2.0), False, 0.7, None, 10))
    assert stats == ActionStats(4, 10, 0.5, 0.2, 0.8, 3.0, (0.5, 0.5), (3.0, 2.0), False, 0.7, None, 10)
    result = SearchResult.answered(1, (stats,), 4, (6, 4), 0.25, True, "native")
    built = SearchResult(1, (stats,), 4, 10, 0.25, 2, (6, 4), None, True, "native")
    assert same(result, built) and set(vars(result)) == {f.name for f in dataclasses.fields(SearchResult)}
