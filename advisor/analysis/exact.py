"""Exact values for people and files: the solver's fractions as percentages, decimals and text."""

from __future__ import annotations

from fractions import Fraction

from positions.actions import action_from_code
from search.solver import ExactValue, SolvedOption, SolverResult

JSON_FORMAT = "refuge-solve/1"
SOLVE_HEADERS = ["action", "win", "exp. score"]


def percent(share: Fraction) -> str:
    """A win share as a percentage with 2 decimals that never rounds to a certainty it is not:
    ``100.00%`` only for exactly 1, ``0.00%`` only for exactly 0 (``>99.99%``, ``<0.01%``)."""
    text = f"{100 * float(share):.2f}%"
    if share != 1 and text == "100.00%":
        return ">99.99%"
    if share != 0 and text == "0.00%":
        return "<0.01%"
    return text


def players_to_data(value: ExactValue) -> list[dict[str, object]]:
    """Every player's win share and expected score, as floats and exact fractions ("a/b")."""
    return [{"player": p, "win_probability": float(win), "expected_score": float(score),
             "win_exact": str(win), "score_exact": str(score)}
            for p, (win, score) in enumerate(zip(value.wins, value.scores))]


def option_to_data(option: SolvedOption) -> dict[str, object]:
    """One option's exact value for the decider (floats and fractions) and every player's."""
    return {"action": str(action_from_code(option.action)),
            "win_probability": float(option.win), "expected_score": float(option.score),
            "win_exact": str(option.win), "score_exact": str(option.score),
            "players": players_to_data(option.value)}


def solve_to_data(result: SolverResult, source: str = "") -> dict[str, object]:
    """The ``refuge-solve/1`` document: the options best first, the best one, the work done."""
    return {"format": JSON_FORMAT, "position": source, "player": result.player,
            "options": [option_to_data(o) for o in result.ranked()],
            "best": str(action_from_code(result.best)), "nodes": result.nodes}


def solve_rows(result: SolverResult) -> list[list[str]]:
    """Table rows, best first: action, win share, expected score to 2 decimals."""
    return [[str(action_from_code(o.action)), percent(o.win), f"{float(o.score):.2f}"]
            for o in result.ranked()]


def chances_line(value: ExactValue) -> str:
    """Every player's win chance and expected score: ``P0 0.00% (8.00), P1 100.00% (19.10)``."""
    return ", ".join(f"P{p} {percent(win)} ({float(score):.2f})"
                     for p, (win, score) in enumerate(zip(value.wins, value.scores)))
