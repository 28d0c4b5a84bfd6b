"""Where the game meets the search: the bots, a rollout evaluator and the searching bot.

Every bot is an object with ``choose(position, rng) -> action``; the heuristic player itself lives
in :mod:`advisor.players.heuristics` (re-exported here).
"""

from __future__ import annotations

import math
import random
from typing import Any

from advisor.players.heuristics import (  # noqa: F401  (re-exported: the bots' public names)
    DEFAULT_ROLLOUT, STEP_VALUE, WORTH, HeuristicPolicy, bag_value, effect_gain, storm_hit_chance,
    walk_index,
)
from positions.position import Position
from positions.tiles import PAW
from search.ismcts import search
from search.policies import UniformRandom
from search.request import SearchRequest, SearchResult


def cautious_bot() -> HeuristicPolicy:
    """Goes home early and buys the best value per Step."""
    return HeuristicPolicy(aggression=0.6, buy_style="per_step", name="cautious")


def greedy_bot() -> HeuristicPolicy:
    """Walks on into the storm risk and buys the most valuable tile it can afford."""
    return HeuristicPolicy(aggression=1.8, buy_style="max_value", name="greedy")


def random_bot() -> UniformRandom:
    """Picks uniformly among the legal actions."""
    return UniformRandom()


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
            bag_worth = sum(WORTH[walk_index(state)][k] for k in state.bags[p]) / max(1, len(state.bags[p]))
            paws = sum(PAW[k] for k in state.paths[p]) if state.walking[p] else 0
            projected.append(state.vp[p] + 0.6 * paws + walks_left * 4.0 * bag_worth)
        top = max(projected)
        weights = [math.exp((s - top) / self.scale) for s in projected]
        total = sum(weights)
        return [w / total for w in weights], projected


class SearchBot:
    """Plays by ISMCTS with a fixed number of iterations per decision (seeded from the game's rng)."""

    def __init__(self, iterations: int, rollout: HeuristicPolicy | UniformRandom | None = DEFAULT_ROLLOUT,
                 exploration: float = 0.7, workers: int = 1, name: str | None = None):
        SearchRequest(iterations=iterations, exploration=exploration, workers=workers)  # validate now
        self.iterations = iterations
        self.rollout = rollout
        self.exploration = exploration
        self.workers = workers
        self.name = name or f"ismcts{iterations}"
        self.last: SearchResult | None = None

    def __repr__(self) -> str:
        return f"SearchBot({self.iterations!r}, {self.rollout!r}, {self.exploration!r})"

    def choose(self, state: Position, rng: random.Random) -> int:
        """The most visited root action of a search seeded from `rng`."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        request = SearchRequest(iterations=self.iterations, seed=rng.getrandbits(63),
                                exploration=self.exploration, workers=self.workers,
                                rollout=self.rollout)
        self.last = search(state, request)
        return self.last.chosen


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
}
"""Bot factories by name."""
