"""Value accuracy: the advisor's per-option win chances against exact values (issue 12, item 5).

Each case is a last-walk position the exact solver can finish (one player still walking). The
advisor's search (:func:`advisor.analysis.best_move.advise`) runs on it at a given budget and every
option it shows is compared with the exact value: is the recommendation exactly optimal, how far
is each option's win chance from the exact win share, and does the printed interval cover it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from advisor.analysis.best_move import advise
from positions import Position, RULES_VERSION, parse_action
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.saved import parse_position
from search.request import SearchRequest

TIE = 1e-9
"""Exact values closer than this are equal (float win shares of one exact value)."""
NEAR = 0.01
"""A recommendation within this much win probability of the best counts as 'near optimal'."""


class CaseFileError(ValueError):
    """A value-accuracy case file that cannot be read (message names the file and entry)."""


@dataclass(frozen=True)
class ExactOption:
    """One option's exact value for the deciding player."""

    action: int
    win: float
    score: float


@dataclass(frozen=True)
class Case:
    """A position with the exact value of each of its options."""

    name: str
    position: Position
    exact: tuple[ExactOption, ...]

    @property
    def kind(self) -> str:
        """The decision kind (``decide``, ``choose``, ``option``, ...)."""
        return phases.NAMES[self.position.phase]

    @property
    def players(self) -> int:
        """How many players the game has."""
        return self.position.players

    def is_optimal(self, action: int) -> bool:
        """Whether `action` is exactly optimal: the best win share, then the best expected score."""
        top = max(o.win for o in self.exact)
        best_score = max(o.score for o in self.exact if o.win >= top - TIE)
        value = next(o for o in self.exact if o.action == action)
        return value.win >= top - TIE and value.score >= best_score - 1e-6

    def win_loss(self, action: int) -> float:
        """Exact win share given up by playing `action` instead of the best option."""
        best = max(o.win for o in self.exact)
        return best - next(o.win for o in self.exact if o.action == action)


@dataclass(frozen=True)
class OptionResult:
    """One option as the advisor showed it, with its exact value."""

    action: int
    visits: int
    win: float
    ci_low: float
    ci_high: float
    exact_win: float

    @property
    def error(self) -> float:
        """|estimated win - exact win|."""
        return abs(self.win - self.exact_win)

    @property
    def covered(self) -> bool:
        """Whether the printed interval holds the exact value."""
        return self.ci_low - TIE <= self.exact_win <= self.ci_high + TIE


@dataclass(frozen=True)
class CaseResult:
    """The advisor's answer on one case."""

    case: Case
    recommended: int
    options: tuple[OptionResult, ...]

    @property
    def optimal(self) -> bool:
        """The recommendation is exactly optimal."""
        return self.case.is_optimal(self.recommended)

    @property
    def near_optimal(self) -> bool:
        """The recommendation gives up at most ``NEAR`` win probability."""
        return self.case.win_loss(self.recommended) <= NEAR + TIE


@dataclass(frozen=True)
class Summary:
    """Aggregate accuracy over a group of cases."""

    group: str
    positions: int
    optimal: float
    """Share of recommendations that are exactly optimal."""
    near_optimal: float
    options: int
    median_error: float
    p95_error: float
    max_error: float
    coverage: float
    """Share of options whose printed interval covers the exact value."""

    def to_data(self) -> dict[str, object]:
        """As JSON-ready data (rounded)."""
        return {"group": self.group, "positions": self.positions,
                "optimal": round(self.optimal, 4), "near_optimal": round(self.near_optimal, 4),
                "options": self.options, "median_error": round(self.median_error, 4),
                "p95_error": round(self.p95_error, 4), "max_error": round(self.max_error, 4),
                "coverage": round(self.coverage, 4)}


GOALS = {"optimal": 0.97, "median_error": 0.01, "p95_error": 0.03, "coverage": 0.90}
"""The issue's goals at the default budget."""


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`-quantile (0..1) of `values` by linear interpolation between order statistics."""
    if not values:
        return math.nan
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = math.floor(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


# --- reading cases -------------------------------------------------------------------------------------

def _entry_position(entry: dict[str, Any], where: str) -> Position:
    if "position" in entry:
        return parse_position(entry["position"], where).position
    if "actions" in entry:
        pos = Position.new_game(entry["players"], entry["route"])
        for text in entry["actions"]:
            pos.apply(parse_action(text))
        return pos
    raise CaseFileError(f"{where}: needs 'position' (a saved position) or 'players', 'route', 'actions'")


def _entry_exact(entry: dict[str, Any], pos: Position, where: str) -> tuple[ExactOption, ...]:
    stored = entry.get("exact") if "exact" in entry else entry.get("options")
    if not isinstance(stored, list):
        raise CaseFileError(f"{where}: needs 'exact' or 'options': the exact value of every option")
    options = []
    for i, item in enumerate(stored):
        try:
            win = item.get("win_exact", item.get("win", item.get("win_probability")))
            score = item.get("score_exact", item.get("score", item.get("expected_score")))
            options.append(ExactOption(int(parse_action(item["action"])), _number(win), _number(score)))
        except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError) as error:
            raise CaseFileError(f"{where}.exact[{i}]: {error}") from None
    if sorted(o.action for o in options) != sorted(pos.legal_actions()):
        raise CaseFileError(f"{where}: the exact options do not match the legal actions")
    return tuple(options)


def _number(value: object) -> float:
    """A float from a number or an exact fraction written as text ("13/72")."""
    if isinstance(value, str):
        return float(Fraction(value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise TypeError(f"expected a number or a fraction, got {value!r}")


def load_cases(path: str | Path) -> list[Case]:
    """Every case of a value-position file: each entry a position (``position``, a saved position,
    or ``players``/``route``/``actions``) and the exact value of each option (``exact`` or
    ``options``: ``action`` with ``win``/``win_exact``/``win_probability`` and
    ``score``/``score_exact``/``expected_score``; fractions may be text).

    Raises:
        CaseFileError: the file cannot be read, or an entry is not a usable case.
    """
    source = str(path)
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise CaseFileError(f"{source}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("positions"), list):
        raise CaseFileError(f"{source}: expected an object with a 'positions' list")
    if data.get("rules_version", RULES_VERSION) != RULES_VERSION:
        raise CaseFileError(f"{source}: rules_version {data.get('rules_version')!r}, "
                            f"the engine is {RULES_VERSION}: regenerate the file")
    cases = []
    for i, entry in enumerate(data["positions"]):
        where = f"{source}: positions[{i}]"
        try:
            pos = _entry_position(entry, where)
        except (KeyError, TypeError, ValueError) as error:
            raise CaseFileError(f"{where}: {error}") from None
        name = str(entry.get("id") or entry.get("name") or f"#{i}")
        cases.append(Case(name, pos, _entry_exact(entry, pos, where)))
    return cases


def reference_case(name: str, position: Position, request: SearchRequest) -> Case:
    """A case whose 'exact' values are those of a much longer search (for positions outside the
    solver's scope): the benchmark then measures agreement with that reference, not exactness."""
    result = advise(position.copy(), request, with_facts=False).result
    return Case(name, position, tuple(ExactOption(s.action, s.win, s.score) for s in result.actions))


# --- measuring -----------------------------------------------------------------------------------------

def measure_case(case: Case, request: SearchRequest) -> CaseResult:
    """Run the advisor on one case and compare each option with its exact value."""
    advice = advise(case.position.copy(), request, with_facts=False)
    exact = {o.action: o.win for o in case.exact}
    options = tuple(OptionResult(s.action, s.visits, s.win, s.ci_low, s.ci_high, exact[s.action])
                    for s in advice.result.actions)
    return CaseResult(case, advice.recommendation.action, options)  # what best-move recommends


def measure(cases: Sequence[Case], request: SearchRequest,
            progress: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Measure every case; case `i` is searched with seed ``request.seed + i``."""
    results = []
    for i, case in enumerate(cases):
        seeded = request.replace(seed=request.seed + i)
        result = measure_case(case, seeded)
        if progress is not None:
            progress(result)
        results.append(result)
    return results


def summarize(results: Sequence[CaseResult], group: str = "all") -> Summary:
    """The accuracy figures of `results`."""
    errors = [o.error for r in results for o in r.options]
    covered = [o.covered for r in results for o in r.options]
    n = len(results)
    return Summary(group, n,
                   sum(r.optimal for r in results) / n if n else math.nan,
                   sum(r.near_optimal for r in results) / n if n else math.nan,
                   len(errors), percentile(errors, 0.5), percentile(errors, 0.95),
                   max(errors) if errors else math.nan,
                   sum(covered) / len(covered) if covered else math.nan)


def summaries(results: Sequence[CaseResult]) -> list[Summary]:
    """All cases, then by decision kind (game order), then by player count."""
    rows = [summarize(results)]
    for kind in phases.NAMES:
        group = [r for r in results if r.case.kind == kind]
        if group:
            rows.append(summarize(group, kind))
    for players in sorted({r.case.players for r in results}):
        rows.append(summarize([r for r in results if r.case.players == players], f"{players} players"))
    return rows


def results_to_data(results: Sequence[CaseResult], request: SearchRequest,
                    source: str = "") -> dict[str, object]:
    """The harness's JSON report: settings, summary rows and every option of every case."""
    return {
        "format": "refuge-value-accuracy/1",
        "positions_file": source,
        "iterations": request.iterations,
        "seed": request.seed,
        "workers": request.workers,
        "rollout": repr(request.config.rollout),
        "goals": GOALS,
        "summary": [s.to_data() for s in summaries(results)],
        "cases": [{
            "name": r.case.name, "decision": r.case.kind, "players": r.case.players,
            "recommended": str(action_from_code(r.recommended)), "optimal": r.optimal,
            "options": [{"action": str(action_from_code(o.action)), "visits": o.visits,
                         "win": round(o.win, 4), "ci95": [round(o.ci_low, 4), round(o.ci_high, 4)],
                         "exact_win": round(o.exact_win, 6), "error": round(o.error, 4),
                         "covered": o.covered} for o in r.options],
        } for r in results],
    }


def summary_markdown(rows: Sequence[Summary]) -> str:
    """The summary rows as a markdown table."""
    lines = ["| group | positions | exactly optimal | within 0.01 | options | median \\|err\\| "
             "| p95 \\|err\\| | max \\|err\\| | interval coverage |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in rows:
        lines.append(f"| {s.group} | {s.positions} | {100 * s.optimal:.1f}% | {100 * s.near_optimal:.1f}% "
                     f"| {s.options} | {s.median_error:.3f} | {s.p95_error:.3f} | {s.max_error:.3f} "
                     f"| {100 * s.coverage:.1f}% |")
    return "\n".join(lines) + "\n"


def meets_goals(overall: Summary) -> dict[str, bool]:
    """Each goal of the issue: met or not."""
    return {"optimal": overall.optimal >= GOALS["optimal"],
            "median_error": overall.median_error <= GOALS["median_error"],
            "p95_error": overall.p95_error <= GOALS["p95_error"],
            "coverage": overall.coverage >= GOALS["coverage"]}
