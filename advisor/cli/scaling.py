"""`refuge scaling`: the command; the steps and the curve are :mod:`advisor.arena.scaling`."""

from __future__ import annotations

import click

from advisor.arena.executors import default_workers
from advisor.arena.match import ArenaReports, parse_named_agent
from advisor.arena.report import ELO_NOTE
from advisor.arena.scaling import (
    DEFAULT_BUDGETS, DEFAULT_FAMILIES, ScalingSettings, curves, format_steps, run_scaling,
)
from advisor.arena.scaling_against import against_curves, format_points, run_against
from advisor.cli.charts import check_chart_path, plot_scaling
from advisor.cli.errors import fail_on_one_line as fail
from advisor.cli.progress import ArenaDisplay, arena_interrupts
from positions.errors import RefugeError


def parse_budgets(text: str) -> list[int]:
    """``250,1000,4000`` as a list of ints.

    Raises:
        click.BadParameter: anything else.
    """
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise click.BadParameter(f"expected iterations like 250,1000,4000, got {text!r}",
                                 param_hint="'--budgets'") from None


@click.command("scaling")
@click.option("--family", "families", multiple=True, metavar="NAME=SPEC",
              help="a curve: an ismcts (or omniscient) spec without a budget (repeatable; default: "
                   + ", ".join(f"{n}={s}" for n, s in DEFAULT_FAMILIES) + ")")
@click.option("--budgets", default=",".join(map(str, DEFAULT_BUDGETS)), show_default=True,
              help="rising iterations per decision; each is played against the one before")
@click.option("--games", type=click.IntRange(1), default=200, show_default=True,
              help="games of each step (rounded up to whole deals)")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--db", default="scaling.sqlite", show_default=True,
              help="the arena's SQLite store (`refuge ladder --db` rates it too)")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="local worker processes (default: every core)")
@click.option("--executor", default="local", show_default=True, help="local or dask://HOST:PORT")
@click.option("--resume", is_flag=True, help="continue the stored steps, start the others")
@click.option("--report-only", is_flag=True,
              help="play nothing: the table and curve of what --db holds now (safe while another "
                   "`refuge scaling` plays it)")
@click.option("--against", "opponent", default=None, metavar="NAME=SPEC",
              help="play every budget against this fixed opponent on the same deals (e.g. "
                   "greedy=greedy) instead of against the budget before it")
@click.option("--plot", "plot_path", default=None, metavar="FILE",
              help="also draw the curves (PNG, SVG, PDF)")
def scaling_command(families: tuple[str, ...], budgets: str, games: int, players: int, route: str,
                    seed: int, db: str, workers: int | None, executor: str, resume: bool,
                    report_only: bool, opponent: str | None, plot_path: str | None) -> None:
    """The scaling curve: each family at rising budgets, every budget against the one before it on
    paired deals (or, with --against, every budget against one opponent on the same deals), each
    an arena run stored in --db; then the table and the curve.

    Example: refuge scaling --budgets 250,1000,4000,16000 --games 200 --workers 2 --plot scaling.png
    """
    try:
        if plot_path is not None:
            check_chart_path(plot_path)  # before the games, not after them
        settings = ScalingSettings(
            [parse_named_agent(f) for f in families] or DEFAULT_FAMILIES, parse_budgets(budgets),
            games, players, route, seed, db, workers or default_workers(), executor, resume,
            play=not report_only)
        displays: list[ArenaDisplay] = []

        def reports(label: str) -> ArenaReports:
            if report_only:
                return ArenaReports()
            for display in displays:
                display.close()
            click.echo(label)
            display = ArenaDisplay()
            displays.append(display)
            return ArenaReports(display.line, display.played, display.waiting)

        against = None if opponent is None else parse_named_agent(opponent)
        try:
            with arena_interrupts(db):
                if against is None:
                    steps = run_scaling(settings, reports)
                else:
                    points = run_against(settings, against, reports)
        finally:
            for display in displays:
                display.close()
    except RefugeError as error:
        fail(error)
        return
    if against is None:
        click.echo(format_steps(steps))
        click.echo(ELO_NOTE)
        click.echo("Elo over the first budget: the steps' Elo added up; its interval adds the steps' "
                   "variances (independent matches)")
        found, measured = curves(steps), "Elo over the smallest budget"
    else:
        click.echo(format_points(points))
        click.echo(ELO_NOTE)
        click.echo(f"score over the budget before: the mean difference of the two budgets' scores "
                   f"against {against[0]} on the deals both completed (the same deals: the run's seed "
                   "fixes them); with several families, the same over the first family at each budget")
        click.echo("ptnml: complete deals by the family's score over the deal's two games (0, ½, 1, 1½, 2), "
                   "as fishtest counts them: the middle bin is mostly split deals, won from one seat and lost "
                   "from the other")
        found, measured = against_curves(points), f"Elo against {against[0]}"
    if plot_path is not None:
        try:
            plot_scaling(found, plot_path, measured)
        except RefugeError as error:
            fail(error)
        click.echo(f"plot: {plot_path}")
