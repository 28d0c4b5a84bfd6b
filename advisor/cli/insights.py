"""`refuge insights`: build a self-play corpus (`run`) and say what it shows (`report`)."""

from __future__ import annotations

import functools
import json
import sys
from typing import Any

import click

from advisor.arena.executors import Runner, default_workers, parse_executor, run_tasks
from advisor.cli.errors import reports_bad_input
from advisor.cli.progress import Heartbeat
from advisor.insights.corpus import DEFAULT_EXACT_NODES
from advisor.insights.run import CorpusProgress, run_corpus
from advisor.insights.store import CorpusKey
from positions.kernel.routes import ROUTES


@click.group("insights")
def insights_group() -> None:
    """What strong self-play says about playing Refuge: a corpus, then a report (docs/insights.md).

    Example: refuge insights run --games 200 --route forest --db corpus.sqlite && refuge insights report --db corpus.sqlite
    """


def _bar(total: int, initial: int) -> Any:
    """A tqdm bar on stderr when it is a terminal, else a line every 10 s (a logged run is never silent)."""
    if not sys.stderr.isatty():
        return Heartbeat(length=total - initial, label="insights run")
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", file=sys.stderr, leave=False)


@insights_group.command("run")
@click.option("--games", type=click.IntRange(min=1), required=True, help="Games the corpus should hold.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--route", default="meadows", show_default=True,
              help="meadows, forest, mountains, 8 comma-separated kinds, or all: the games shared out "
                   "over the three routes, played in turn.")
@click.option("--agent", default="ismcts", show_default=True,
              help="The agent spec every seat plays (an iterations budget keeps games reproducible).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds every game of the corpus.")
@click.option("--workers", type=click.IntRange(1), default=None, help="Local processes [all cores].")
@click.option("--executor", default="local", show_default=True, help="local or dask://HOST:PORT")
@click.option("--counterfactual-every", type=click.IntRange(min=0), default=4, show_default=True,
              help="Every Kth game also plays one buy and one return-or-draw decision both ways (0: none).")
@click.option("--exact-nodes", type=click.IntRange(min=0), default=DEFAULT_EXACT_NODES, show_default=True,
              help="Solver budget at last-walk return-or-draw decisions (0: no exact comparison).")
@click.option("--db", required=True, type=click.Path(dir_okay=False), help="The corpus file (SQLite).")
@reports_bad_input
def run_command(games: int, players: int, route: str, agent: str, seed: int, workers: int | None,
                executor: str, counterfactual_every: int, exact_nodes: int, db: str) -> None:
    """Play the corpus's games up to GAMES, each stored as it ends; run it again to continue.

    Example: refuge insights run --games 600 --players 2 --route all --agent ismcts --db corpus.sqlite
    """
    routes = tuple(ROUTES) if route.strip() == "all" else (route.strip(),)
    keys = [CorpusKey(agent.strip(), players, name, seed, counterfactual_every, exact_nodes) for name in routes]
    address = parse_executor(executor)
    runner = Runner(workers or (1 if address else default_workers()), address,
                    on_wait=lambda line: click.echo(line, err=True))
    bar: Any = None

    def shown(progress: CorpusProgress) -> None:
        nonlocal bar
        if bar is None:
            bar = _bar(progress.games, progress.already)
        bar.update(1)

    try:
        progress = run_corpus(db, keys, games, functools.partial(run_tasks, runner), shown)
    except KeyboardInterrupt:
        runner.abort()
        click.echo(f"stopped; the games finished so far are in {db} (run the command again to continue)",
                   err=True)
        raise SystemExit(130) from None
    finally:
        if hasattr(bar, "close"):
            bar.close()
    runner.shutdown()
    held = progress.already + progress.played
    rate = f", {progress.seconds / progress.played:.2f} CPU s a game" if progress.played else ""
    click.echo(f"{held} of {games} games in {db} ({progress.already} kept, {progress.played} played{rate})")


@insights_group.command("report")
@click.option("--db", type=click.Path(dir_okay=False), default=None, help="The corpus file (SQLite).")
@click.option("--summary", "summary", type=click.Path(dir_okay=False), default=None,
              help="A report saved by --json instead of a corpus.  [default: the summary shipped with refuge]")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--markdown", is_flag=True,
              help="Print the report as Markdown (GitHub tables): the tables of docs/insights.md.")
@click.option("--plot", "plot_dir", type=click.Path(file_okay=False), default=None,
              help="Also draw the charts (PNG) into this folder.")
@reports_bad_input
def report_command(db: str | None, summary: str | None, as_json: bool, markdown: bool,
                   plot_dir: str | None) -> None:
    """What the corpus says: buys, going home, seats, game length and scores, first-walk buys.

    Without --db or --summary, the report shipped with refuge (docs/insights.md says how it was made).

    Example: refuge insights report --db corpus.sqlite --plot charts
    """
    from advisor.insights.summary import published_summary, read_summary
    from advisor.insights.text import report_text

    if db is not None and summary is not None:
        raise click.UsageError("give --db or --summary, not both")
    if as_json and markdown:
        raise click.UsageError("give --json or --markdown, not both")
    if db is not None:
        from advisor.insights.report import build_report

        report = build_report(db)
    else:
        report = read_summary(summary) if summary is not None else published_summary()
    if plot_dir is not None:
        from advisor.insights.plots import draw_charts

        for path in draw_charts(report, plot_dir):
            click.echo(f"chart: {path}", err=True)
    if as_json:
        click.echo(json.dumps(report, indent=1))
    else:
        click.echo(report_text(report, markdown=markdown))
