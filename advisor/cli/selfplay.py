"""`refuge selfplay`: records of bot games, written as they finish and resumed after a crash."""

from __future__ import annotations

import os

import click
from tabulate import tabulate

from advisor.players.specs import parse_agent_spec
from advisor.players.agents import make_agent
from advisor.cli.errors import fail, reports_bad_input
from advisor.cli.progress import progress_bar
from advisor.players.games import deal_seed, play_game, record_file, rotation, split_agent_list
from positions.record import load_record, replay
from positions.kernel.routes import parse_route


@click.command("selfplay")
@click.option("--agents", "agent_list", required=True,
              help="One agent spec per seat, comma-separated, e.g. ismcts:iterations=500,heuristic")
@click.option("--games", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds every game's chance and agents.")
@click.option("--route", default="meadows", show_default=True,
              help="meadows, forest, mountains or 8 comma-separated kinds.")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False),
              help="Folder for the game records (game-00001.json, ...).")
@reports_bad_input
def selfplay(agent_list: str, games: int, seed: int, route: str, out: str) -> None:
    """Play bot games and write each as a game record; games already in OUT are kept, not replayed.

    Seats rotate from game to game so every agent plays every seat, each deal once per rotation
    (game i plays deal i // AGENTS): the deals are the arena's, so with the same --seed, agents and
    seats, selfplay's games are the arena's games event for event.

    Example: refuge selfplay --agents heuristic,cautious --games 20 --seed 1 --out runs/h-vs-c
    """
    specs = split_agent_list(agent_list)
    if not 2 <= len(specs) <= 4:
        raise click.UsageError(f"--agents: need 2 to 4 agent specs, got {len(specs)}")
    agents = [make_agent(parse_agent_spec(s)) for s in specs]
    the_route = parse_route(route)
    os.makedirs(out, exist_ok=True)
    totals: dict[int, list[float]] = {i: [0, 0, 0, 0.0, 0.0] for i in range(len(specs))}
    with progress_bar(range(games), label="selfplay") as bar:
        for index in bar:
            path = record_file(out, index)
            deal, turn = divmod(index, len(specs))
            order = rotation(turn, len(specs))
            if os.path.exists(path):
                final = replay(load_record(path), path).final
                if not final.is_terminal():
                    fail(f"{path}: unfinished game record; delete it to replay the game")
            else:
                recorder = play_game([agents[i] for i in order], the_route,
                                     deal_seed(seed, deal),
                                     names=[specs[i] for i in order])
                recorder.write(path)
                final = recorder.position
            for seat, agent_index in enumerate(order):
                share = final.returns()[seat]
                row = totals[agent_index]
                row[0] += 1
                row[1] += share == 1.0
                row[2] += 0.0 < share < 1.0
                row[3] += share
                row[4] += final.scores()[seat]
    rows = [[specs[i], int(n), int(wins), int(shared), f"{100 * share / n:.1f}%", f"{score / n:.1f}"]
            for i, (n, wins, shared, share, score) in totals.items()]
    click.echo(tabulate(rows, headers=["agent", "games", "wins", "shares the win", "win rate",
                                       "mean score"]))
    click.echo("win rate: a shared win (a tie for first, C18) counts 1/k for each of k winners")
    click.echo(f"records in {out}")
