"""`refuge spsa`: the command; the tuning is :mod:`advisor.arena.spsa`."""

from __future__ import annotations

import click

from advisor.arena.spsa import (
    GameMatch, SpsaSettings, TUNABLE, check_base, parse_parameter, run_spsa, tuned_spec,
)
from advisor.arena.executors import default_workers
from advisor.cli.errors import fail_on_one_line as fail
from positions.errors import RefugeError


def theta_text(theta: dict[str, float]) -> str:
    """``exploration=0.712 cutoff=8.31``."""
    return " ".join(f"{name}={value:.4g}" for name, value in theta.items())


@click.command("spsa")
@click.option("--agent", "base", default="ismcts:iterations=1000", show_default=True, metavar="SPEC",
              help="the ismcts agent whose options are tuned, with its budget")
@click.option("--param", "params", multiple=True, required=True,
              metavar="NAME=START,MIN,MAX,C_END[,R_END]",
              help=f"a tuned option ({', '.join(TUNABLE)}), fishtest's columns; R_END default 0.002")
@click.option("--iterations", type=click.IntRange(1), default=1000, show_default=True,
              help="SPSA iterations (a pair of games each)")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--log", "log", required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="the JSON-lines log, one line an iteration, written as it goes")
@click.option("--resume", is_flag=True, help="continue the run in --log")
@click.option("--batch", type=click.IntRange(1), default=1, show_default=True,
              help="iterations played together from one θ (1: classic SPSA; the trajectory depends "
                   "on it, not on --workers)")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="local worker processes (default: every core); a batch's games run in parallel")
@click.option("--executor", default="local", show_default=True, help="local or dask://HOST:PORT")
@click.option("--every", type=click.IntRange(1), default=10, show_default=True,
              help="print θ every this many iterations")
def spsa_command(base: str, params: tuple[str, ...], iterations: int, seed: int, route: str, log: str,
                 resume: bool, batch: int, workers: int | None, executor: str, every: int) -> None:
    """Tune an agent's search options at its budget by SPSA: θ+ against θ− on paired deals.

    Example: refuge spsa --agent ismcts:iterations=1000 --param exploration=0.7,0.1,2,0.1
    --param cutoff=8,2,32,2 --iterations 2000 --log spsa-1000.jsonl
    """
    try:
        settings = SpsaSettings([parse_parameter(p) for p in params], iterations, seed, batch)
        check_base(base, settings.parameters)
        theta = {p.name: p.start for p in settings.parameters}
        match = GameMatch(base, route, seed, workers or default_workers(), executor)
        try:
            for done in run_spsa(settings, match, log, f"{base} route={route}", resume):
                theta = done.theta
                if (done.k + 1) % every == 0 or done.k + 1 == iterations:
                    click.echo(f"iteration {done.k + 1}/{iterations}: result {done.result:+g}  "
                               f"θ {theta_text(theta)}")
        except KeyboardInterrupt:
            click.echo(f"interrupted: finished iterations are in {log}; rerun with --resume to go on",
                       err=True)
            raise click.exceptions.Exit(130)
        finally:
            match.close()
    except RefugeError as error:
        fail(error)
        return
    click.echo(f"θ after {iterations} iterations: {theta_text(theta)}")
    click.echo(f"spec: {tuned_spec(base, theta)}")
