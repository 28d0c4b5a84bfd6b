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

from advisor.analysis.best_move import Advice, advise
from advisor.players.agents import SearchAgent, make_agent
from advisor.players.games import deal_seed, play_game
from advisor.players.specs import parse_agent_spec
from advisor.players.presets import advisor_request
from benchmarks.bench_search import reference_position
from advisor.web.worker import analysis_request
from positions.examples import load_example
from positions.kernel import native_search
from positions.record import GameRecorder
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


LIVE_ITERATIONS = 800
"""The live analysis benchmark's budget: the web board's first reports (it grows to 100,000s)."""
BUILD_EVERY = 8
"""The live analysis benchmark builds the advice at every 8th report (every 128 iterations)."""


@pytest.mark.skipif(not native_search.built(), reason="the native core is not built")
@pytest.mark.parametrize("backend", ["python", "native"])
def test_live_analysis_by_backend(benchmark, monkeypatch, backend: str) -> None:  # type: ignore[no-untyped-def]
    """The web board's live analysis (advisor/web/worker.py): ``advise`` with best-move's request and
    a progress hook (every 16 iterations) that builds the advice so far, tree snapshot included, at
    every BUILD_EVERY-th report; LIVE_ITERATIONS iterations at opening-2p."""
    position = load_example("opening-2p").position
    monkeypatch.setenv("REFUGE_BACKEND", backend)

    def live() -> Advice:
        reports = [0]

        def hook(so_far: Callable[[], Advice]) -> bool:
            reports[0] += 1
            if reports[0] % BUILD_EVERY == 0:
                so_far()
            return True

        return advise(position, analysis_request(LIVE_ITERATIONS, 1), on_progress=hook)

    advice = benchmark(live)
    assert advice.result.backend == backend and advice.result.iterations == LIVE_ITERATIONS


@pytest.mark.skipif(not native_search.built(), reason="the native core is not built")
def test_a_game_between_two_default_agents(benchmark) -> None:  # type: ignore[no-untyped-def]
    """One whole game of two default agents at 1,000 iterations a decision, natively (the issue's
    "≤ 0.5 CPU-s a game"); each round plays the next deal, the agents kept as in a match."""
    agents = [make_agent(parse_agent_spec("ismcts:iterations=1000")) for _ in range(2)]
    deals = iter(range(1, 1_000_000))

    def one_game() -> GameRecorder:
        return play_game(agents, "meadows", deal_seed(1, next(deals)))

    recorder = benchmark.pedantic(one_game, rounds=5, warmup_rounds=1)
    assert recorder.position.is_terminal()
