"""`refuge sprt`: fishtest's SPRT calculator on a pentanomial; the maths is :mod:`advisor.arena.sprt`."""

from __future__ import annotations

import json

import click

from advisor.arena.report import format_elo as _elo, format_sprt
from advisor.arena.sprt import ELO_MODELS, SprtSettings, calculate, format_counts, games_per_unit, parse_counts

RATE = click.FloatRange(0, 1, min_open=True, max_open=True)


@click.command("sprt")
@click.option("--pentanomial", "pentanomial_text", required=True, metavar="N0,N1,N2,N3,N4",
              help="game pairs that scored 0, 1/2, 1, 3/2 and 2 (of 2) for the first engine")
@click.option("--elo0", type=float, required=True, help="H0: the first engine is this much stronger")
@click.option("--elo1", type=float, required=True, help="H1: the first engine is this much stronger")
@click.option("--elo-model", type=click.Choice(ELO_MODELS), default="normalized", show_default=True,
              help="the Elo of elo0 and elo1: normalized (fishtest's SPRTs) or logistic")
@click.option("--alpha", type=RATE, default=0.05, show_default=True, help="false positive rate")
@click.option("--beta", type=RATE, default=0.05, show_default=True, help="false negative rate")
@click.option("--json", "as_json", is_flag=True, help="print the result as one JSON object")
def sprt_command(pentanomial_text: str, elo0: float, elo1: float, elo_model: str, alpha: float,
                 beta: float, as_json: bool) -> None:
    """Elo with its 95% interval, LOS, and fishtest's SPRT (LLR, bounds, decision) of a pentanomial.

    Example: refuge sprt --pentanomial 0,30,200,60,10 --elo0 0 --elo1 10 --elo-model logistic
    """
    try:
        counts = parse_counts(pentanomial_text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--pentanomial'") from None
    try:
        settings = SprtSettings(elo0, elo1, alpha, beta, elo_model)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    calculation = calculate(counts, settings)
    if as_json:
        click.echo(json.dumps(calculation.to_dict()))
        return
    summary = calculation.summary
    low, high = summary.elo_ci95
    nelo, nlow, nhigh = calculation.normalized
    pairs = f"{summary.units} pair{'' if summary.units == 1 else 's'}"
    click.echo(f"pentanomial {format_counts(counts)}: {pairs} "
               f"({summary.units * games_per_unit(len(counts))} games), score {summary.score:.4f}")
    click.echo(f"Elo  {_elo(summary.elo)} [{_elo(low)}, {_elo(high)}] (logistic)   "
               f"nElo {_elo(nelo)} [{_elo(nlow)}, {_elo(nhigh)}] (normalized)   "
               f"LOS {100 * summary.los:.1f}%")
    click.echo(format_sprt(calculation.result, "pair"))
