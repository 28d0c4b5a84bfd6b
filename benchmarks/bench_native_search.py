"""Search iterations per second on the native core against the Python tree, in one run.

The agent's default preset (heuristic prior and rollouts cut off after 8 decisions, judged by the
learned evaluator; exact endgames out of scope at this position) and the advisor's (heuristic
rollouts to the end, widening below the root), one worker, at the fixed mid-walk position of
bench_search.py. Each benchmark is ``ITERATIONS[preset]`` iterations: iterations per second are
ops x that. Both backends give the same statistics (tests/native/test_search_identity.py); this
checks it once more on the measured searches.
"""

from __future__ import annotations

from typing import Callable

import pytest

from advisor.players.agents import SearchAgent
from advisor.players.presets import advisor_request
from benchmarks.bench_search import reference_position
from positions.kernel import native_search
from search.ismcts import search
from search.request import Limit, SearchRequest

ITERATIONS = {"agent": 1_000, "advisor": 200}
PRESETS: dict[str, Callable[[int], SearchRequest]] = {
    "agent": lambda n: SearchAgent("bench", Limit(iterations=n), reuse=False).request(1),
    "advisor": lambda n: advisor_request(iterations=n, seed=1),
}


@pytest.mark.skipif(not native_search.built(), reason="the native core is not built")
@pytest.mark.parametrize("backend", ["python", "native"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_iterations_per_second_by_backend(benchmark, monkeypatch, preset: str, backend: str) -> None:  # type: ignore[no-untyped-def]
    """Iterations per second (ops x ITERATIONS[preset]) of each preset on each backend."""
    pos = reference_position()
    request = PRESETS[preset](ITERATIONS[preset])
    monkeypatch.setenv("REFUGE_BACKEND", backend)
    result = benchmark(search, pos, request)
    assert result.backend == backend
    monkeypatch.setenv("REFUGE_BACKEND", "python" if backend == "native" else "native")
    assert search(pos, request).actions == result.actions
