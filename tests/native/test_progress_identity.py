"""The native search's progress hook (``search(on_progress=...)``) reports what the Python search
reports, bit for bit: the same results so far at the same iterations, the same live tree, the same
final result, also when the hook stops the search and where the tree meets exact endgames."""

from __future__ import annotations

import dataclasses
from typing import Callable

import pytest

from advisor.players.agents import SearchAgent
from advisor.players.presets import advisor_request
from positions.examples import load_example
from positions.kernel import native_search
from search.errors import SearchError
from search.ismcts import LiveTree, search
from search.request import Limit, SearchRequest, SearchResult, SearchTree

refuge_native = pytest.importorskip("refuge_native")
if not native_search.built():
    pytest.skip("refuge_native has no search (built without native/py/src/search.rs)", allow_module_level=True)

Report = tuple[SearchResult, int, SearchTree | None]
"""What a report showed: the result so far (its clock and backend left out), the live tree's size
and, with keep_tree, its snapshot."""


def timeless(result: SearchResult) -> SearchResult:
    """`result` without what may differ between the backends: the clock and the backend's name."""
    return dataclasses.replace(result, seconds=0.0, backend="")


def watched(monkeypatch: pytest.MonkeyPatch, backend: str, position_name: str, request: SearchRequest,
            every: int = 64, stop_after: int | None = None) -> tuple[list[Report], SearchResult, list[str]]:
    """Every report of a search on `backend` (stopping after `stop_after` reports), its result,
    and the backends the reports named."""
    monkeypatch.setenv("REFUGE_BACKEND", backend)
    reports: list[Report] = []
    named: list[str] = []

    def hook(so_far: SearchResult, live: LiveTree) -> bool:
        snapshot = live.snapshot() if request.keep_tree else None
        reports.append((timeless(so_far), len(live), snapshot))
        named.append(so_far.backend)
        return stop_after is None or len(reports) < stop_after

    result = search(load_example(position_name).position, request, on_progress=hook, progress_every=every)
    return reports, result, named


def agent_request(iterations: int, seed: int) -> SearchRequest:
    """The agent's default preset (exact endgames; no tree reuse: that is the caller's table)."""
    return SearchAgent("native", Limit(iterations=iterations), reuse=False).request(seed)


PRESETS: dict[str, Callable[[int, int], SearchRequest]] = {
    "random rollouts": lambda n, seed: SearchRequest.of(iterations=n, seed=seed),
    "advisor, kept tree (advise, the web board)": lambda n, seed: advisor_request(iterations=n, seed=seed,
                                                                                    keep_tree=True),
    "agent": agent_request,
    "regret matching, step root": lambda n, seed: SearchRequest.of(iterations=n, seed=seed, simultaneous="rm",
                                                                   step_root=True),
}


@pytest.mark.parametrize("position_name", ["opening-2p", "which-tile", "thinning-cave-3p"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", [1, 2712])
def test_the_reports_and_the_result_equal_the_python_search(monkeypatch: pytest.MonkeyPatch, preset: str,
                                                             seed: int, position_name: str) -> None:
    request = PRESETS[preset](300, seed)
    native, native_result, named = watched(monkeypatch, "native", position_name, request)
    python, python_result, _ = watched(monkeypatch, "python", position_name, request)
    assert native_result.backend == "native" and set(named) == {"native"}
    assert [r[0].iterations for r in native] == [64, 128, 192, 256]
    assert native == python
    assert timeless(native_result) == timeless(python_result)


@pytest.mark.parametrize("stop_after", [1, 3])
def test_a_hook_answering_false_stops_both_searches_at_the_same_iteration(monkeypatch: pytest.MonkeyPatch,
                                                                           stop_after: int) -> None:
    request = advisor_request(iterations=5_000, seed=3, keep_tree=True)
    native, native_result, _ = watched(monkeypatch, "native", "which-tile", request, 40, stop_after)
    python, python_result, _ = watched(monkeypatch, "python", "which-tile", request, 40, stop_after)
    assert native_result.backend == "native" and native_result.iterations == 40 * stop_after
    assert native == python
    assert timeless(native_result) == timeless(python_result)


def test_a_hooked_search_meeting_exact_endgames_reports_as_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """storm-one-away under the agent's preset: the tree meets leaves the exact endgames answer,
    natively (endgames.rs), so every report is the native tree's and equals the Python search's."""
    request = agent_request(900, 1)
    native, native_result, named = watched(monkeypatch, "", "storm-one-away", request, 16)
    python, python_result, _ = watched(monkeypatch, "python", "storm-one-away", request, 16)
    assert len(named) == 900 // 16 and set(named) == {"native"}
    assert native == python
    assert timeless(native_result) == timeless(python_result)


def test_an_exception_in_the_hook_stops_the_native_search_and_is_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    seen: list[int] = []

    def hook(so_far: SearchResult, live: LiveTree) -> None:
        seen.append(so_far.iterations)
        if len(seen) == 2:
            raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        search(load_example("opening-2p").position, SearchRequest.of(iterations=1_000, seed=1),
               on_progress=hook, progress_every=10)
    assert seen == [10, 20]


def test_the_live_tree_is_read_during_its_report_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The core's live tree is the growing tree itself: kept past its report, it refuses to be read."""
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    kept: list[LiveTree] = []
    request = SearchRequest.of(iterations=100, seed=1, keep_tree=True)
    result = search(load_example("opening-2p").position, request, on_progress=lambda so_far, live: kept.append(live),
                    progress_every=50)
    assert result.backend == "native" and result.tree is not None and len(kept) == 2
    assert len(kept[-1]) == len(result.tree.nodes)
    with pytest.raises(RuntimeError, match="during its progress report"):
        kept[-1].snapshot()
    def snapshot(so_far: SearchResult, live: LiveTree) -> None:
        live.snapshot()

    with pytest.raises(SearchError, match="keep_tree"):
        search(load_example("opening-2p").position, SearchRequest.of(iterations=20, seed=1), on_progress=snapshot,
               progress_every=10)


def test_a_time_limit_with_a_hook_stops_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    seen: list[int] = []
    result = search(load_example("opening-2p").position, SearchRequest.of(seconds=0.1, seed=1),
                    on_progress=lambda so_far, live: seen.append(so_far.iterations), progress_every=8)
    assert result.backend == "native" and result.iterations > 8
    assert seen == list(range(8, result.iterations + 1, 8))
