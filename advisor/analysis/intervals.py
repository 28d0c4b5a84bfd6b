"""Honest intervals: widen each option's noise interval to cover the selection bias below it.

A root option's mean mixes every continuation the search tried below it, exploratory ones
included, so it understates the value of playing on well. Where the tree shows the player's own
next decisions under an option, the value of their best-looking choices there (a max backup) is a
second estimate; the interval is widened to cover both, plus the noise.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Hashable

from search.request import ActionStats, Following, SearchResult, SearchTree

MIN_CHILD_VISITS = 10
"""A child action counts as the best only with at least this many visits (a max over a handful of
samples is biased upwards)."""


def following_edges(tree: SearchTree) -> Following:
    """The tree's edges indexed by where they start: (node, action) -> {next node: times walked}."""
    return tree.following


def _best_mean(stats: dict[int, tuple[float, float]], fallback: float) -> float:
    means = [value / visits for visits, value in stats.values() if visits >= MIN_CHILD_VISITS]
    return max(means) if means else fallback


def max_backup(tree: SearchTree, following: Following, root: Hashable, action: int, player: int,
               mean: float, visits: int) -> float:
    """The option's value when the player's own next decisions below it take their best-looking
    action: a mix over the own nodes reached (through other players' nodes, in the proportions the
    search walked), the option's mean standing in where the tree stops first.

    An information set can be reached from several parents (another player does not see this
    player's hidden choice), so below the root only proportions are followed, never raw counts.
    """
    def reach(key: Hashable, chosen: int, weight: float, base: float, depth: int) -> tuple[float, float]:
        total = covered = 0.0
        for child, walked in following.get((key, chosen), {}).items():
            stats = tree.nodes.get(child, {})
            share = weight * min(1.0, walked / base) if base > 0 else 0.0
            if not stats or share <= 0:
                continue
            if isinstance(child, tuple) and child and child[0] == player:
                total += share * _best_mean(stats, mean)
                covered += share
            elif depth < 8:
                out = sum(n for n, _ in stats.values())
                for other, (n, _) in stats.items():
                    if n > 0:
                        sub, reached = reach(child, other, share * n / out, n, depth + 1)
                        total += sub
                        covered += reached
        return total, covered

    if not visits:
        return mean
    total, covered = reach(root, action, float(visits), float(visits), 0)
    covered = min(covered, float(visits))
    return (total + (visits - covered) * mean) / visits


def widened(result: SearchResult, tree: SearchTree, root: Hashable,
            following: Following | None = None) -> SearchResult:
    """`result` with each option's interval widened to cover the same interval moved to its
    max-backup value."""
    actions = []
    if following is None:
        following = following_edges(tree)
    for stats in result.actions:
        if stats.visits and not stats.exact:
            other = max_backup(tree, following, root, stats.action, result.player, stats.win, stats.visits)
            shift = other - stats.win  # the interval moved to the other estimate, then joined
            stats = dataclasses.replace(stats, ci_low=max(0.0, min(stats.ci_low, stats.ci_low + shift)),
                                        ci_high=min(1.0, max(stats.ci_high, stats.ci_high + shift)))
        actions.append(stats)
    return dataclasses.replace(result, actions=tuple(actions))



def difference_interval(first: ActionStats, second: ActionStats) -> tuple[float, float, float]:
    """(difference, low, high): `first`'s win chance less `second`'s with the 95% margin that
    :func:`search.request.within_noise` uses (the two noise half-widths combined), so the two are
    within noise exactly when the interval holds 0. A difference of two win chances lies in
    [-1, 1], so the interval is cut to that range (which never moves 0 in or out of it)."""
    difference = first.win - second.win
    margin = math.hypot(first.half_width, second.half_width)
    return difference, max(-1.0, difference - margin), min(1.0, difference + margin)


def has_difference_interval(first: ActionStats, second: ActionStats) -> bool:
    """Whether both options have enough visits for the difference to have a 95% interval."""
    return math.isfinite(math.hypot(first.half_width, second.half_width))


def difference_text(first: ActionStats, second: ActionStats) -> str:
    """``+20.1 pp over #2, 95% interval +0.1 to +40.1 pp``: the comparison a verdict rests on, in
    percentage points (pp) of win chance."""
    difference, low, high = difference_interval(first, second)
    if first.exact and second.exact:
        return f"{100 * difference:+.1f} pp over #2, exact"
    if not has_difference_interval(first, second):
        return f"{100 * difference:+.1f} pp over #2, too few visits for an interval"
    return f"{100 * difference:+.1f} pp over #2, 95% interval {100 * low:+.1f} to {100 * high:+.1f} pp"


def difference_to_data(first: ActionStats, second: ActionStats) -> dict[str, object]:
    """The difference a "clear of #2" verdict rests on, for JSON: win chance of #1 less #2's and its
    95% interval (``None`` with too few visits; the difference itself when both are exact)."""
    difference, low, high = difference_interval(first, second)
    exact = first.exact and second.exact
    interval = ([round(difference, 6)] * 2 if exact else
                [round(low, 6), round(high, 6)] if has_difference_interval(first, second) else None)
    return {"win_difference": round(difference, 6), "ci95": interval, "exact": exact}
