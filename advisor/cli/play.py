"""`refuge play`: a whole game in the terminal against the bots, with hints, undo and a live record."""

from __future__ import annotations

import random
from typing import Sequence

import click
from tabulate import tabulate

from advisor.analysis.best_move import ADVICE_HEADERS, advice_rows, advise
from advisor.cli.errors import reports_bad_input
from advisor.players.agents import Agent, agent_kinds, make_agent, unknown_agent
from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.players.games import GameLoop, derive_seed, split_agent_list
from advisor.players.narration import WALK_HEADERS, Narrator, narrator_for, walk_rows
from advisor.players.specs import parse_agent_spec
from positions.kernel import phases
from positions.kernel.actions import BUY_BASE, DISCARD_PATH_BASE, Action
from positions.errors import IllegalActionError, InvalidActionError
from positions.events import read_event
from positions.kernel.position import Position
from positions.render import effect_text, render, tile_list
from positions.kernel.routes import parse_route
from positions.kernel.tiles import TILES
from search.request import SearchRequest

HINT_ITERATIONS = 1000
HELP = """\
  a number       the option of that number
  notation       the option in words: draw, play compass, buy bear, option steps, pass ...
                 (short forms where one option fits: compass, bear, steps, none)
  hint           the advisor's best move for you, with win chances
  show           the board again
  undo           take back your last decision (the bots' moves after it too)
  help, ?        this list
  quit           stop (the game so far is kept in the --record file, if one was given)"""


class TakeBack(Exception):
    """The person asked to take back their last decision."""


class QuitGame(Exception):
    """The person asked to stop."""


class HumanAgent:
    """A person at the terminal, asked by the game loop like any agent: sees their seat's view of
    the position, picks an option by number or in words (or a command: hint, undo, quit)."""

    def __init__(self, seat: int, label: str, hint_seed: int, labels: Sequence[str] = ()) -> None:
        self.name = label
        self.seat = seat
        self.hint_seed = hint_seed
        self.labels = tuple(labels)
        """Every seat's label, for the board (``P1 ismcts: ...``)."""

    def choose(self, position: Position, rng: random.Random) -> Action:
        """Ask until the answer is a legal option (or a command that leaves the turn)."""
        legal = list(position.legal_actions())
        click.echo()
        click.echo(render(position, self.labels))
        click.echo(f"{self.name}, your move ({phases.NAMES[position.phase]}):")
        for line in option_lines(position, legal):
            click.echo(line)
        while True:
            answer = click.prompt("number, words, hint, undo, help or quit", default="",
                                  show_default=False).strip()
            command = answer.lower()
            if not command:
                continue
            if command in ("quit", "q", "exit"):
                raise QuitGame()
            if command == "undo":
                raise TakeBack()
            if command in ("help", "?", "h"):
                click.echo(HELP)
            elif command == "hint":
                self._hint(position)
            elif command in ("show", "board"):
                click.echo(render(position, self.labels))
                for line in option_lines(position, legal):
                    click.echo(line)
            else:
                chosen = self._read(answer, position, legal)
                if chosen is not None:
                    return chosen

    @staticmethod
    def _read(answer: str, position: Position, legal: list[Action]) -> Action | None:
        if answer.isdigit():
            if 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            click.echo(f"  no option {answer}: choose 1 to {len(legal)}")
            return None
        try:
            return read_event(answer, position)
        except (InvalidActionError, IllegalActionError) as error:
            click.echo(f"  {error}")
            return None

    def _hint(self, position: Position) -> None:
        request = SearchRequest(iterations=HINT_ITERATIONS, seed=self.hint_seed, rollout=DEFAULT_ROLLOUT)
        advice = advise(position, request)
        click.echo(tabulate(advice_rows(advice), headers=ADVICE_HEADERS))
        click.echo(f"  hint: {advice.best}")
        for line in advice.facts.lines() if advice.facts else []:
            click.echo(f"  {line}")


def option_lines(position: Position, legal: Sequence[Action]) -> list[str]:
    """The numbered options; a buy also shows cost, tiles left and the tile's effect."""
    lines = []
    for number, action in enumerate(legal, 1):
        text = f"  {number}. {action}"
        if BUY_BASE <= action < DISCARD_PATH_BASE:
            kind = action - BUY_BASE
            text = (f"{text:<28} {TILES[kind].cost:>2} Steps, {position.market[kind]} left: "
                    f"{effect_text(kind)}")
        lines.append(text)
    return lines


def seat_labels(specs: Sequence[str], names: Sequence[str]) -> list[str]:
    """Each seat's label: a given name, else ``you`` for a person and the agent spec for a bot;
    repeated labels get their seat number."""
    humans = sum(spec == "human" for spec in specs)
    labels = []
    for seat, spec in enumerate(specs):
        if seat < len(names) and names[seat]:
            labels.append(names[seat])
        elif spec == "human":
            labels.append("you" if humans == 1 else f"you (seat {seat})")
        else:
            labels.append(spec)
    return [f"{label} #{seat}" if labels.count(label) > 1 else label
            for seat, label in enumerate(labels)]


def _bot(text: str) -> Agent:
    """The agent a seat's spec names; an unknown kind gets a "did you mean" that knows ``human``."""
    spec = parse_agent_spec(text)
    if spec.kind not in agent_kinds() and spec.kind not in ("cmd", "rev"):
        raise unknown_agent(spec.kind, also=("human",))
    return make_agent(spec)


def _game_over(last: Position, final: Position, labels: Sequence[str]) -> None:
    click.echo()
    click.echo(f"Game over after {final.ruleset.walks} walks. The paths as the last walk ended, "
               "VP and Steps after its Storm penalty:")
    click.echo(tabulate([[labels[p], tile_list(last.paths[p]), final.vp[p], final.steps[p]]
                         for p in range(last.players)], headers=["player", "path", "VP", "Steps"]))
    click.echo()
    scores = final.scores()
    shares = final.returns()
    order = sorted(range(final.players), key=lambda p: (-scores[p], -final.steps[p], p))
    rows = []
    for rank, p in enumerate(order, 1):
        result = "wins" if shares[p] == 1.0 else "shares the win" if shares[p] > 0 else ""
        rows.append([rank, labels[p], scores[p], final.steps[p], result])
    click.echo("Final scores:")
    click.echo(tabulate(rows, headers=["#", "player", "VP", "Steps", ""]))


@click.command("play")
@click.option("--seats", default="human,ismcts,heuristic", show_default=True,
              help="One per seat, comma-separated: human or an agent spec.")
@click.option("--names", default="", help="Seat names, comma-separated (default: you / the spec).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--record", "record_path", type=click.Path(dir_okay=False), default=None,
              help="Write the game record here after every event (without it nothing is written).")
@reports_bad_input
def play(seats: str, names: str, seed: int, route: str, record_path: str | None) -> None:
    """Play a game in the terminal against the bots; type 'help' at a decision for the commands.

    Example: refuge play --seats human,ismcts:iterations=1000 --names Ann --seed 3 --record mygame.json
    """
    specs = split_agent_list(seats)
    if not 2 <= len(specs) <= 4:
        raise click.UsageError(f"--seats: need 2 to 4 seats, got {len(specs)}")
    chosen_route = parse_route(route)  # every option checked before "Seats:" is printed
    labels = seat_labels(specs, [n.strip() for n in names.split(",")] if names else [])
    agents: list[Agent] = [HumanAgent(seat, labels[seat], derive_seed(seed, "hint", seat), labels)
                           if spec == "human" else _bot(spec) for seat, spec in enumerate(specs)]
    humans = [seat for seat, spec in enumerate(specs) if spec == "human"]
    click.echo("Seats: " + " · ".join(f"{seat} {label}" for seat, label in enumerate(labels)))
    game = GameLoop(agents, chosen_route, seed, labels)
    narrator = Narrator(labels, game.position)
    last = game.position
    while not game.position.is_terminal():
        before = game.position.copy()
        try:
            event = game.step()
        except TakeBack:
            index = game.last_decision_of(humans)
            if index is None:
                click.echo("  nothing to take back yet")
                continue
            game.take_back(index)
            narrator = narrator_for(labels, game.recorder.record())
            click.echo(f"  taken back to before your decision (event {index})")
            continue
        except (QuitGame, click.exceptions.Abort):
            events = len(game.recorder.events)
            if record_path:
                game.recorder.write(record_path)
                click.echo(f"\nstopped; the game so far ({events} events) is in {record_path}")
            else:
                click.echo(f"\nstopped after {events} events; nothing written (give --record FILE to "
                           "keep a game)")
            return
        walks = len(narrator.walks)
        for line in narrator.event(before, event.actor, event.action, game.position, event.hidden):
            click.echo(f"  {line}")
        if len(narrator.walks) > walks:
            click.echo(f"\nEnd of walk {walks + 1}:")
            click.echo(tabulate(walk_rows(narrator.walks[-1]), headers=WALK_HEADERS))
        last = before
        if record_path:
            game.recorder.write(record_path)
    _game_over(last, game.position, labels)
    if record_path:
        click.echo(f"record written to {record_path}")
