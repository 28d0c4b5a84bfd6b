"""Best move: every option at a decision with its win probability, interval, score and visits."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.analysis.facts import ReturnFacts, return_facts
from positions import Position
from positions import phases
from positions.actions import action_from_code
from search.ismcts import search
from search.request import ActionStats, SearchRequest, SearchResult

JSON_FORMAT = "refuge-best-move/1"
DEFAULT_ITERATIONS = 2000
"""The default budget: answers in a few seconds on one core (see docs/performance.md)."""


@dataclass(frozen=True)
class Advice:
    """A search's answer at one decision, with the return-or-draw facts when they apply."""

    position: Position
    result: SearchResult
    request: SearchRequest
    facts: ReturnFacts | None

    @property
    def ranked(self) -> list[ActionStats]:
        """Options best first: most visits, then higher win probability (the search's own choice)."""
        return sorted(self.result.actions, key=lambda s: (-s.visits, -s.win))

    @property
    def best(self) -> str:
        """The recommended action in notation."""
        return str(action_from_code(self.result.chosen))


def advise(position: Position, request: SearchRequest, with_facts: bool = True) -> Advice:
    """Search the decision at `position` and gather the facts behind a return-or-draw choice."""
    result = search(position, request)
    facts = return_facts(position, seed=request.seed) if with_facts else None
    return Advice(position, result, request, facts)


def option_to_data(stats: ActionStats) -> dict[str, object]:
    """One option in the documented JSON shape."""
    return {
        "action": str(action_from_code(stats.action)),
        "win_probability": round(stats.win, 6),
        "ci95": [round(stats.ci_low, 6), round(stats.ci_high, 6)],
        "expected_score": round(stats.score, 4),
        "visits": stats.visits,
    }


def advice_to_data(advice: Advice, source: str = "") -> dict[str, object]:
    """The ``refuge best-move --json`` document (docs/advisor.md)."""
    pos = advice.position
    facts = advice.facts
    return {
        "format": JSON_FORMAT,
        "position": source,
        "player": advice.result.player,
        "decision": phases.NAMES[pos.phase],
        "walk": pos.walk + 1,
        "turn": pos.turn + 1,
        "options": [option_to_data(s) for s in advice.ranked],
        "best": advice.best,
        "iterations": advice.result.iterations,
        "seconds": round(advice.result.seconds, 4),
        "seed": advice.request.seed,
        "workers": advice.request.workers,
        "facts": None if facts is None else {
            "storms_on_track": facts.storms_on_track,
            "threshold": facts.threshold,
            "storm_hit_chance_this_turn": round(facts.hit_chance_this_turn, 6),
            "storm_hit_chance_weather_tile": round(facts.hit_chance_weather_only, 6),
            "animal_points_at_stake": facts.animal_points,
            "steps_at_risk": facts.steps_at_risk,
            "vp_at_risk": facts.vp_at_risk,
        },
    }


def advice_rows(advice: Advice) -> list[list[object]]:
    """Table rows: rank, action, win %, 95% interval, expected score, visits."""
    rows: list[list[object]] = []
    for rank, stats in enumerate(advice.ranked, 1):
        rows.append([rank, str(action_from_code(stats.action)), f"{100 * stats.win:.1f}%",
                     f"{100 * stats.ci_low:.1f}–{100 * stats.ci_high:.1f}%",
                     f"{stats.score:.1f}", stats.visits])
    return rows


ADVICE_HEADERS = ["#", "action", "win", "95% CI", "exp. score", "visits"]
