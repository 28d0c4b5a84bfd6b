"""The scaling curve against a fixed opponent (issue 27): every budget of a family plays the same
opponent on the same deals, so each point is an Elo against one yardstick and two budgets compare
deal by deal (the luck of a deal cancels in their difference).

A point is one `refuge arena` run of ``FAMILY-BUDGET`` against the opponent in the database of the
curve (the run's seed fixes the deals, whoever plays them), so it resumes and `refuge ladder` rates
it like any other run.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from tabulate import tabulate

from advisor.arena.match import NAME, ArenaReports, ArenaSettings, ArenaTally
from advisor.arena.report import (
    ELO_SHOWN, MIN_INTERVAL_UNITS, PairStats, Played, deal_points, format_elo, interval_text,
)
from advisor.arena.scaling import (
    CurvePoint, ScalingError, ScalingSettings, agent_name, budget_spec, check_settings, run_tally,
)
from advisor.arena.sprt import format_counts
from advisor.arena.stats import Z95
from advisor.players.specs import AgentSpecError, parse_agent_spec

DealKey = tuple[int, int]
"""(table, deal) of an arena schedule."""


@dataclass(frozen=True)
class Point:
    """A family at one budget against the opponent."""

    family: str
    budget: int
    row: PairStats | None
    """The family's side (``None`` before any game)."""
    stored: int
    """Games of the point in the database."""
    total: int
    deal_scores: Mapping[DealKey, float]
    """The family's score over each complete deal, from 0 to 1."""


@dataclass(frozen=True)
class Gain:
    """A budget's score over the budget before it on the deals both completed, with its 95%
    interval (``None`` below MIN_INTERVAL_UNITS deals): each deal's score difference is one
    independent unit."""

    deals: int
    mean: float
    half_width: float | None


def check_opponent(settings: ScalingSettings, opponent: tuple[str, str]) -> None:
    """Refuse settings or an opponent no point can be played against (before any game is played); a
    bare spec such as ``greedy`` is named by itself.

    Raises:
        ScalingError: bad settings, a bad name or spec, or a name the family agents use.
    """
    check_settings(settings)
    name, spec = opponent
    if not NAME.fullmatch(name):
        raise ScalingError(f"--against {spec if name == spec else f'{name}={spec}'}: expected NAME=SPEC, "
                           "the name in letters, digits and _.@+- only")
    taken = {agent_name(family, budget) for family, _ in settings.families for budget in settings.budgets}
    if name in taken:
        raise ScalingError(f"--against {name}={spec}: {name!r} is the name of a family's agent")
    try:
        parse_agent_spec(spec)
    except AgentSpecError as error:
        raise ScalingError(f"--against {name}={spec}: {error}") from None


def point_settings(settings: ScalingSettings, family: tuple[str, str], budget: int,
                   opponent: tuple[str, str]) -> ArenaSettings:
    """The arena run of one point: `family` at `budget` (first) against `opponent`."""
    name, spec = family
    return ArenaSettings([(agent_name(name, budget), budget_spec(spec, budget)), opponent],
                         settings.games, settings.players, settings.route, settings.seed, settings.db,
                         settings.workers, executor=settings.executor, resume=settings.resume)


def deal_scores(played: Sequence[Played], rotations: Sequence[int]) -> dict[DealKey, float]:
    """Agent 0's score against agent 1 over each complete deal (0 to 1)."""
    deals: dict[DealKey, list[Played]] = defaultdict(list)
    for game in played:
        deals[(game.table, game.deal)].append(game)
    found = {}
    for key, games in deals.items():
        points = deal_points(games, 0, 1)
        if len(games) == rotations[key[0]] and points is not None:
            half_points, met = points
            found[key] = half_points / (2 * met)
    return found


def _point(family: str, budget: int, tally: ArenaTally) -> Point:
    rows = tally.rows()
    return Point(family, budget, rows[0] if rows else None, len(tally.played), tally.schedule.total,
                 deal_scores(tally.played, tally.schedule.rotations_per_table()))


def run_against(settings: ScalingSettings, opponent: tuple[str, str],
                reports: Callable[[str], ArenaReports] = lambda _: ArenaReports()) -> list[Point]:
    """Play (the rest of) every point, budget by budget, each for every family; the points, family
    by family. `reports(label)` gives the arena reports of the point it names.

    Raises:
        RefugeError: bad settings or opponent, or an arena run that cannot be played.
    """
    check_opponent(settings, opponent)
    points = []
    for budget in settings.budgets:  # budget by budget: a run stopped early has every curve's cheap points
        for family in settings.families:
            tally = run_tally(settings, point_settings(settings, family, budget, opponent),
                              reports(f"{family[0]}: {budget} iterations vs {opponent[0]}"))
            points.append(_point(family[0], budget, tally))
    order = [name for name, _ in settings.families]
    return sorted(points, key=lambda point: order.index(point.family))


def paired_gain(before: Point, after: Point) -> Gain | None:
    """`after`'s score minus `before`'s on the deals both completed (``None``: no such deal)."""
    common = sorted(set(before.deal_scores) & set(after.deal_scores))
    if not common:
        return None
    differences = [after.deal_scores[key] - before.deal_scores[key] for key in common]
    mean = statistics.fmean(differences)
    if len(differences) < MIN_INTERVAL_UNITS:
        return Gain(len(differences), mean, None)
    return Gain(len(differences), mean, Z95 * statistics.stdev(differences) / math.sqrt(len(differences)))


def gains(points: Sequence[Point]) -> dict[tuple[str, int], Gain | None]:
    """Each point's paired gain over the family's budget before it, by (family, budget)."""
    found: dict[tuple[str, int], Gain | None] = {}
    previous: dict[str, Point] = {}
    for point in sorted(points, key=lambda p: p.budget):
        before = previous.get(point.family)
        if before is not None:
            found[(point.family, point.budget)] = paired_gain(before, point)
        previous[point.family] = point
    return found


def family_gains(points: Sequence[Point]) -> dict[tuple[str, int], Gain | None]:
    """Each point's paired gain over the first family's point at the same budget, by (family,
    budget), for every family after the first (`points` in family order, as :func:`run_against`
    returns them)."""
    if not points:
        return {}
    first = points[0].family
    base = {point.budget: point for point in points if point.family == first}
    return {(point.family, point.budget): paired_gain(base[point.budget], point)
            for point in points if point.family != first and point.budget in base}


def against_curves(points: Sequence[Point]) -> dict[str, list[CurvePoint]]:
    """Each family's Elo against the opponent at every budget with a finite Elo (a clean sweep has
    none), with its 95% interval where the deals suffice for one."""
    found: dict[str, list[CurvePoint]] = {}
    for point in sorted(points, key=lambda p: p.budget):
        summary = None if point.row is None else point.row.summary
        if summary is None or not summary.units or abs(summary.elo) >= ELO_SHOWN:
            continue
        low, high = summary.elo_ci95
        known = summary.units >= MIN_INTERVAL_UNITS and max(abs(low), abs(high)) < ELO_SHOWN
        found.setdefault(point.family, []).append(
            CurvePoint(point.budget, summary.elo, low if known else None, high if known else None))
    return found


def gain_text(gain: Gain | None) -> str:
    """``+0.033 ± 0.055 (100 deals)``, or ``-`` before the family's second budget."""
    if gain is None:
        return "-"
    width = "" if gain.half_width is None else f" ± {gain.half_width:.3f}"
    return f"{gain.mean:+.3f}{width} ({gain.deals} deals)"


def format_points(points: Sequence[Point]) -> str:
    """The table: one row per point, from the family's side: its complete deals by its score over
    the deal (``ptnml``, fishtest's pentanomial for 2 players: lost from both seats, …, won from
    both), its paired gain over the budget before it (and, with several families, over the first
    family at the same budget)."""
    paired, across = gains(points), family_gains(points)
    families = list(dict.fromkeys(point.family for point in points))
    body = []
    for point in points:
        s = None if point.row is None else point.row.summary
        body.append([point.family, f"{point.budget}", f"{point.stored}/{point.total}",
                     "-" if point.row is None else f"{point.row.wins}-{point.row.draws}-{point.row.losses}",
                     "-" if s is None or not s.units else f"{s.score:.3f}",
                     "-" if s is None or not s.units else format_elo(s.elo),
                     "-" if s is None else interval_text(s), 0 if s is None else s.units,
                     "-" if point.row is None else format_counts(point.row.counts),
                     gain_text(paired.get((point.family, point.budget)))]
                    + ([gain_text(across.get((point.family, point.budget)))] if len(families) > 1 else []))
    headers = ["family", "iterations", "games", "W-D-L", "score", "Elo", "95% CI", "deals", "ptnml",
               "score over the budget before (paired, 95%)"]
    if len(families) > 1:
        headers.append(f"score over {families[0]} (paired, 95%)")
    return tabulate(body, headers=headers, tablefmt="simple", disable_numparse=True)
