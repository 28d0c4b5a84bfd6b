"""`refuge arena`: the command; the matches themselves are :mod:`advisor.arena.match`."""

from __future__ import annotations

import math
import os

import click

from advisor.arena.executors import default_workers
from advisor.arena.match import (
    ArenaReports, ArenaSettings, make_tables, parse_named_agent, rotations, run_arena,
)
from advisor.arena.report import ELO_NOTE, fault_lines, format_table, sprt_lines
from advisor.arena.sprt import ELO_MODELS, SprtSettings
from advisor.cli.errors import fail_on_one_line as fail
from advisor.cli.progress import ArenaDisplay, arena_interrupts
from positions.errors import RefugeError


def parse_sprt(text: str) -> tuple[float, float]:
    """``ELO0,ELO1`` as two numbers with elo0 < elo1.

    Raises:
        ValueError: anything else.
    """
    parts = text.split(",")
    try:
        elo0, elo1 = (float(p) for p in parts)
    except ValueError:
        raise ValueError(f"expected ELO0,ELO1 (e.g. 0,10), got {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"expected finite ELO0 < ELO1, got {text!r}")
    return elo0, elo1


@click.command("arena")
@click.option("--agent", "agents", multiple=True, required=True, metavar="NAME=SPEC",
              help="an agent (twice or more): random, heuristic, greedy, ismcts:iterations=N, "
                   "omniscient:iterations=N (sees the deal's future: the skill ceiling), cmd:COMMAND, "
                   "rev:GITREF:SPEC")
@click.option("--games", type=click.IntRange(1), default=100, show_default=True,
              help="games per table (rounded up to whole deals: one game per seat rotation)")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--db", default="arena.sqlite", show_default=True, help="the SQLite store")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="local worker processes (default: every core)")
@click.option("--sprt", "sprt_text", metavar="ELO0,ELO1", default=None,
              help="stop when the first agent is shown stronger by ELO1 or not by ELO0 "
                   "(fishtest's pentanomial GSPRT, alpha = beta = 0.05)")
@click.option("--elo-model", type=click.Choice(ELO_MODELS), default="normalized", show_default=True,
              help="the Elo of --sprt's bounds: normalized (fishtest's SPRTs) or logistic")
@click.option("--executor", default="local", show_default=True, help="local or dask://HOST:PORT")
@click.option("--resume", is_flag=True, help="continue the stored run with these settings")
@click.option("--move-timeout", type=click.FloatRange(0, min_open=True), default=None,
              metavar="SECONDS", help="seconds per decision before an agent loses the game "
              "(default: 5x its own seconds + 5, or 60 for engines without one)")
@click.option("--worker-timeout", type=click.FloatRange(0, min_open=True), default=None,
              metavar="SECONDS", help="with Dask: stop once no worker has been connected for this "
              "long (default: wait, saying so every 30 s)")
@click.option("--records", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="also write each game as a refuge-game/1 record, DIR/game-00001.json, ... "
              "(by game index; a resumed run writes the stored games' missing records too)")
def arena_command(agents: tuple[str, ...], games: int, players: int, route: str, seed: int, db: str,
                  workers: int | None, sprt_text: str | None, elo_model: str, executor: str,
                  resume: bool, move_timeout: float | None, worker_timeout: float | None,
                  records: str | None) -> None:
    """Play agents against each other on paired deals and report Elo (optionally an SPRT).

    Example: refuge arena --agent new=ismcts:iterations=400 --agent old=rev:HEAD~1:ismcts:iterations=400
    --games 200 --seed 1 --sprt 0,10
    """
    try:
        sprt = None if sprt_text is None else SprtSettings(*parse_sprt(sprt_text), elo_model=elo_model)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--sprt'") from None
    if records is not None:
        try:
            os.makedirs(records, exist_ok=True)  # before any game is played
        except OSError as error:
            fail(RefugeError(f"--records {records}: cannot create the folder: {error.strerror or error}"))
    try:
        settings = ArenaSettings([parse_named_agent(a) for a in agents], games, players, route, seed,
                                 db, workers or default_workers(), sprt, executor, resume,
                                 move_timeout, worker_timeout, records)
        schedule_note(settings)
        display = ArenaDisplay()
        try:
            with arena_interrupts(db):
                progress = run_arena(settings, ArenaReports(display.line, display.played, display.waiting))
        finally:
            display.close()
    except (RefugeError, OSError) as error:
        fail(error)
        return
    rows = progress.rows()
    click.echo(format_table(progress.names, rows))
    click.echo(ELO_NOTE)
    for line in fault_lines(progress.names, progress.played):
        click.echo(line)
    click.echo(f"{len(progress.played)} of {progress.schedule.total} games in {db}")
    for line in sprt_lines(progress.sprt) if progress.sprt is not None else []:
        click.echo(line)  # the last line: the decision that stopped the run


def schedule_note(settings: ArenaSettings) -> None:
    """Say how --games was rounded up to whole deals (on stderr)."""
    tables = make_tables(len(settings.agents), settings.players)
    per_deal = len(rotations(tables[0]))
    if settings.games % per_deal:
        rounded = math.ceil(settings.games / per_deal) * per_deal
        click.echo(f"note: {settings.games} games per table rounded up to {rounded} "
                   f"(whole deals of {per_deal} seat rotations)", err=True)
