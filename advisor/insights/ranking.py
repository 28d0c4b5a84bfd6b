"""Which buy is better: a route's tiles ranked by their paired win effect in each walk, and every
pair of them told apart (its difference's 95 % interval excludes zero) or not."""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, Mapping

from advisor.insights.stats import Mean, rounded
from search.request import Z95

Row = dict[str, Any]
BuyCell = tuple[str, str, str, int | str, str]
"""(agent, route, tile, players, walks) of a buy effect."""


JUDGED_MIN_PAIRS = 20
"""A buy effect, or a difference of two, is judged (resolved or not) only on this many paired
continuations a side or more: below it a normal interval can claim what a handful of values cannot
show (two equal values give a zero-width one)."""


def difference(first: Mean, second: Mean) -> tuple[float, list[float] | None]:
    """The difference of two independent means (`first` minus `second`) with its normal 95 %
    interval (None when either has fewer than :data:`JUDGED_MIN_PAIRS` values: not judged)."""
    if first.n < JUDGED_MIN_PAIRS or second.n < JUDGED_MIN_PAIRS:
        return first.mean - second.mean, None
    gap = first.mean - second.mean
    half = Z95 * math.sqrt(first.sd ** 2 / first.n + second.sd ** 2 / second.n)
    return gap, [round(gap - half, 4), round(gap + half, 4)]


def excludes_zero(ci: list[float] | None) -> bool:
    """Whether an interval lies wholly on one side of zero."""
    return ci is not None and (ci[0] > 0 or ci[1] < 0)


def ranking_section(wins: Mapping[BuyCell, Mean]) -> list[Row]:
    """Per agent, route, player count and walk label: the tiles tested there (``any`` left out)
    from the best win effect to the worst, and each pair's difference with whether it is resolved."""
    groups: dict[tuple[str, str, int | str, str], list[tuple[str, Mean]]] = {}
    for (agent, route, tile, players, walks), win in wins.items():
        if tile != "any" and win.n >= 2:
            groups.setdefault((agent, route, players, walks), []).append((tile, win))
    rows = []
    for (agent, route, players, walks), tiles in sorted(groups.items(), key=lambda kv: str(kv[0])):
        tiles.sort(key=lambda item: (-item[1].mean, item[0]))
        pairs, resolved = [], 0
        for (better, a), (worse, b) in combinations(tiles, 2):
            gap, ci = difference(a, b)
            resolved += excludes_zero(ci)
            pairs.append({"better": better, "worse": worse, "difference": rounded(gap), "ci95": ci,
                          "resolved": excludes_zero(ci)})
        rows.append({"agent": agent, "route": route, "players": players, "walks": walks,
                     "order": [{"tile": tile, "n": win.n, "win_effect": rounded(win.mean), "ci95": win.interval()}
                               for tile, win in tiles],
                     "pairs": pairs, "pairs_resolved": resolved,
                     "share_resolved": rounded(resolved / len(pairs)) if pairs else None})
    return rows
