"""`refuge convergence`: the command; the probe is :mod:`advisor.arena.convergence`."""

from __future__ import annotations

import click
from tabulate import tabulate

from advisor.arena.convergence import (
    ConvergenceSettings, by_kind, family_agreement, joined, read_probe, run_probe, summarize,
)
from advisor.arena.executors import default_workers
from advisor.arena.match import parse_named_agent
from advisor.cli.errors import fail_on_one_line as fail
from advisor.cli.scaling import parse_budgets
from positions.errors import RefugeError


@click.command("convergence")
@click.option("--family", "families", multiple=True, metavar="NAME=SPEC",
              help="an agent to probe: an ismcts spec without a budget (repeatable; default: default=ismcts)")
@click.option("--budgets", default="250,1000,4000,16000", show_default=True,
              help="rising iterations per search; the last is the top budget")
@click.option("--repeats", type=click.IntRange(2), default=2, show_default=True,
              help="independent searches per decision, family and budget")
@click.option("--games", type=click.IntRange(1), default=20, show_default=True)
@click.option("--per-game", type=click.IntRange(1), default=4, show_default=True,
              help="decisions with a choice kept per game")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--play", default="ismcts:iterations=200", show_default=True,
              help="the agent in every seat of the games the decisions come from")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--out", default="convergence.jsonl", show_default=True,
              help="JSON lines, one per game, written as it finishes")
@click.option("--resume", is_flag=True, help="continue the probe in --out")
@click.option("--join", "join_path", default=None, metavar="FILE",
              help="another probe of the same decisions (other families): also print how often the "
                   "families of both agree")
@click.option("--workers", type=click.IntRange(1), default=None, help="local worker processes (default: every core)")
@click.option("--executor", default="local", show_default=True, help="local or dask://HOST:PORT")
def convergence_command(families: tuple[str, ...], budgets: str, repeats: int, games: int, per_game: int,
                        players: int, route: str, play: str, seed: int, out: str, resume: bool,
                        join_path: str | None, workers: int | None, executor: str) -> None:
    """Does more time change the search's mind? The same self-play decisions searched at rising
    budgets: per family and budget, how often two searches agree, how often one agrees with the top
    budget, and the win chance its choice gives up in an independent top-budget search's eyes.

    Example: refuge convergence --family default=ismcts --family rollout=ismcts:evaluator=rollout
    --budgets 250,1000,4000,16000 --games 25 --workers 2 --out convergence.jsonl
    """
    try:
        named = tuple(parse_named_agent(f) for f in families) or (("default", "ismcts"),)
        settings = ConvergenceSettings(seed, named, tuple(parse_budgets(budgets)), repeats, games,
                                       per_game, players, route, play)
        try:
            run_probe(out, settings, workers or default_workers(), executor, resume,
                      on_game=lambda game: click.echo(f"game {game + 1} of {games} searched", err=True))
        except KeyboardInterrupt:
            click.echo(f"interrupted: finished games are in {out}; rerun with --resume to go on", err=True)
            raise click.exceptions.Exit(130)
        _, rows = read_probe(out, settings)
        names = [name for name, _ in named]
        both, every = rows, list(names)
        if join_path is not None:
            other, other_rows = read_probe(join_path)
            both = joined(rows, other_rows)
            every += [name for name, _ in other["families"] if name not in names]
    except RefugeError as error:
        fail(error)
        return
    table = summarize(rows, names, settings.budgets)
    click.echo(tabulate([(r.family, r.budget, r.decisions, f"{r.self_agreement:.3f}", f"{r.top_agreement:.3f}",
                          f"{r.regret:.4f} ± {1.96 * r.regret_error:.4f}") for r in table],
                        headers=("family", "iterations", "decisions", "self-agreement",
                                 f"agrees with {settings.budgets[-1]}", "regret (95 %)")))
    click.echo("regret: the decider's win chance the choice gives up by the means of an independent "
               "top-budget search (never its own)")
    click.echo()
    click.echo(tabulate([(k.family, k.kind, k.decisions, k.unsettled, f"{k.median_gap:.3f}")
                         for k in by_kind(rows, names, settings.budgets)],
                        headers=("family", "decision", "decisions", "unsettled", "median gap")))
    click.echo(f"unsettled: the searches (every budget and repeat) did not all choose one action; gap: the "
               f"best minus the second-best mean of a {settings.budgets[-1]}-iteration search")
    pairs = [(a, b) for i, a in enumerate(every) for b in every[i + 1:]]
    if pairs:
        click.echo()
        click.echo(tabulate([(f"{a} / {b}", len([d for row in both for d in row["decisions"]]),
                              *(f"{family_agreement(both, a, b, budget):.3f}" for budget in settings.budgets))
                             for a, b in pairs],
                            headers=("families", "decisions", *map(str, settings.budgets))))
        click.echo("the share of (one family's search, the other's) pairs of a decision that choose the same action")
