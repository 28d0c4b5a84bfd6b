"""Where the game meets the search: the bots and a hand-written evaluator for cut-off rollouts.

Every bot is an object with ``choose(position, rng) -> action``; the heuristic player itself lives
in :mod:`positions.kernel.heuristics` (re-exported here).
"""

from __future__ import annotations

import math

from positions.kernel.heuristics import (  # noqa: F401  (re-exported: the bots' public names)
    DEFAULT_ROLLOUT, STEP_VALUE, THRIFTY_ROLLOUT, WORTH, HeuristicPolicy, bag_value, projected_score,
    storm_hit_chance, walk_index,
)
from positions.kernel.rules import paw_total
from positions.kernel.position import Position
from search.policies import UniformRandom


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


BOTS = {
    "random": random_bot,
    "cautious": cautious_bot,
    "greedy": greedy_bot,
    "thrifty": thrifty_bot,
}
"""Bot factories by name."""
