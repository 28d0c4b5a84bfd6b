"""How deep each family's tree reaches at each budget (issue 27; docs/strength.md, "Chance widening").

Decisions come from seeded self-play games as in ``refuge convergence`` (the same seed, games and
per-game count pick the same decisions); each is searched once per family and budget from a fresh
tree, and every iteration's walk inside the tree is counted (``lab.tree_depth``).

Usage: nice -n 10 .venv/bin/python -m lab.scripts.tree_depth --budgets 1000,4000,16000 --games 5 --per-game 4 \
    --family default=ismcts --family rollout=ismcts:evaluator=rollout
"""

from __future__ import annotations

import sys

import click
from tabulate import tabulate

from advisor.arena.convergence import ConvergenceSettings, kept_views
from lab.tree_depth import depth_table
from advisor.arena.match import parse_named_agent
from positions.errors import RefugeError


@click.command()
@click.option("--family", "families", multiple=True, help="NAME=ISMCTS_SPEC without a budget (repeatable).")
@click.option("--budgets", default="1000,4000,16000", show_default=True, help="Iterations, comma-separated.")
@click.option("--games", default=5, show_default=True, type=click.IntRange(1))
@click.option("--per-game", default=4, show_default=True, type=click.IntRange(1))
@click.option("--seed", default=2701, show_default=True, type=int)
@click.option("--play", default="ismcts:iterations=200", show_default=True,
              help="The agent in every seat of the games the decisions come from.")
def main(families: tuple[str, ...], budgets: str, games: int, per_game: int, seed: int, play: str) -> None:
    """Print the mean decisions an iteration walks in the tree per family and budget, and how many
    of them (the walk's last aside) tried an action at its node for the first time."""
    try:
        named = [parse_named_agent(f) for f in families] or [("default", "ismcts"),
                                                              ("rollout", "ismcts:evaluator=rollout")]
        try:
            sizes = tuple(int(b) for b in budgets.split(","))
        except ValueError:
            raise ValueError(f"--budgets: expected iterations like 1000,4000, got {budgets!r}") from None
        if min(sizes) < 1:
            raise ValueError(f"--budgets: iterations must be >= 1, got {budgets!r}")
        settings = ConvergenceSettings(seed=seed, games=games, per_game=per_game, play=play)
        views = [view for game in range(games) for _, _, view in kept_views(game, settings)]
        rows = depth_table(views, named, sizes, seed)
    except (RefugeError, ValueError) as error:
        click.echo(f"tree_depth.py: {error}", err=True)
        sys.exit(2)
    print(tabulate([(r.family, r.budget, r.views, f"{r.mean:.2f}", f"{r.own:.2f}", f"{r.deepest:.1f}",
                     f"{r.nodes:.0f}", f"{r.first_tries:.2f}") for r in rows],
                   headers=["family", "iterations", "decisions", "walk in tree", "own later choices",
                            "deepest", "nodes", "first tries"]))


if __name__ == "__main__":
    main()
