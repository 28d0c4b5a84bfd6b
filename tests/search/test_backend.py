"""Which engine a search runs on (search/backend.py): the native core where it copies the request
exactly, else Python; ``REFUGE_BACKEND`` forces either; the answer is the same."""

from __future__ import annotations

import os
import random

import pytest

from advisor.players.presets import advisor_request
from positions import Position
from positions.examples import load_example
from positions.kernel import native_search
from search.backend import NativeRequest, forced_backend, native_requests
from search.errors import SearchError
from search.ismcts import search
from search.request import MIXING, SearchRequest
from toy_games import DiceGame

needs_native = pytest.mark.skipif(not native_search.built(), reason="the native core is not built")


def test_a_game_without_a_native_core_runs_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFUGE_BACKEND", raising=False)
    assert search(DiceGame(), SearchRequest.of(iterations=20)).backend == "python"
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    with pytest.raises(SearchError, match="REFUGE_BACKEND=native, but .*: the game has no native core"):
        search(DiceGame(), SearchRequest.of(iterations=20))


def test_a_backend_that_does_not_exist_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "fortran")
    with pytest.raises(SearchError, match="REFUGE_BACKEND must be python or native, got 'fortran'"):
        search(DiceGame(), SearchRequest.of(iterations=20))


def test_the_forced_backend_follows_every_change_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """``REFUGE_BACKEND`` is read once and read again after each change through ``os.environ``."""
    monkeypatch.delenv("REFUGE_BACKEND", raising=False)
    assert forced_backend() == forced_backend() == ""
    os.environ["REFUGE_BACKEND"] = "python"  # as a command line sets it
    try:
        assert forced_backend() == "python"
        os.environ["REFUGE_BACKEND"] = "native"
        assert forced_backend() == "native"
    finally:
        del os.environ["REFUGE_BACKEND"]
    assert forced_backend() == ""
    monkeypatch.setenv("REFUGE_BACKEND", "fortran")
    with pytest.raises(SearchError, match="got 'fortran'"):
        forced_backend()


def test_forcing_python_runs_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "python")
    position = load_example("opening-2p").position
    assert search(position, SearchRequest.of(iterations=20)).backend == "python"


class FirstLegal:
    """A rollout policy the core does not play: the first legal action."""

    def choose(self, state: Position, rng: random.Random) -> int:
        """The first legal action."""
        return state.legal_actions()[0]


def test_a_request_the_core_cannot_copy_runs_in_python_and_forcing_native_names_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    position = load_example("opening-2p").position
    request = SearchRequest.of(iterations=20, rollout=FirstLegal())
    monkeypatch.delenv("REFUGE_BACKEND", raising=False)
    assert search(position, request).backend == "python"
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    why = "the rollout policy" if native_search.built() else "the native core is not built"
    with pytest.raises(SearchError, match=why):
        search(position, request)


@needs_native
@pytest.mark.parametrize("workers", [1, 2])
def test_both_backends_give_the_same_result(monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    position = load_example("which-tile").position
    request = advisor_request(iterations=300, seed=11, workers=workers)
    monkeypatch.setenv("REFUGE_BACKEND", "python")
    python = search(position, request)
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    native = search(position, request)
    assert native.backend == "native" and python.backend == "python"
    assert native.actions == python.actions
    assert (native.chosen, native.per_worker_iterations) == (python.chosen, python.per_worker_iterations)


@needs_native
def test_a_kept_tree_runs_natively(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "native")
    result = search(load_example("which-tile").position, advisor_request(iterations=100, seed=2, keep_tree=True))
    assert result.backend == "native" and result.tree is not None
    assert sum(visits for visits, _ in result.tree.nodes[next(iter(result.tree.nodes))].values()) == 100


@needs_native
def test_a_progress_hook_runs_natively_and_a_python_node_table_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFUGE_BACKEND", raising=False)
    position = load_example("opening-2p").position
    request = SearchRequest.of(iterations=20)
    assert search(position, request).backend == "native"
    assert search(position, request, on_progress=lambda result, tree: None).backend == "native"
    assert search(position, request, reuse={}).backend == "python"


def test_every_worker_s_native_request_holds_the_request_s_fields_by_name() -> None:
    """``native_requests`` (built without the named tuple's ``__new__``) puts each field where its
    name says: the limit's seconds, the configuration's fields, each worker's own oracle."""
    request = advisor_request(iterations=100, seed=2, keep_tree=True)
    config = request.config
    native_oracle = getattr(config.oracle, "native_oracle", None)
    for worker, native in enumerate(native_requests(request, 2)):
        own = native_oracle(worker) if native_oracle is not None else None
        assert type(native) is NativeRequest and native._asdict() == {
            "seconds": request.limit.seconds, "keep_tree": True, "exploration": config.exploration,
            "exploration_below": config.exploration_below, "widening": config.widening,
            "rollout": native.rollout, "rollout_cutoff": config.rollout_cutoff, "evaluator": config.evaluator,
            "prior": config.prior, "prior_weight": config.prior_weight,
            "oracle": config.oracle if own is None else own, "root_selection": config.root_selection,
            "simultaneous": config.simultaneous, "step_root": config.step_root, "mixing": MIXING}
        assert native.rollout in (None, config.rollout)
