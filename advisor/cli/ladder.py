"""`refuge ladder`: the command; the ratings are :mod:`advisor.arena.ladder`."""

from __future__ import annotations

import os

import click

from advisor.arena.ladder import LadderError, format_ladder, ladder
from advisor.arena.store import ArenaStore
from advisor.cli.charts import check_chart_path, plot_ladder
from advisor.cli.errors import fail_on_one_line as fail
from positions.errors import RefugeError


@click.command("ladder")
@click.option("--db", default="arena.sqlite", show_default=True, help="the arena's SQLite store")
@click.option("--anchor", default=None, metavar="NAME", help="the agent rated 0 (NAME or NAME@VERSION; "
              "default: the most played)")
@click.option("--plot", "plot_path", default=None, metavar="FILE", help="also draw the ratings (PNG, SVG, PDF)")
def ladder_command(db: str, anchor: str | None, plot_path: str | None) -> None:
    """Rate every agent and version from all games stored by `refuge arena`.

    Example: refuge ladder --db arena.sqlite --anchor heuristic --plot ladder.png
    """
    try:
        if plot_path is not None:
            check_chart_path(plot_path)  # before the work, not after it
        if not os.path.exists(db):
            raise LadderError(f"{db}: no such arena database")
        store = ArenaStore(db)
        try:
            games = list(store.games())
        finally:
            store.close()
        rated = ladder(games, anchor)
        click.echo(format_ladder(rated))
        click.echo("group: agents linked by games played; Elo compares agents of one group only, "
                   "against its anchor (rated 0)")
        click.echo("Elo: a Bradley-Terry fit of every game with a weak prior (one virtual draw for "
                   "each agent), so it lies a little nearer 0 than `refuge arena`'s Elo of the mean "
                   "score of the same games; its interval counts games, the arena's deals")
        groups = {entry.group for entry in rated}
        if len(groups) > 1:
            click.echo(f"note: {len(groups)} groups never played each other; each is rated against "
                       "its own anchor")
        if plot_path is not None:
            order = list(dict.fromkeys(revision for game in games for _, _, revision in game.seats))
            plot_ladder(rated, plot_path, order)
            click.echo(f"plot: {plot_path}")
    except RefugeError as error:
        fail(error)
