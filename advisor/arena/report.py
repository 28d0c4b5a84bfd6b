"""Arena statistics per pair of agents (pentanomial over paired deals for 2 players) and their table."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from tabulate import tabulate

from advisor.arena.stats import MatchSummary, SprtResult, fractional, pentanomial, sprt


@dataclass(frozen=True)
class Played:
    """A finished game as the tally needs it: its deal, who sat where, each seat's share of the win."""

    table: int
    deal: int
    seats: tuple[int, ...]
    returns: tuple[float, ...]
    scores: tuple[int, ...]
    fault: tuple[int, str] | None = None
    """(entrant index, fault kind) of an agent that lost by a fault."""


@dataclass(frozen=True)
class PairStats:
    """Agent `first` against agent `second`: game counts from first's side and the paired summary."""

    first: int
    second: int
    games: int
    wins: int
    draws: int
    losses: int
    summary: MatchSummary
    """Over complete deals: pentanomial for 2 players, the mean score per deal otherwise."""


def _head_to_head(game: Played, first: int, second: int) -> list[float]:
    """First's score against second at every pair of their seats in one game (1, 0.5 or 0).

    The share of the win decides, then the final score: with 3 or 4 players, two losers are ranked
    by their points (a player who lost by a fault has no share and ranks below the others).
    """
    scores = []
    for i, a in enumerate(game.seats):
        for j, b in enumerate(game.seats):
            if a == first and b == second:
                ra, rb = (game.returns[i], game.scores[i]), (game.returns[j], game.scores[j])
                scores.append(1.0 if ra > rb else 0.5 if ra == rb else 0.0)
    return scores


def pair_stats(entrants: int, players: int, games: Iterable[Played],
               rotations: Sequence[int]) -> list[PairStats]:
    """Statistics for every pair of agents that met; `rotations[t]` games make a deal of table t."""
    deals: dict[tuple[int, int], list[Played]] = defaultdict(list)
    for game in games:
        deals[(game.table, game.deal)].append(game)
    rows = []
    for first in range(entrants):
        for second in range(first + 1, entrants):
            wins = draws = losses = 0
            counts = [0] * 5
            per_deal: list[float] = []
            for (table, _), played in sorted(deals.items()):
                scores = [s for game in played for s in _head_to_head(game, first, second)]
                if not scores:
                    continue
                wins += scores.count(1.0)
                draws += scores.count(0.5)
                losses += scores.count(0.0)
                if len(played) < rotations[table]:
                    continue  # an unfinished deal: its luck has not cancelled yet
                if players == 2:
                    counts[round(2 * sum(scores))] += 1
                else:
                    per_deal.append(sum(scores) / len(scores))
            if wins + draws + losses == 0:
                continue
            summary = pentanomial(counts) if players == 2 else fractional(per_deal)
            rows.append(PairStats(first, second, wins + draws + losses, wins, draws, losses,
                                  summary))
    return rows


ELO_SHOWN = 3000.0
"""Elo differences beyond this come from scores of 0 or 1 and are shown as infinite."""
PSEUDO_COUNT = 1e-3
"""Fishtest's regularisation: every pair score counts as seen this often, so variance is never 0."""


def regularized(summary: MatchSummary) -> MatchSummary:
    """`summary` with a pseudo-count at each pair score 0, 1/4, ..., 1 (as fishtest regularises).

    ``advisor.arena.stats.sprt`` answers LLR 0 for a zero variance, so without this a clean sweep would
    never end the test; with real data the pseudo-counts change almost nothing.
    """
    if summary.units == 0:
        return summary
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    n, w = summary.units, PSEUDO_COUNT
    total = n + w * len(values)
    mean = (n * summary.score + w * sum(values)) / total
    variance = (n * (summary.variance + (summary.score - mean) ** 2)
                + w * sum((v - mean) ** 2 for v in values)) / total
    return MatchSummary(n, mean, variance)


def sprt_of(rows: Sequence[PairStats], bounds: tuple[float, float] | None) -> SprtResult | None:
    """The SPRT of the first agent against the second, if asked for."""
    if bounds is None:
        return None
    for row in rows:
        if (row.first, row.second) == (0, 1):
            return sprt(regularized(row.summary), *bounds)
    return sprt(MatchSummary(0, 0.5, 0.0), *bounds)


def _elo(value: float) -> str:
    if abs(value) >= ELO_SHOWN:  # a clean sweep: the score is 0 or 1
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}"  # + 0.0 turns -0.0 into 0.0


def format_table(names: Sequence[str], rows: Sequence[PairStats]) -> str:
    """The results table: one row per pair, from the first-named agent's side."""
    body = []
    for row in rows:
        s = row.summary
        low, high = s.elo_ci95
        body.append([f"{names[row.first]} vs {names[row.second]}", row.games,
                     f"{row.wins}-{row.draws}-{row.losses}", f"{s.score:.3f}",
                     _elo(s.elo) if s.units else "-",
                     f"[{_elo(low)}, {_elo(high)}]" if s.units else "-",
                     f"{100 * s.los:.1f}%" if s.units else "-", s.units])
    return tabulate(body, headers=["pair", "games", "W-D-L", "score", "Elo", "95% CI", "LOS", "deals"],
                    tablefmt="simple", disable_numparse=True)


def format_sprt(result: SprtResult) -> str:
    """One line: the test, its log-likelihood ratio, bounds and decision."""
    verdict = {"H1": "H1 accepted (stronger by elo1)", "H0": "H0 accepted (not stronger than elo0)",
               "continue": "continue"}[result.decision]
    return (f"SPRT elo0={result.elo0:g} elo1={result.elo1:g}: LLR {result.llr:.2f} "
            f"[{result.lower:.2f}, {result.upper:.2f}] {verdict}")


def summary_line(names: Sequence[str], rows: Sequence[PairStats], done: int, total: int,
                 sprt_result: SprtResult | None) -> str:
    """A one-line progress summary: games done and the first pair's score and Elo."""
    text = f"games {done}/{total}"
    if rows:
        row = rows[0]
        s = row.summary
        low, high = s.elo_ci95
        text += (f"  {names[row.first]} vs {names[row.second]}: score {s.score:.3f} "
                 f"Elo {_elo(s.elo)} [{_elo(low)}, {_elo(high)}] LOS {100 * s.los:.1f}%")
    if sprt_result is not None:
        text += f"  LLR {sprt_result.llr:.2f} [{sprt_result.lower:.2f}, {sprt_result.upper:.2f}]"
    return text


def fault_lines(names: Sequence[str], games: Iterable[Played]) -> list[str]:
    """One line per agent that lost games by faults, with the count of each kind."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    for game in games:
        if game.fault is not None:
            counts[game.fault[0]][game.fault[1]] += 1
    return [f"faults: {names[e]} lost {sum(c.values())} game(s) by "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(c.items())) for e, c in sorted(counts.items())]
