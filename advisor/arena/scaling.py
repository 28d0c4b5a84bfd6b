"""The scaling curve (issue 27): each family of agents at rising budgets, every budget against the
previous one, played as arena runs (paired deals, seeded, stored as they finish, resumable).

A step is one `refuge arena` run of ``FAMILY-BUDGET`` against ``FAMILY-PREVIOUS`` in the same
database, so `refuge ladder` rates the stored steps too (the same name and spec at two steps is one
agent). The curve adds up the steps' Elo differences from the smallest budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from tabulate import tabulate

from advisor.arena.match import NAME, ArenaReports, ArenaSettings, ArenaTally, run_arena, stored_tally
from advisor.arena.report import (
    ELO_SHOWN, MIN_INTERVAL_UNITS, PairStats, format_elo, interval_text,
)
from advisor.arena.store import ArenaStore
from advisor.players.specs import parse_agent_spec
from positions.errors import RefugeError

SEARCHING_KINDS = ("ismcts", "omniscient")
"""The agents whose iterations a curve varies (``omniscient`` takes ``ismcts``'s options)."""
DEFAULT_FAMILIES = (("default", "ismcts"), ("rollout", "ismcts:evaluator=rollout"))
"""Today's default agent and full rollouts (no cut-off)."""
DEFAULT_BUDGETS = (250, 1_000, 4_000, 16_000)
"""Iterations per decision at each point of the curve."""


class ScalingError(RefugeError):
    """Scaling-curve settings that cannot be used."""


@dataclass(frozen=True)
class ScalingSettings:
    """What `refuge scaling` was asked to do; each step is an arena run with these settings."""

    families: Sequence[tuple[str, str]] = DEFAULT_FAMILIES
    """(name, ``ismcts`` or ``omniscient`` spec without a budget) of each curve."""
    budgets: Sequence[int] = DEFAULT_BUDGETS
    games: int = 200
    """Games of each step (rounded up to whole deals, as the arena does)."""
    players: int = 2
    route: str = "meadows"
    seed: int = 0
    db: str = "scaling.sqlite"
    workers: int = 1
    executor: str = "local"
    resume: bool = False
    """Continue the steps already stored (and start the others)."""
    play: bool = True
    """Play the missing games; ``False``: only report what the database holds (``--report-only``)."""


def budget_spec(spec: str, budget: int) -> str:
    """`spec` searching `budget` iterations a decision.

    Raises:
        ScalingError: not a searching agent's spec (``ismcts``, ``omniscient``), or one with a budget
            of its own.
    """
    parsed = parse_agent_spec(spec)
    if parsed.kind not in SEARCHING_KINDS:
        raise ScalingError(f"family spec {spec!r}: the curve varies an ismcts or omniscient agent's "
                           "iterations")
    budget_options = sorted({"iterations", "seconds"} & set(parsed.params))
    if budget_options:
        raise ScalingError(f"family spec {spec!r}: leave out {budget_options[0]}= (the curve sets "
                           "the iterations)")
    text = parsed.text.rstrip(":,")
    return f"{text}{',' if ':' in text else ':'}iterations={budget}"


def agent_name(family: str, budget: int) -> str:
    """The arena name of a family at one budget, ``default-1000``."""
    return f"{family}-{budget}"


def check_settings(settings: ScalingSettings) -> None:
    """Refuse settings no curve can come from (before any game is played).

    Raises:
        ScalingError: fewer than two budgets, budgets not rising, a bad family name or spec.
    """
    budgets = list(settings.budgets)
    if len(budgets) < 2:
        raise ScalingError(f"--budgets: a curve needs two budgets or more, got {budgets}")
    if any(b < 1 for b in budgets) or any(b >= c for b, c in zip(budgets, budgets[1:])):
        raise ScalingError(f"--budgets must rise and be >= 1, got {','.join(map(str, budgets))}")
    if not settings.families:
        raise ScalingError("no family of agents to measure")
    names = [name for name, _ in settings.families]
    for name, spec in settings.families:
        if name == spec:
            raise ScalingError(f"--family {spec}: expected NAME=SPEC")
        if not NAME.fullmatch(name):
            raise ScalingError(f"--family {name}={spec}: names use letters, digits and _.@+- only")
        if names.count(name) > 1:
            raise ScalingError(f"two families are named {name!r}")
        budget_spec(spec, budgets[0])


def step_settings(settings: ScalingSettings, family: tuple[str, str], budget: int,
                  previous: int) -> ArenaSettings:
    """The arena run of one step: `family` at `budget` (first) against it at `previous`."""
    name, spec = family
    agents = [(agent_name(name, budget), budget_spec(spec, budget)),
              (agent_name(name, previous), budget_spec(spec, previous))]
    return ArenaSettings(agents, settings.games, settings.players, settings.route, settings.seed,
                         settings.db, settings.workers, executor=settings.executor,
                         resume=settings.resume)


def _stored(arena: ArenaSettings) -> bool:
    """Whether the database already holds games of this run."""
    store = ArenaStore(arena.db)
    try:
        run = store.find_run(arena.identity())
        return run is not None and store.count(run) > 0
    finally:
        store.close()


def play_run(arena: ArenaSettings, reports: ArenaReports) -> ArenaTally:
    """Play (the rest of) one run of a curve; with ``resume``, a run not started yet starts now."""
    if arena.resume and not _stored(arena):
        arena = replace(arena, resume=False)
    return run_arena(arena, reports)


def run_tally(settings: ScalingSettings, arena: ArenaSettings, reports: ArenaReports) -> ArenaTally:
    """One run of a curve: played (the rest of it), or without ``settings.play`` only what the
    database holds of it, claiming nothing (so a curve being played can be read)."""
    return play_run(arena, reports) if settings.play else stored_tally(arena)


@dataclass(frozen=True)
class Step:
    """One point of a curve: the family at `budget` against itself at `previous`."""

    family: str
    budget: int
    previous: int
    row: PairStats | None
    """The larger budget's side (``None`` before any game)."""
    stored: int
    """Games of the step in the database."""
    total: int


def run_scaling(settings: ScalingSettings,
                reports: Callable[[str], ArenaReports] = lambda _: ArenaReports()) -> list[Step]:
    """Play (the rest of) every step, budget by budget, each for every family; each step's statistics,
    family by family.
    `reports(label)` gives the arena reports of the step it names.

    Raises:
        RefugeError: bad settings, or an arena run that cannot be played (a stored step without
            ``resume``, a busy or unusable database, a bad executor).
    """
    check_settings(settings)
    steps = []
    # budget by budget across the families: a run stopped early has every curve's cheap steps
    for previous, budget in zip(settings.budgets, settings.budgets[1:]):
        for family in settings.families:
            tally = run_tally(settings, step_settings(settings, family, budget, previous),
                              reports(f"{family[0]}: {budget} vs {previous} iterations"))
            rows = tally.rows()
            steps.append(Step(family[0], budget, previous, rows[0] if rows else None,
                              len(tally.played), tally.schedule.total))
    order = [name for name, _ in settings.families]
    return sorted(steps, key=lambda step: order.index(step.family))  # stable: budgets stay in order


@dataclass(frozen=True)
class CurvePoint:
    """A family's Elo at one budget above its smallest (0 there), with a 95% interval when every step
    below has enough deals for one (the steps' half-widths below and above added in quadrature: the
    steps are independent matches, so the variances of their Elo add)."""

    budget: int
    elo: float
    low: float | None
    high: float | None


def curves(steps: Sequence[Step]) -> dict[str, list[CurvePoint]]:
    """Each family's cumulative Elo over its budgets; a curve stops before a step whose Elo is not
    finite (a clean sweep) or that has no games yet."""
    found: dict[str, list[CurvePoint]] = {}
    squares: dict[str, tuple[float, float]] = {}  # summed squared half-widths below and above
    ended: set[str] = set()
    for step in steps:
        points = found.setdefault(step.family, [CurvePoint(step.previous, 0.0, 0.0, 0.0)])
        summary = None if step.row is None else step.row.summary
        if (step.family in ended or points[-1].budget != step.previous or summary is None
                or not summary.units or abs(summary.elo) >= ELO_SHOWN):
            ended.add(step.family)
            continue
        low, high = summary.elo_ci95
        enough = summary.units >= MIN_INTERVAL_UNITS and max(abs(low), abs(high)) < ELO_SHOWN
        below, above = squares.get(step.family, (0.0, 0.0))
        squares[step.family] = ((below + (summary.elo - low) ** 2, above + (high - summary.elo) ** 2)
                                if enough else (math.nan, math.nan))  # nan: unknown from here on
        elo = points[-1].elo + summary.elo
        below, above = squares[step.family]
        known = not math.isnan(below)
        points.append(CurvePoint(step.budget, elo, elo - math.sqrt(below) if known else None,
                                 elo + math.sqrt(above) if known else None))
    return found


def format_steps(steps: Sequence[Step]) -> str:
    """The table: one row per step, from the larger budget's side, with the curve's running sum."""
    running = {(family, p.budget): p for family, points in curves(steps).items() for p in points}
    body = []
    for step in steps:
        s = None if step.row is None else step.row.summary
        point = running.get((step.family, step.budget))
        cumulative = "-" if point is None else format_elo(point.elo) + (
            "" if point.low is None or point.high is None
            else f" [{format_elo(point.low)}, {format_elo(point.high)}]")
        body.append([step.family, f"{step.budget} vs {step.previous}",
                     f"{step.stored}/{step.total}",
                     "-" if step.row is None else f"{step.row.wins}-{step.row.draws}-{step.row.losses}",
                     "-" if s is None or not s.units else format_elo(s.elo),
                     "-" if s is None else interval_text(s), 0 if s is None else s.units, cumulative])
    return tabulate(body, headers=["family", "iterations", "games", "W-D-L", "Elo", "95% CI", "deals",
                                   "Elo over the first budget"],
                    tablefmt="simple", disable_numparse=True)
