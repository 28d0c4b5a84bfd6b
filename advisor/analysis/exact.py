"""Exact values for people and files: the solver's fractions as percentages, decimals and text."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from advisor.analysis.seats import seat_label
from advisor.players.native_solver import one_walker_solver, two_walker_solver
from advisor.players.tablebase import step_start, two_walkers
from positions import Position
from positions.kernel.actions import action_from_code
from search.equilibrium import SeatStrategy, StepResult
from search.errors import SolverLimitError
from search.solver import ExactValue, SolvedOption, SolverResult

JSON_FORMAT = "refuge-solve/1"
SOLVE_HEADERS = ["action", "win", "exp. score"]
STEP_HEADERS = ["action", "win", "exp. score", "equilibrium"]
OPTION_VALUE_MEANING = ("each option's value against the other seat's equilibrium strategy; the "
                        "options a seat mixes all have the step's value")


def solve_position(position: Position, max_nodes: int) -> SolverResult | StepResult:
    """The exact answer at `position`'s decision: the equilibrium of a simultaneous step two
    walkers decide (the step's start is solved: a later seat cannot see the earlier's choice),
    else every option's value under best play (one walker, or two at a step only one decides).

    Raises:
        SolverLimitError: out of the solvers' scope (said before any search where the position
            shows it: a walk before the last), or more than `max_nodes` new positions
            (``SolverSizeError``).
    """
    last = position.ruleset.walks - 1
    if position.walk < last:
        raise SolverLimitError(
            f"solver: walk {position.walk + 1} of {last + 1} is not the last walk: every player decides "
            f"again in the walks after it, and the solver handles the last walk only (one player "
            f"still walking, or two players both walking)")
    if two_walkers(position):
        start = step_start(position)
        pair = two_walker_solver(max_nodes)
        return pair.solve(position) if start is None else pair.solve_step(start)
    try:
        return one_walker_solver(max_nodes).solve(position)
    except SolverLimitError as error:
        if "also decides" not in str(error):
            raise
        raise SolverLimitError(f"{error}, or a two-player last walk with both walking") from None


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


def chances_line(value: ExactValue, names: Sequence[str] = ()) -> str:
    """Every player's win chance and expected score: ``P0 0.00% (8.00), P1 100.00% (19.10)``, by
    name where the position names the seats (``Ann (P0) 0.00% (8.00), ...``)."""
    return ", ".join(f"{seat_label(p, names)} {percent(win)} ({float(score):.2f})"
                     for p, (win, score) in enumerate(zip(value.wins, value.scores)))



def seat_mix_text(seat: SeatStrategy) -> str:
    """A seat's equilibrium strategy, its options played: ``return 70.00% / draw 30.00%``."""
    return " / ".join(f"{action_from_code(o.action)} {percent(p)}"
                      for o, p in zip(seat.options, seat.mix) if p)


def seat_to_data(seat: SeatStrategy) -> dict[str, object]:
    """One seat at a simultaneous step: its mix and each option's value, best first."""
    return {"player": seat.player, "mix": seat_mix_text(seat), "best": str(action_from_code(seat.best)),
            "options": [option_to_data(o) | {"probability": float(seat.probability(o.action)),
                                             "probability_exact": str(seat.probability(o.action))}
                        for o in seat.ranked()]}


def step_to_data(result: StepResult) -> dict[str, object]:
    """A simultaneous step's equilibrium: every player's value under it, each seat's strategy."""
    return {"value": players_to_data(result.value), "option_values": OPTION_VALUE_MEANING,
            "seats": [seat_to_data(seat) for seat in result.seats], "nodes": result.nodes}


def step_solve_to_data(result: StepResult, player: int, source: str = "") -> dict[str, object]:
    """The ``refuge-solve/1`` document at a simultaneous step: `player`'s options (valued against
    the other seat's equilibrium strategy) and best, plus the whole ``equilibrium``."""
    seat = result.seat(player)
    return {"format": JSON_FORMAT, "position": source, "player": player,
            "options": [option_to_data(o) for o in seat.ranked()],
            "best": str(action_from_code(seat.best)), "nodes": result.nodes,
            "equilibrium": step_to_data(result)}


def step_rows(seat: SeatStrategy) -> list[list[str]]:
    """Table rows, best first: action, win share and expected score against the other seat's
    equilibrium strategy, and the option's equilibrium probability."""
    return [[str(action_from_code(o.action)), percent(o.win), f"{float(o.score):.2f}",
             percent(seat.probability(o.action))] for o in seat.ranked()]
