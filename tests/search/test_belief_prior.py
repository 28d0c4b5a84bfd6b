"""Belief-aware determinization and the progressive-bias prior (issue 16): checked requests,
determinism by seed, beliefs that stay legal and blind, a prior used only when asked."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from advisor.players.agents import make_agent
from advisor.players.bots import DEFAULT_ROLLOUT, SearchedBelief, TrustedPolicy
from advisor.players.specs import AgentSpecError
from positions import Position, parse_action
from positions.kernel import rules
from positions.kernel.phases import DECIDE, RETURN_DISCARD
from search.errors import SearchConfigError
from search.ismcts import search
from search.request import SearchRequest
from toy_games import BidGame
from test_search import midgame, two_hidden_choices


class Always:
    """A policy that picks the legal action at `index` (Python indexing) and records what it saw."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.seen: list = []

    def choose(self, state, rng: random.Random) -> int:  # type: ignore[no-untyped-def]
        self.seen.append(state)
        return state.legal_actions()[self.index]


class Illegal:
    """A broken belief: answers an action no one may take."""

    def choose(self, state, rng: random.Random) -> int:  # type: ignore[no-untyped-def]
        return parse_action("pass")


@pytest.mark.parametrize("bad, message", [
    ({"belief": object()}, "belief .* has no choose"),
    ({"prior": "heuristic"}, "prior .* has no choose"),
    ({"prior_weight": -0.5}, "prior_weight must be"),
    ({"prior_weight": float("nan")}, "prior_weight must be"),
])
def test_belief_and_prior_are_checked_when_built(bad: dict, message: str) -> None:
    """A belief or prior must be a policy; the prior's weight a finite number >= 0 (STYLE 5)."""
    with pytest.raises(SearchConfigError, match=message):
        SearchRequest(iterations=10, **bad)


def test_belief_samples_only_legal_options_from_the_other_players_view() -> None:
    """C6: player 0's hidden return/draw is redrawn among their own options, by a belief that sees
    player 0 to act and no one's unrevealed choice; player 1's key is unchanged."""
    first, second = two_hidden_choices()
    belief = Always(-1)
    for pos in (first, second):
        world = pos.determinize(1, random.Random(3), belief)
        assert world.pending[0] == rules.step_legal(pos, 0)[-1]
        assert world.information_set_key(1) == pos.information_set_key(1)
    for view in belief.seen:
        assert view.current_player() == 0 and view.phase == DECIDE
        assert list(view.legal_actions()) == list(rules.step_legal(first, 0))
        assert all(choice < 0 for choice in view.pending)
    assert first.pending[0] != second.pending[0]  # the originals are untouched


def test_a_belief_outside_the_options_is_refused() -> None:
    """A belief answering an illegal action is an error naming the player, never a silent world."""
    first, _ = two_hidden_choices()
    with pytest.raises(ValueError, match="for player 0, not one of"):
        first.determinize(1, random.Random(1), Illegal())


def test_trusted_policy_mixes_the_heuristic_with_uniform() -> None:
    """trust 0.8 over two options: the heuristic's choice 0.8 + 0.2/2 = 0.9 of the time."""
    first, _ = two_hidden_choices()
    view_choice = DEFAULT_ROLLOUT.choose(_view_of_player_0(first), random.Random(0))
    belief = TrustedPolicy(DEFAULT_ROLLOUT, 0.8)
    rng = random.Random(11)
    counts = Counter(first.determinize(1, rng, belief).pending[0] for _ in range(4000))
    assert set(counts) <= set(rules.step_legal(first, 0))
    assert counts[view_choice] / 4000 == pytest.approx(0.9, abs=0.02)
    with pytest.raises(ValueError, match="trust"):
        TrustedPolicy(DEFAULT_ROLLOUT, 1.5)


def _view_of_player_0(pos: Position) -> Position:
    """Player 0's own view of their DECIDE choice (their choice not yet made)."""
    view = pos.copy()
    view.actor, view.legal, view.pending = 0, tuple(rules.step_legal(pos, 0)), [-1] * pos.players
    return view


def test_belief_changes_the_value_in_the_bid_game() -> None:
    """Search stays game-agnostic: believing player 0 always bids 1, player 1's bid 1 is worth 1/2
    (not 3/4 as under the uniform sampler) and bid 0 is worth 0. (The belief determinizes a search
    grown from the decision, ``step_root=False``; from the step's start there is nothing to redraw.)"""
    state = BidGame()
    state.apply(0)  # the hidden bid; the belief never sees it
    request = SearchRequest(iterations=2000, seed=9, root_selection="uniform", belief=Always(1),
                            step_root=False)
    result = search(state, request)
    assert result.stats(1).win == pytest.approx(0.5) and result.stats(0).win == pytest.approx(0.0)


@pytest.mark.parametrize("step_root", [False, True])
def test_belief_search_never_reads_the_hidden_choice(step_root: bool) -> None:
    """Same key and the same statistics with a belief, whatever player 0 chose secretly."""
    first, second = two_hidden_choices()
    request = SearchRequest(iterations=300, seed=8, rollout=DEFAULT_ROLLOUT, step_root=step_root,
                            belief=TrustedPolicy(DEFAULT_ROLLOUT), prior=DEFAULT_ROLLOUT)
    assert search(first, request).actions == search(second, request).actions


@pytest.mark.parametrize("workers", [1, 2])
def test_belief_and_prior_are_deterministic_by_seed(workers: int) -> None:
    """Same seed, same statistics; another seed, others (STYLE 7)."""
    first, _ = two_hidden_choices()
    request = SearchRequest(iterations=400, seed=5, workers=workers, rollout=DEFAULT_ROLLOUT,
                            belief=TrustedPolicy(DEFAULT_ROLLOUT), prior=DEFAULT_ROLLOUT, step_root=False)
    assert search(first, request).actions == search(first, request).actions
    other = SearchRequest(iterations=400, seed=6, workers=workers, rollout=DEFAULT_ROLLOUT,
                          belief=TrustedPolicy(DEFAULT_ROLLOUT), prior=DEFAULT_ROLLOUT, step_root=False)
    assert search(first, other).actions != search(first, request).actions


def test_prior_is_used_only_when_asked() -> None:
    """Without a prior the root's first visit is a uniform pick among untried actions; with one,
    the prior's action is tried first, and the prior is asked once per new node."""
    pos = midgame(decisions=23)  # a return-discard: no step start's node beside the root's (step_root)
    assert pos.phase == RETURN_DISCARD
    legal = list(pos.legal_actions())
    assert len(legal) > 1
    prior = Always(-1)
    firsts = {search(pos, SearchRequest(iterations=1, seed=s, prior=prior)).chosen for s in range(8)}
    assert firsts == {legal[-1]}
    assert 1 <= len(prior.seen) <= 8  # one new node per iteration at most
    unbiased = {search(pos, SearchRequest(iterations=1, seed=s)).chosen for s in range(40)}
    assert len(unbiased) > 1


def test_prior_bias_shifts_visits_to_its_action() -> None:
    """The bias w/(visits+1) draws visits to the prior's action, more with a larger weight: player 1
    of the bid game (their last decision) favouring the worse bid 0 (visits summed over four seeds)."""
    state = BidGame()
    state.apply(1)
    visits = [sum(search(state, SearchRequest(iterations=300, seed=seed, prior=Always(0), prior_weight=weight)
                         ).stats(0).visits for seed in range(4)) for weight in (0.0, 1.0, 5.0)]
    assert visits[0] < visits[1] < visits[2]


def test_agent_options_select_belief_and_prior() -> None:
    """ismcts:belief=…,trust=…,prior=…,prior_weight=… build the request; the defaults are the uniform
    belief and (since issue 16 step 2) the heuristic prior."""
    agent = make_agent("ismcts:iterations=50,belief=heuristic,trust=0.6,prior=heuristic,prior_weight=0.5")
    request = agent.request(1)  # type: ignore[attr-defined]
    assert isinstance(request.belief, TrustedPolicy) and request.belief.trust == 0.6
    assert request.prior is DEFAULT_ROLLOUT and request.prior_weight == 0.5
    default = make_agent("ismcts:iterations=50").request(1)  # type: ignore[attr-defined]
    assert default.belief is None and default.prior is DEFAULT_ROLLOUT and default.prior_weight == 1.0
    assert make_agent("ismcts:iterations=50,prior_weight=2").request(1).prior_weight == 2  # type: ignore[attr-defined]
    assert make_agent("ismcts:iterations=50,prior=none").request(1).prior is None  # type: ignore[attr-defined]
    for bad, message in (("belief=tree", "unknown belief 'tree'"), ("prior=neural", "unknown prior"),
                         ("trust=-1,belief=heuristic", "trust"), ("trust=0.5", "trust needs belief=heuristic"),
                         ("prior=none,prior_weight=2", "prior_weight needs prior=heuristic")):
        with pytest.raises(AgentSpecError, match=message):
            make_agent(f"ismcts:iterations=50,{bad}")


def test_belief_redraws_every_hidden_choice_with_three_players() -> None:
    """3 players (C6): players 0 and 1 have chosen unseen; player 2's worlds draw both from the belief,
    each asked on its own view, and keep player 2's key."""
    pos = Position.new_game(3)
    pos.apply(parse_action("draw"))
    pos.apply(parse_action("return"))
    assert pos.current_player() == 2
    belief = Always(0)
    world = pos.determinize(2, random.Random(4), belief)
    assert [view.current_player() for view in belief.seen] == [0, 1]
    assert belief.seen[0].pending == [-1, -1, -1]  # player 0 chose first: nothing before them
    assert belief.seen[1].pending == [world.pending[0], -1, -1]  # player 0's choice as drawn here
    assert world.pending[:2] == [rules.step_legal(pos, 0)[0], rules.step_legal(pos, 1)[0]]
    assert world.information_set_key(2) == pos.information_set_key(2)


def test_searched_belief_is_legal_and_the_same_warm_or_cold() -> None:
    """belief=search: a short search from player 0's view, its visit shares drawn from; whether the
    search was cached never changes a draw (seeded by the information set)."""
    first, second = two_hidden_choices()
    cold = [first.determinize(1, random.Random(seed), SearchedBelief(60)).pending[0] for seed in range(12)]
    warm_belief = SearchedBelief(60)
    warm_belief.choose(_view_of_player_0(second), random.Random(99))  # fills the cache
    warm = [second.determinize(1, random.Random(seed), warm_belief).pending[0] for seed in range(12)]
    assert cold == warm
    assert set(cold) <= set(rules.step_legal(first, 0))
    request = SearchRequest(iterations=150, seed=3, rollout=DEFAULT_ROLLOUT, belief=SearchedBelief(60))
    assert search(first, request).actions == search(second, request).actions
    assert isinstance(make_agent("ismcts:iterations=50,belief=search").request(1).belief,  # type: ignore[attr-defined]
                      SearchedBelief)
