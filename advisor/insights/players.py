"""What changes with the number of players: each buy's effect at one count against another, told
apart or not, and the first seat's edge over a fair share at each count."""

from __future__ import annotations

from itertools import combinations
from typing import Any, Mapping

from advisor.insights.ranking import BuyCell, difference, excludes_zero
from advisor.insights.stats import Mean, rounded

Row = dict[str, Any]


def players_section(wins: Mapping[BuyCell, Mean], seats: list[Row]) -> Row:
    """Per agent, route, tile and walk label tested at two player counts: both effects and their
    difference (the larger count minus the smaller) with its 95 % interval; and per agent and count
    the first seat's win share minus the fair share (from the seats section, every route)."""
    counts: dict[tuple[str, str, str, str], dict[int, Mean]] = {}
    for (agent, route, tile, players, walks), win in wins.items():
        if isinstance(players, int) and win.n >= 2:
            counts.setdefault((agent, route, tile, walks), {})[players] = win
    buys = []
    for (agent, route, tile, walks), by_count in sorted(counts.items()):
        for fewer, more in combinations(sorted(by_count), 2):
            gap, ci = difference(by_count[more], by_count[fewer])
            buys.append({"agent": agent, "route": route, "tile": tile, "walks": walks, "fewer": fewer, "more": more,
                         "effect_fewer": rounded(by_count[fewer].mean), "n_fewer": by_count[fewer].n,
                         "effect_more": rounded(by_count[more].mean), "n_more": by_count[more].n,
                         "difference": rounded(gap), "ci95": ci, "resolved": excludes_zero(ci)})
    first_seat = [{"agent": s["agent"], "players": s["players"], "n": s["n"],
                   "edge": rounded(s["win_share"] - s["fair_share"]),
                   "ci95": [rounded(s["ci95"][0] - s["fair_share"]), rounded(s["ci95"][1] - s["fair_share"])]}
                  for s in seats if s["route"] == "all" and s["seat"] == 1]
    return {"buys": buys, "first_seat": first_seat}
