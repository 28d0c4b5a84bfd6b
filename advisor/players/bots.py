"""Where the game meets the search: the bots, a rollout evaluator and the searching bot.

Every bot is an object with ``choose(position, rng) -> action``; the heuristic player itself lives
in :mod:`positions.kernel.heuristics` (re-exported here).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from typing import Any, Hashable

from positions.kernel.heuristics import (  # noqa: F401  (re-exported: the bots' public names)
    DEFAULT_ROLLOUT, STEP_VALUE, THRIFTY_ROLLOUT, WORTH, HeuristicPolicy, bag_value, projected_score,
    storm_hit_chance, walk_index,
)
from positions.kernel.rules import paw_total
from positions.kernel.position import Position
from search.ismcts import search
from search.seeds import derive_seed
from search.policies import UniformRandom
from search.request import SearchRequest


def cautious_bot() -> HeuristicPolicy:
    """Goes home early and buys the best value per Step."""
    return HeuristicPolicy(aggression=0.6, buy_style="per_step", name="cautious")


def greedy_bot() -> HeuristicPolicy:
    """Walks on into the storm risk and buys the most valuable tile it can afford."""
    return HeuristicPolicy(aggression=1.8, buy_style="max_value", name="greedy")


def thrifty_bot() -> HeuristicPolicy:
    """The greedy bot that keeps its Steps for tiles well above its bag's mean (``THRIFTY_ROLLOUT``)."""
    rollout = THRIFTY_ROLLOUT
    return HeuristicPolicy(rollout.aggression, rollout.buy_style, "thrifty",
                           save_ratio=rollout.save_ratio, save_margin=rollout.save_margin)


def random_bot() -> UniformRandom:
    """Picks uniformly among the legal actions."""
    return UniformRandom()


class TrustedPolicy:
    """A model of how a player chooses: `policy`'s action with probability `trust`, otherwise a
    uniformly random legal action (the belief ``ismcts:belief=heuristic`` determinizes with)."""

    def __init__(self, policy: HeuristicPolicy, trust: float = 0.8):
        if not (isinstance(trust, (int, float)) and 0.0 <= trust <= 1.0):
            raise ValueError(f"trust must be a number in [0, 1], got {trust!r}")
        self.policy = policy
        self.trust = trust

    def __repr__(self) -> str:
        return f"TrustedPolicy({self.policy!r}, {self.trust!r})"

    def choose(self, state: Position, rng: random.Random) -> int:
        """`policy`'s action with probability `trust`, else a uniform pick (one draw decides)."""
        legal = state.legal_actions()
        if rng.random() < self.trust:
            return self.policy.choose(state, rng)
        return legal[int(rng.random() * len(legal))]


class SearchedBelief:
    """A model of a player who searches: a short ISMCTS from their view of the decision, then their
    choice drawn in proportion to its root visits (``ismcts:belief=search``).

    The search runs once per information set (cached, at most `cache_size` of them) and is seeded
    from that information set, so whether it was cached never changes a result: one draw of `rng`
    per choice, whatever ran before.
    """

    def __init__(self, iterations: int = 200, cache_size: int = 256):
        SearchRequest(iterations=iterations)  # validate now
        self.iterations = iterations
        self.cache_size = cache_size
        self._cache: dict[Hashable, tuple[list[int], list[float]]] = {}

    def __repr__(self) -> str:
        return f"SearchedBelief({self.iterations!r})"

    def __getstate__(self) -> dict[str, object]:
        return {"iterations": self.iterations, "cache_size": self.cache_size, "_cache": {}}

    def choose(self, state: Position, rng: random.Random) -> int:
        """A draw from the short search's visit shares for the player to act."""
        player = state.current_player()
        key = state.information_set_key(player)
        found = self._cache.get(key)
        if found is None:
            seed = derive_seed("searched-belief", key)
            result = search(state, SearchRequest(iterations=self.iterations, seed=seed,
                                                 rollout=DEFAULT_ROLLOUT))
            found = ([s.action for s in result.actions],
                     list(itertools.accumulate(s.visits for s in result.actions)))
            if len(self._cache) >= self.cache_size:
                self._cache.clear()
            self._cache[key] = found
        actions, cumulative = found
        return actions[bisect.bisect_right(cumulative, rng.random() * cumulative[-1])]


class HeuristicEvaluator:
    """Judges a position where a rollout is cut off: projected scores, then win shares from them."""

    def __init__(self, scale: float = 6.0):
        self.scale = scale

    def __repr__(self) -> str:
        return f"HeuristicEvaluator({self.scale!r})"

    def evaluate(self, state: Position) -> tuple[list[float], list[float]]:
        """(win share per player, projected final score per player)."""
        walks_left = max(0, state.ruleset.walks - 1 - state.walk)
        projected = []
        for p in range(state.players):
            bag_sum = sum(WORTH[walk_index(state)][k] for k in state.bags[p])
            paws = paw_total(state.paths[p]) if state.walking[p] else 0
            projected.append(projected_score(state.vp[p], paws, walks_left, bag_sum, len(state.bags[p])))
        top = max(projected)
        weights = [math.exp((s - top) / self.scale) for s in projected]
        total = sum(weights)
        return [w / total for w in weights], projected


ADVISOR_WIDENING = 0.1
"""Progressive widening below the root for the advisor's searches (``SearchRequest.widening``):
thin nodes play the heuristic, so an option's value is that of good play, not of random replies."""
ADVISOR_EXPLORATION_BELOW = 0.3
"""The advisor's UCT constant below the root (the root keeps the request's ``exploration``)."""


def advisor_request(**fields: Any) -> SearchRequest:
    """A search request as the advisor makes it (best-move, annotate, the value-accuracy benchmark):
    heuristic rollouts with the advisor's widening, plus `fields` (iterations, seed, ...)."""
    settings: dict[str, Any] = {"rollout": DEFAULT_ROLLOUT, "widening": ADVISOR_WIDENING,
                                "exploration_below": ADVISOR_EXPLORATION_BELOW}
    settings.update(fields)
    return SearchRequest(**settings)


BOTS = {
    "random": random_bot,
    "cautious": cautious_bot,
    "greedy": greedy_bot,
    "thrifty": thrifty_bot,
}
"""Bot factories by name."""
