"""`refuge annotate`: a finished game's decisions, losses, labels, accuracies and a win chart."""

from __future__ import annotations

import json
import os
from typing import Sequence

import click
from tabulate import tabulate

from advisor.analysis.annotate import DEFAULT_ITERATIONS, Annotation, annotate_game, decisions_to_annotate, summarise, win_curves
from advisor.cli.errors import reports_bad_input
from advisor.cli.progress import progress_bar
from positions.errors import RefugeError
from positions.record import GameRecord, load_record, replay
from positions.render import printable

JSON_FORMAT = "refuge-annotation/1"


def _players(text: str | None, count: int) -> list[int] | None:
    if not text:
        return None
    chosen = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) >= count:
            raise click.BadParameter(f"{part!r}: expected seat numbers 0-{count - 1}, comma-separated",
                                     param_hint="--players")
        chosen.append(int(part))
    return chosen


def _loss_text(a: Annotation) -> str:
    return f"{a.score_loss:.1f} VP" if a.measure == "score" else f"{100 * a.loss:.1f} pp"


def _measured_loss(a: Annotation) -> float:
    return a.score_loss if a.measure == "score" else a.loss


def _value(win: float | None, score: float | None, a: Annotation) -> str:
    """A move's win chance; where the loss is measured in VP (both chances saturated) its expected
    score too, the number "best" is judged by."""
    if win is None:
        return "-"
    mark = "*" if a.exact else ""
    if a.measure == "score" and score is not None:
        return f"{100 * win:.1f}%{mark} {score:.1f} VP"
    return f"{100 * win:.1f}%{mark}"


def _row(a: Annotation, names: Sequence[str]) -> list[object]:
    chances = " ".join(f"{100 * w:.0f}" for w in a.chances)
    return [a.event, f"{a.walk}.{a.turn}", _seat(a.player, names), a.decision, a.situation, a.played,
            _value(a.played_win, a.played_score, a), a.best, _value(a.best_win, a.best_score, a),
            _loss_text(a), a.label, chances]


def _seat(player: int, names: Sequence[str]) -> str:
    """A seat by name where the record names it (``1 Ben``), else its number."""
    name = names[player] if player < len(names) else ""
    return f"{player} {printable(name)}" if name else str(player)


def event_range(record: GameRecord, first: int, last: int | None) -> range:
    """The events `--from-event first --to-event last` select.

    Raises:
        RefugeError: the range starts past the record's end or ends before it starts.
    """
    count = len(record.events)
    if first >= count:
        raise RefugeError(f"--from-event {first}: the record has {count} events "
                          f"(indexes 0-{count - 1})")
    if last is not None and last < first:
        raise RefugeError(f"--to-event {last}: before --from-event {first}")
    return range(first, count if last is None else min(last, count - 1) + 1)


@click.command("annotate")
@click.argument("game_file", metavar="GAME")
@click.option("--players", default=None, help="Seats to annotate, e.g. 0 or 0,2 [default: all].")
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help=f"Iterations per decision [default: {DEFAULT_ITERATIONS}].")
@click.option("--seconds-per-decision", "seconds", type=click.FloatRange(min=0.001), default=None,
              help="Time per decision instead (results then vary from run to run).")
@click.option("--from-event", "first", type=click.IntRange(min=0), default=0,
              help="Annotate from this event index on.")
@click.option("--to-event", "last", type=click.IntRange(min=0), default=None,
              help="Annotate up to this event index (inclusive).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="all cores", help="Decisions searched in parallel.")
@click.option("--json", "as_json", is_flag=True, help="Print the documented JSON document.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
              help="Write a win-probability chart (.png or .svg; needs the [plot] extra).")
@reports_bad_input
def annotate(game_file: str, players: str | None, iterations: int | None, seconds: float | None,
             first: int, last: int | None, seed: int, workers: int, as_json: bool,
             plot_path: str | None) -> None:
    """Each decision's loss against the engine's best, labelled inaccuracy / mistake / blunder.

    Losses are in percentage points of win chance (5 / 10 / 15 pp, lichess's thresholds); where both win chances
    are below 3% or above 97%, in expected final score (3 / 6 / 10 VP). A loss within the Monte
    Carlo noise of the two estimates gets no label. Decisions with a single option are skipped.

    Example: refuge annotate mygame.json --players 0 --plot mygame.png
    """
    if iterations is not None and seconds is not None:
        raise click.UsageError("give --iterations or --seconds-per-decision, not both")
    if iterations is None and seconds is None:
        iterations = DEFAULT_ITERATIONS
    if plot_path:
        from advisor.cli.charts import check_chart_path

        check_chart_path(plot_path)  # before the analysis, not after it
    record = load_record(game_file)
    game = replay(record, game_file)
    seats = _players(players, record.players)
    events = event_range(record, first, last)
    total = len(decisions_to_annotate(game, seats, events))
    with progress_bar(length=total, label="annotating", show_pos=True) as bar:
        annotations = annotate_game(game, seats, iterations, seconds, seed, workers, events,
                                    on_done=lambda a: bar.update(1))
    summaries = summarise(annotations, record)
    if plot_path:
        from advisor.cli.charts import plot_win_curves

        plot_win_curves(win_curves(annotations), record.names, plot_path,
                        title=f"{os.path.basename(game_file)}: win probability")
    if as_json:
        click.echo(json.dumps({
            "format": JSON_FORMAT, "game": game_file, "seed": seed,
            "iterations_per_decision": iterations, "seconds_per_decision": seconds,
            "decisions": [a.__dict__ for a in annotations],
            "players": [s.__dict__ for s in summaries],
            "plot": plot_path,
        }, indent=2))
        return
    chance_columns = " ".join(printable(record.names[p]) if p < len(record.names) and record.names[p]
                              else f"P{p}" for p in range(record.players))
    click.echo(tabulate([_row(a, record.names) for a in annotations],
                        headers=["event", "walk.turn", "player", "decision", "hand and path",
                                 "played", "win", "best", "best win", "loss", "label",
                                 f"chances % ({chance_columns})"]))
    click.echo()
    click.echo(tabulate([[s.player, printable(s.name), s.decisions, f"{s.accuracy:.1f}", s.inaccuracies,
                          s.mistakes, s.blunders, f"{100 * s.mean_loss:.2f}",
                          f"{s.mean_score_loss:.2f}"] for s in summaries],
                        headers=["player", "name", "decisions", "accuracy", "inaccuracies",
                                 "mistakes", "blunders", "mean loss (pp)", "mean VP loss"]))
    click.echo("loss: percentage points (pp) of win chance (5 / 10 / 15 pp for inaccuracy / mistake / "
               "blunder); where both win chances are below 3% or above 97%, expected final score "
               "(VP: 3 / 6 / 10), shown beside the win chances. "
               "* exact (solved endgame).")
    costly = sorted((a for a in annotations if _measured_loss(a) > 0),
                    key=lambda a: (a.label == "", a.accuracy))[:5]
    if costly:
        click.echo()
        click.echo("Costliest decisions:")
        for a in costly:
            click.echo(f"  event {a.event} (walk {a.walk}, turn {a.turn}), player {_seat(a.player, record.names)}: "
                       f"{a.played} instead of {a.best}, -{_loss_text(a)}"
                       + (f" ({a.label})" if a.label else " (within noise)"
                          if _measured_loss(a) <= a.noise else ""))
    if plot_path:
        click.echo(f"chart written to {plot_path}")
