"""`refuge play`: a whole game in the terminal against the bots, with hints and a live record."""

from __future__ import annotations

import random

import click
from tabulate import tabulate

from advisor.players.specs import parse_agent_spec
from advisor.players.agents import Agent, make_agent
from advisor.analysis.best_move import ADVICE_HEADERS, advice_rows, advise
from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.cli.errors import reports_bad_input
from advisor.players.games import derive_seed, play_game, split_agent_list
from positions import phases
from positions.actions import Action, parse_action
from positions.errors import InvalidActionError
from positions.position import Position
from positions.record import GameRecorder
from positions.render import render
from positions.routes import parse_route
from search.request import SearchRequest

HINT_ITERATIONS = 1000


class HumanAgent:
    """A person at the terminal: sees the position, picks a numbered option, may ask for a hint."""

    def __init__(self, seat: int, hint_seed: int) -> None:
        self.name = f"human{seat}"
        self.hint_seed = hint_seed

    def choose(self, position: Position, rng: random.Random) -> Action:
        """Ask until the answer is a legal option."""
        legal = list(position.legal_actions())
        click.echo()
        click.echo(render(position))
        for number, action in enumerate(legal, 1):
            click.echo(f"  {number}. {action}")
        while True:
            answer = click.prompt(f"Player {position.current_player()}: number, notation, "
                                  "'hint' or 'quit'", default="", show_default=False).strip()
            if answer == "quit":
                raise click.Abort()
            if answer == "hint":
                self._hint(position)
                continue
            chosen = self._read(answer, legal)
            if chosen is not None:
                return chosen
            click.echo(f"  not an option here: {answer!r}")

    @staticmethod
    def _read(answer: str, legal: list[Action]) -> Action | None:
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        try:
            action = parse_action(answer)
        except InvalidActionError:
            return None
        return action if action in legal else None

    def _hint(self, position: Position) -> None:
        request = SearchRequest(iterations=HINT_ITERATIONS, seed=self.hint_seed, rollout=DEFAULT_ROLLOUT)
        advice = advise(position, request)
        click.echo(tabulate(advice_rows(advice), headers=ADVICE_HEADERS))
        click.echo(f"  hint: {advice.best}")
        for line in advice.facts.lines() if advice.facts else []:
            click.echo(f"  {line}")


class Announcer:
    """Prints each event, holding back a simultaneous choice until its step is complete."""

    def __init__(self) -> None:
        self.held: list[str] = []

    def __call__(self, actor: int, action: Action, hidden: bool) -> None:
        who = "chance" if actor == phases.CHANCE_PLAYER else f"player {actor}"
        self.held.append(f"  {who}: {action}")
        if not hidden:
            for line in self.held:
                click.echo(line)
            self.held.clear()


@click.command("play")
@click.option("--seats", default="human,ismcts,heuristic", show_default=True,
              help="One per seat, comma-separated: human or an agent spec.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--route", default="meadows", show_default=True)
@click.option("--record", "record_path", type=click.Path(dir_okay=False), default=None,
              help="Write the game record here after every event.")
@reports_bad_input
def play(seats: str, seed: int, route: str, record_path: str | None) -> None:
    """Play a game in the terminal against the bots; type 'hint' at a decision for advice.

    Example: refuge play --seats human,ismcts:iterations=1000 --seed 3 --record mygame.json
    """
    specs = split_agent_list(seats)
    if not 2 <= len(specs) <= 4:
        raise click.UsageError(f"--seats: need 2 to 4 seats, got {len(specs)}")
    agents: list[Agent] = [HumanAgent(seat, derive_seed(seed, "hint", seat)) if spec == "human"
                           else make_agent(parse_agent_spec(spec)) for seat, spec in enumerate(specs)]

    announce = Announcer()

    def on_event(recorder: GameRecorder, actor: int, action: Action, hidden: bool) -> None:
        announce(actor, action, hidden)
        if record_path:
            recorder.write(record_path)

    recorder = play_game(agents, parse_route(route), seed, names=specs, on_event=on_event)
    final = recorder.position
    click.echo()
    click.echo(render(final))
    best = max(final.scores())
    winners = [f"player {p} ({specs[p]})" for p, s in enumerate(final.scores()) if s == best]
    click.echo(f"Final scores {final.scores()}: {' and '.join(winners)} win"
               + ("" if len(winners) > 1 else "s"))
    if record_path:
        click.echo(f"record written to {record_path}")
