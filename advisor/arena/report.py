"""Arena statistics per pair of agents (pentanomial over paired deals for 2 players) and their table."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from tabulate import tabulate

from advisor.arena.sprt import SequentialTest, SprtResult, SprtSettings, format_counts
from advisor.arena.stats import MatchSummary, graded


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
    counts: tuple[int, ...]
    """Complete deals by first's score over the deal, on an even grid from 0 to 1 (the pentanomial,
    pair scores 0, ½, 1, 1½, 2 of 2, for 2 players)."""
    summary: MatchSummary
    """Score per deal, from `counts`."""


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


def deal_points(deal: Sequence[Played], first: int, second: int) -> tuple[int, int] | None:
    """First's half-points against second over one deal's games and how many times they met in it
    (``None`` if never)."""
    scores = [s for game in deal for s in _head_to_head(game, first, second)]
    return (round(2 * sum(scores)), len(scores)) if scores else None


def graded_counts(points: Counter[tuple[int, int]]) -> tuple[int, ...]:
    """Deals counted by score on the finest even grid that holds them all: with two meetings a
    deal (2 players) the pentanomial; also the pentanomial's 5 empty bins when there are none."""
    meetings = math.lcm(*(met for _, met in points)) if points else 2
    counts = [0] * (2 * meetings + 1)
    for (half_points, met), deals in points.items():
        counts[half_points * (meetings // met)] += deals
    return tuple(counts)


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
            points: Counter[tuple[int, int]] = Counter()
            for (table, _), played in sorted(deals.items()):
                scores = [s for game in played for s in _head_to_head(game, first, second)]
                if not scores:
                    continue
                wins += scores.count(1.0)
                draws += scores.count(0.5)
                losses += scores.count(0.0)
                if len(played) == rotations[table]:  # an unfinished deal's luck has not cancelled yet
                    points[(round(2 * sum(scores)), len(scores))] += 1
            if wins + draws + losses == 0:
                continue
            counts = graded_counts(points)
            rows.append(PairStats(first, second, wins + draws + losses, wins, draws, losses, counts,
                                  graded(counts)))
    return rows


class SprtWatch:
    """The arena's SPRT of the first agent against the second: updated as each deal of theirs
    completes (in the order they complete), it keeps the result that first reached a decision."""

    def __init__(self, settings: SprtSettings, rotations: Sequence[int]) -> None:
        """A test with no deals yet; `rotations[t]` games make a deal of table t."""
        self.settings = settings
        self.rotations = rotations
        self.test = SequentialTest(settings)
        self.stopped: SprtResult | None = None
        """The test's state when it first reached a decision."""
        self._open: dict[tuple[int, int], list[Played]] = defaultdict(list)
        self._points: Counter[tuple[int, int]] = Counter()

    def add(self, game: Played) -> None:
        """Count a finished game: a deal it completes updates the test."""
        key = (game.table, game.deal)
        deal = self._open[key]
        deal.append(game)
        if len(deal) < self.rotations[game.table]:
            return
        del self._open[key]
        points = deal_points(deal, 0, 1)
        if points is None:
            return
        self._points[points] += 1
        self.test.update([graded_counts(self._points)])
        if self.stopped is None and self.current.decision != "continue":
            self.stopped = self.current

    @property
    def current(self) -> SprtResult:
        """The test's state over every complete deal so far."""
        return self.test.result()

    @property
    def counts(self) -> tuple[int, ...]:
        """Every complete deal so far by the first agent's score (the pentanomial for 2 players)."""
        return graded_counts(self._points)


ELO_SHOWN = 3000.0
"""Elo differences beyond this come from scores of 0 or 1 and are shown as infinite."""


def format_elo(value: float) -> str:
    """An Elo difference with its sign and one decimal, ``+inf``/``-inf`` beyond ELO_SHOWN."""
    if abs(value) >= ELO_SHOWN:  # a clean sweep: the score is 0 or 1
        return "+inf" if value > 0 else "-inf"
    return f"{value + 0.0:+.1f}"  # + 0.0 turns -0.0 into 0.0


MIN_INTERVAL_UNITS = 5
"""Deals needed before an Elo interval and LOS are printed: their variance is estimated from the
deals' scores, which one deal cannot give (fishtest's padding of empty bins would invent one: after
one 1-1 deal, "Elo +0.0 [-34.1, +34.1]"), nor a handful."""
ELO_NOTE = ("Elo: logistic, from the mean score of complete deals; `refuge ladder` fits every game "
            "with a weak prior (one virtual draw for each agent), so its Elo of the same games lies a "
            "little nearer 0, with an interval over games rather than deals (docs/arena.md).")
"""Printed under the arena's table: why the ladder's Elo of the same games differs."""


def interval_text(summary: MatchSummary) -> str:
    """``[-20.1, +35.2]``, or why there is none yet (``too few deals (1 < 5)``)."""
    if summary.units < MIN_INTERVAL_UNITS:
        return f"too few deals ({summary.units} < {MIN_INTERVAL_UNITS})" if summary.units else "-"
    low, high = summary.elo_ci95
    return f"[{format_elo(low)}, {format_elo(high)}]"


def format_table(names: Sequence[str], rows: Sequence[PairStats]) -> str:
    """The results table: one row per pair, from the first-named agent's side."""
    body = []
    for row in rows:
        s = row.summary
        enough = s.units >= MIN_INTERVAL_UNITS
        body.append([f"{names[row.first]} vs {names[row.second]}", row.games,
                     f"{row.wins}-{row.draws}-{row.losses}", f"{s.score:.3f}",
                     format_elo(s.elo) if s.units else "-", interval_text(s),
                     f"{100 * s.los:.1f}%" if enough else "-", s.units])
    return tabulate(body, headers=["pair", "games", "W-D-L", "score", "Elo", "95% CI", "LOS", "deals"],
                    tablefmt="simple", disable_numparse=True)


VERDICTS = {"H1": "H1 accepted (stronger by elo1)", "H0": "H0 accepted (not stronger than elo0)",
            "continue": "continue"}


def sprt_heading(settings: SprtSettings) -> str:
    """What a test decides, e.g. ``SPRT elo0=0 elo1=10 (normalized Elo, alpha=0.05, beta=0.05)``."""
    return (f"SPRT elo0={settings.elo0:g} elo1={settings.elo1:g} ({settings.elo_model} Elo, "
            f"alpha={settings.alpha:g}, beta={settings.beta:g})")


def llr_text(result: SprtResult) -> str:
    """``LLR 1.23 [-2.94, 2.94]``, with as many decimals as it takes for an LLR short of a bound
    not to print as that bound (``LLR 2.943 [-2.944, 2.944]``, not ``2.94 [-2.94, 2.94] continue``)."""
    digits = 2
    while digits < 6 and any(result.llr != bound and f"{result.llr:.{digits}f}" == f"{bound:.{digits}f}"
                             for bound in (result.lower, result.upper)):
        digits += 1
    return (f"LLR {result.llr:.{digits}f} [{result.lower:.{digits}f}, {result.upper:.{digits}f}]")


def format_sprt(result: SprtResult, unit: str = "deal") -> str:
    """One line: the test, its log-likelihood ratio, bounds, decision and the units behind them."""
    return (f"{sprt_heading(result.settings)}: {llr_text(result)} {VERDICTS[result.decision]} "
            f"after {result.units} {unit}{'' if result.units == 1 else 's'}")


def counts_text(counts: Sequence[int]) -> str:
    """``ptnml 20,5,50,5,23``: deals by the first agent's score, as fishtest prints its pentanomial
    (``deals by score`` on the finer grid of 3 or 4 players)."""
    label = "ptnml" if len(counts) == 5 else "deals by score"
    return f"{label} {format_counts(counts)}"


def pentanomial_line(watch: SprtWatch) -> str:
    """The test's counts and how to go on from them: ``refuge sprt`` recomputes the test from the
    pentanomial, and a further run's pentanomial (another seed) adds to it bin by bin."""
    counts, settings = watch.counts, watch.settings
    if len(counts) != 5 or not sum(counts):
        return counts_text(counts)
    command = (f"refuge sprt --pentanomial {format_counts(counts)} --elo0 {settings.elo0:g} "
               f"--elo1 {settings.elo1:g} --elo-model {settings.elo_model}")
    return (f"{counts_text(counts)} (deals scoring 0, 1/2, 1, 3/2, 2 of 2 for the first agent; "
            f"`{command}` recomputes the test, and a run on another seed adds its counts bin by bin)")


def sprt_lines(watch: SprtWatch) -> list[str]:
    """The arena's closing SPRT lines: the counts behind the test, then the decision that stopped
    the run (with the LLR and bounds at that moment), or the test's state when the schedule ran out
    without one."""
    stopped, current = watch.stopped, watch.current
    lines = [pentanomial_line(watch)]
    if stopped is None:
        return [*lines, f"{format_sprt(current)}: no decision before the schedule ran out"]
    if current.units > stopped.units:
        lines.append(f"{current.units - stopped.units} more deal(s) were already being played when "
                     f"the test stopped (stored and counted above); with them LLR {current.llr:.2f}")
    return [*lines, f"stopped by the {format_sprt(stopped)}"]


def summary_line(names: Sequence[str], rows: Sequence[PairStats], done: int, total: int,
                 sprt_result: SprtResult | None) -> str:
    """A one-line progress summary: games done and the first pair's score and Elo."""
    text = f"games {done}/{total}"
    if rows:
        row = rows[0]
        s = row.summary
        text += (f"  {names[row.first]} vs {names[row.second]}: score {s.score:.3f} "
                 f"Elo {format_elo(s.elo)} {interval_text(s)}"
                 + (f" LOS {100 * s.los:.1f}%" if s.units >= MIN_INTERVAL_UNITS else "")
                 + (f"  {counts_text(row.counts)}" if s.units else ""))
    if sprt_result is not None:
        text += f"  {llr_text(sprt_result)}"
    return text


def fault_lines(names: Sequence[str], games: Iterable[Played]) -> list[str]:
    """One line per agent that lost games by faults, with the count of each kind."""
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    for game in games:
        if game.fault is not None:
            counts[game.fault[0]][game.fault[1]] += 1
    return [f"faults: {names[e]} lost {sum(c.values())} game(s) by "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(c.items())) for e, c in sorted(counts.items())]
