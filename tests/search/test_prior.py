"""The progressive-bias prior (issue 16): checked requests, determinism by seed, a prior used only
when asked, its weight, and the agent's options for it."""

from __future__ import annotations

import random

import pytest

from advisor.players.agents import make_agent
from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.players.specs import AgentSpecError
from search.errors import SearchConfigError
from search.ismcts import search
from search.request import SearchRequest
from toy_games import BidGame
from builders import midgame
from test_search import two_hidden_choices


class Always:
    """A policy that picks the legal action at `index` (Python indexing) and records what it saw."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.seen: list = []

    def choose(self, state, rng: random.Random) -> int:  # type: ignore[no-untyped-def]
        self.seen.append(state)
        return state.legal_actions()[self.index]


@pytest.mark.parametrize("bad, message", [
    ({"prior": "heuristic"}, "prior .* has no choose"),
    ({"prior_weight": -0.5}, "prior_weight must be"),
    ({"prior_weight": float("nan")}, "prior_weight must be"),
])
def test_the_prior_is_checked_when_built(bad: dict, message: str) -> None:
    """A prior must be a policy; its weight a finite number >= 0 (STYLE 5)."""
    with pytest.raises(SearchConfigError, match=message):
        SearchRequest.of(iterations=10, **bad)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_search_with_a_prior_is_deterministic_by_seed(workers: int) -> None:
    """Same seed, same statistics; another seed, others (STYLE 7)."""
    first, _ = two_hidden_choices()
    request = SearchRequest.of(iterations=400, seed=5, workers=workers, rollout=DEFAULT_ROLLOUT,
                               prior=DEFAULT_ROLLOUT, step_root=False)
    assert search(first, request).actions == search(first, request).actions
    other = request.replace(seed=6)
    assert search(first, other).actions != search(first, request).actions


def test_prior_is_used_only_when_asked() -> None:
    """Without a prior the root's first visit is a uniform pick among untried actions; with one,
    the prior's action is tried first, and the prior is asked once per new node (a midgame decision
    that is not a later seat of a simultaneous step, whose tree would grow from the step's start)."""
    pos = midgame(decisions=23)
    assert not pos.is_simultaneous()
    legal = list(pos.legal_actions())
    assert len(legal) > 1
    prior = Always(-1)
    firsts = {search(pos, SearchRequest.of(iterations=1, seed=s, prior=prior)).chosen for s in range(8)}
    assert firsts == {legal[-1]}
    assert 1 <= len(prior.seen) <= 8  # one new node per iteration at most
    unbiased = {search(pos, SearchRequest.of(iterations=1, seed=s)).chosen for s in range(40)}
    assert len(unbiased) > 1


def test_prior_bias_shifts_visits_to_its_action() -> None:
    """The bias w/(visits+1) draws visits to the prior's action, more with a larger weight: player 1
    of the bid game (their last decision) favouring the worse bid 0 (visits summed over four seeds)."""
    state = BidGame()
    state.apply(1)
    visits = [sum(search(state, SearchRequest.of(iterations=300, seed=seed, prior=Always(0), prior_weight=weight)
                         ).stats(0).visits for seed in range(4)) for weight in (0.0, 1.0, 5.0)]
    assert visits[0] < visits[1] < visits[2]


def test_agent_options_select_the_prior() -> None:
    """ismcts:prior=…,prior_weight=… change the agent's preset, whose prior is the heuristic's."""
    request = make_agent("ismcts:iterations=50,prior=heuristic,prior_weight=0.5").request(1)  # type: ignore[attr-defined]
    assert request.config.prior is DEFAULT_ROLLOUT and request.config.prior_weight == 0.5
    default = make_agent("ismcts:iterations=50").request(1).config  # type: ignore[attr-defined]
    assert default.prior is DEFAULT_ROLLOUT and default.prior_weight == 1.0
    assert make_agent("ismcts:iterations=50,prior=none").request(1).config.prior is None  # type: ignore[attr-defined]
    for bad, message in (("prior=neural", "unknown prior"), ("prior=thrifty", "unknown prior"),
                         ("prior=none,prior_weight=2", "prior_weight needs prior=heuristic")):
        with pytest.raises(AgentSpecError, match=message):
            make_agent(f"ismcts:iterations=50,{bad}")
