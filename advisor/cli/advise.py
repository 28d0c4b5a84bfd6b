"""`refuge best-move` and `refuge solve`: advice at one decision of a saved position."""

from __future__ import annotations

import json
from typing import Sequence

import click
from tabulate import tabulate

from advisor.analysis.best_move import (
    ADVICE_HEADERS, DEFAULT_ITERATIONS, NOISE_NOTE, PLAYER_HEADERS, PLAYERS_TITLE, Advice, advice_rows, advice_to_data, advise,
    line_text, mix_note, mix_text, player_rows, recommendation_reason,
)
from advisor.analysis.exact import (
    OPTION_VALUE_MEANING, SOLVE_HEADERS, STEP_HEADERS, chances_line, seat_mix_text, solve_position, solve_rows, solve_to_data,
    step_rows, step_solve_to_data,
)
from advisor.players.presets import advisor_request
from advisor.cli.errors import fail, reports_bad_input
from advisor.cli.files import load_saved_arg
from advisor.cli.progress import Spinner
from positions import Position
from positions.kernel.actions import action_from_code
from positions.render import render
from search.request import SIMULTANEOUS_SELECTIONS, SearchRequest
from search.equilibrium import StepResult
from search.errors import SolverSizeError
from search.solver import DEFAULT_MAX_NODES


def _decision_or_fail(position: Position, source: str) -> None:
    if position.current_player() < 0:
        what = "the game is over" if position.is_terminal() else "the next event is chance"
        fail(f"{source}: no decision to advise on: {what}")


def search_request(iterations: int | None, seconds: float | None, seed: int, workers: int,
                   exploration: float) -> SearchRequest:
    """The request for the budget options (iterations by default)."""
    if iterations is not None and seconds is not None:
        raise click.UsageError("give --iterations or --seconds, not both")
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    return advisor_request(iterations=iterations, seconds=seconds, seed=seed, workers=workers,
                           exploration=exploration)


def budget_options(command):
    """The --iterations / --seconds / --seed / --workers / --exploration options."""
    command = click.option("--exploration", type=float, default=0.7, show_default=True,
                           help="UCT exploration constant.")(command)
    command = click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
                           help="Processes searching independent trees (root parallelisation).")(command)
    command = click.option("--seed", type=int, default=0, show_default=True,
                           help="Every random choice flows from it: same seed, same answer.")(command)
    command = click.option("--seconds", type=click.FloatRange(min=0.001), default=None,
                           help="Time budget (results then vary from run to run).")(command)
    command = click.option("--iterations", type=click.IntRange(min=1), default=None,
                           help=f"Iteration budget [default: {DEFAULT_ITERATIONS}].")(command)
    return command


@click.command("best-move")
@click.argument("position_file", metavar="POSITION")
@budget_options
@click.option("--json", "as_json", is_flag=True, help="Print the documented JSON document.")
@click.option("--tree", "tree_path", type=click.Path(dir_okay=False), default=None,
              help="Also write the search tree as GraphML (networkx) for inspection.")
@click.option("--simultaneous", type=click.Choice(SIMULTANEOUS_SELECTIONS), default="uct", show_default=True,
              help="Selection at simultaneous steps: rm (regret matching) or exp3 give the equilibrium "
                   "mix, shown when mixed.")
@reports_bad_input
def best_move(position_file: str, iterations: int | None, seconds: float | None, seed: int,
              workers: int, exploration: float, as_json: bool, tree_path: str | None,
              simultaneous: str) -> None:
    """Every option at the decision of POSITION with win %, noise interval, expected score and visits;
    every player's chances, the principal line and, at a return-or-draw decision, the Storm facts.

    POSITION is a saved-position file, a game record (its last position) or an example name.

    Example: refuge best-move storm-one-away --iterations 4000 --seed 1
    """
    saved = load_saved_arg(position_file)
    position = saved.position
    _decision_or_fail(position, position_file)
    request = search_request(iterations, seconds, seed, workers, exploration).replace(simultaneous=simultaneous)
    if tree_path:
        request = request.replace(keep_tree=True)
    budget = f"{request.iterations} iterations" if request.iterations else f"{request.seconds} s"
    with Spinner(f"searching ({budget}, {workers} worker(s))", request.seconds, enabled=None
                 if not as_json else False):
        advice = advise(position, request)
    if tree_path and advice.result.tree is not None:
        from advisor.analysis.tree_export import write_tree  # networkx, for --tree only

        root = (advice.result.player, position.information_set_key(advice.result.player))
        graph = write_tree(advice.result.tree, root, tree_path)
        if not as_json:
            click.echo(f"search tree: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} "
                       f"edges written to {tree_path}", err=True)
    if as_json:
        click.echo(json.dumps(advice_to_data(advice, position_file), indent=2))
        return
    click.echo(render(position, saved.names))
    click.echo()
    echo_advice(advice, seed, workers, saved.names)


def decider(player: int, names: Sequence[str] = (), start: bool = True) -> str:
    """``Ben (player 1)`` where the position names the seat, else ``Player 1`` (``player 1`` inside
    a sentence: `start` false)."""
    name = names[player] if player < len(names) else ""
    return f"{name} (player {player})" if name else f"{'P' if start else 'p'}layer {player}"


def echo_advice(advice: Advice, seed: int, workers: int, names: Sequence[str] = ()) -> None:
    """The advice table, the recommendation and the return-or-draw facts, as best-move prints them
    (players by name where the position names them)."""
    click.echo(f"{decider(advice.result.player, names)} decides. {advice.result.iterations} iterations in "
               f"{advice.result.seconds:.2f} s (seed {seed}, {workers} worker(s)):")
    click.echo(tabulate(advice_rows(advice), headers=ADVICE_HEADERS, tablefmt="simple"))
    click.echo(NOISE_NOTE)
    click.echo()
    click.echo(f"Recommendation: {advice.best} ({recommendation_reason(advice)})")
    if advice.mix:
        click.echo(f"Mix: {mix_text(advice)}")
        click.echo(mix_note(advice))
    click.echo(f"Line: {line_text(advice)}")
    click.echo()
    click.echo(PLAYERS_TITLE)
    click.echo(tabulate(player_rows(advice, names), headers=PLAYER_HEADERS, tablefmt="simple"))
    if advice.facts is not None:
        click.echo()
        for line in advice.facts.lines():
            click.echo(f"  {line}")


@click.command("solve")
@click.argument("position_file", metavar="POSITION")
@click.option("--max-nodes", type=click.IntRange(min=1), default=DEFAULT_MAX_NODES, show_default=True,
              help="Give up beyond this many distinct positions.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@reports_bad_input
def solve(position_file: str, max_nodes: int, as_json: bool) -> None:
    """Exact win probability and expected score of every option, where the position is small enough.

    The solver handles positions where one player makes every remaining decision, such as the last
    walk with a single player still walking, and small two-player last walks with both walking:
    there each simultaneous step (return or draw, tile choice, buy) is solved as a matrix game, and
    an option's value is its value against the other seat's equilibrium strategy.

    Example: refuge solve endgame-solo
    """
    saved = load_saved_arg(position_file)
    position, names = saved.position, saved.names
    _decision_or_fail(position, position_file)
    try:
        with Spinner("solving", enabled=None if not as_json else False):
            result = solve_position(position, max_nodes)
    except SolverSizeError as error:
        fail(f"{position_file}: {error}; --max-nodes N above {max_nodes} lets the solver go further "
             f"(slower, more memory), or `refuge best-move {position_file}` estimates it by search")
    if isinstance(result, StepResult):
        _echo_step(result, position.actor, position_file, as_json, names)
        return
    if as_json:
        click.echo(json.dumps(solve_to_data(result, position_file), indent=2))
        return
    click.echo(f"{decider(result.player, names)} decides; exact values over {result.nodes} positions:")
    click.echo(tabulate(solve_rows(result), headers=SOLVE_HEADERS, disable_numparse=True,
                        colalign=("left", "right", "right")))
    click.echo(f"Best: {action_from_code(result.best)}")
    click.echo(f"After it, every player: {chances_line(result.option(result.best).value, names)}")


def _echo_step(result: StepResult, player: int, source: str, as_json: bool,
               names: Sequence[str] = ()) -> None:
    """A simultaneous step's equilibrium, as `refuge solve` prints it for `player`."""
    if as_json:
        click.echo(json.dumps(step_solve_to_data(result, player, source), indent=2))
        return
    seat = result.seat(player)
    other = next(s for s in result.seats if s.player != player)
    them = decider(other.player, names, start=False)
    click.echo(f"{decider(player, names)} decides at a simultaneous step, unseen by {them}; "
               f"exact equilibrium over {result.nodes} positions.")
    click.echo(f"Equilibrium: {decider(seat.player, names, start=False)} {seat_mix_text(seat)}; "
               f"{them} {seat_mix_text(other)}")
    click.echo(f"Option values: {OPTION_VALUE_MEANING}:")
    click.echo(tabulate(step_rows(seat), headers=STEP_HEADERS, disable_numparse=True,
                        colalign=("left", "right", "right", "right")))
    click.echo(f"Best: {action_from_code(seat.best)}")
    click.echo(f"At the equilibrium, every player: {chances_line(result.value, names)}")


COMMANDS = (best_move, solve)
