"""Last-walk positions with exact values: seeded games of heuristic players, stopped where one
player is still walking (the exact solver's scope), for the solver tests and the value benchmark."""

from __future__ import annotations

import random
from typing import Iterator

from advisor.analysis.exact import option_to_data, players_to_data
from advisor.players.games import GameLoop
from positions.kernel.heuristics import HeuristicPolicy
from positions.kernel.position import fisher_yates
from positions import Position
from positions.kernel.actions import Action, action_from_code
from positions.kernel.tiles import STORM
from search.solver import SolverResult

BUY_STYLES = ("per_step", "max_value")


def seat_players(players: int, rng: random.Random) -> list[HeuristicPolicy]:
    """One heuristic player per seat, aggression drawn from `rng`, buy styles alternating."""
    return [HeuristicPolicy(rng.uniform(0.6, 2.0), BUY_STYLES[seat % 2]) for seat in range(players)]


class NoisyPlayer:
    """A heuristic player who takes a uniformly random legal action with probability `noise`."""

    def __init__(self, policy: HeuristicPolicy, noise: float) -> None:
        self.name = "heuristic-noisy"
        self.policy = policy
        self.noise = noise

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The heuristic's action, or with probability `noise` a random legal one."""
        action = self.policy.choose(position, rng)
        if rng.random() < self.noise:
            legal = position.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        return action_from_code(action)


def single_walker_stops(players: int, route: str, seed: int, noise: float = 0.1,
                        walkers: int = 1) -> Iterator[tuple[list[str], Position]]:
    """Every decision of the last walk with a single player (or `walkers` players) still walking,
    in game `seed` of heuristic players who take a random legal action with probability `noise`
    (for variety), played through the game loop (deal seed `seed`).

    Yields the actions so far (notation, from ``Position.new_game(players, route)``) and the
    position; the game goes on with the same decisions whatever the caller does with them.
    """
    seats = [NoisyPlayer(policy, noise) for policy in seat_players(players, random.Random(seed))]
    game = GameLoop(seats, route, seed)
    while not game.position.is_terminal():
        pos = game.position
        if (not pos.is_chance() and pos.walk == pos.ruleset.walks - 1 and sum(pos.walking) == walkers
                and len(pos.legal_actions()) > 1):
            yield [str(a) for a in game.recorder.events], pos.copy()
        game.step()


def two_walker_stops(route: str, seed: int, noise: float = 0.1) -> Iterator[tuple[list[str], Position]]:
    """Every decision of the last walk of 2-player game `seed` while both players walk (the
    two-walker solver's scope; a simultaneous step's second decider comes after the first's
    choice, which it cannot see)."""
    return single_walker_stops(2, route, seed, noise, walkers=2)


def exact_options(result: SolverResult) -> list[dict[str, object]]:
    """Each root option's exact value (game order): the decider's and every player's."""
    return [option_to_data(option) for option in result.options]


def best_play_chances(result: SolverResult) -> list[dict[str, object]]:
    """Every player's exact win chance and expected score when the decider plays the best option."""
    return players_to_data(result.option(result.best).value)


def is_real_choice(result: SolverResult) -> bool:
    """Whether the options differ for the decider (in win share or expected score)."""
    return len({(o.win, o.score) for o in result.options}) > 1


def is_contested(result: SolverResult) -> bool:
    """Whether the options differ in the decider's win share."""
    return len({o.win for o in result.options}) > 1


def trimmed(pos: Position, rng: random.Random, keep: int, most_steps: int) -> Position:
    """A copy of the two-walker `pos` small enough to solve: each walker keeps `keep` of its bag's
    non-Storm tiles (drawn by `rng`; the rest go to the box, so every tile total still holds) and
    at most `most_steps` Steps. Storms stay where they are (C5 counts them)."""
    small = pos.copy()
    for player in range(small.players):
        if not small.walking[player]:
            continue
        tiles = [k for k in small.bags[player] if k != STORM]
        fisher_yates(tiles, rng)
        storms = (STORM,) * small.bags[player].count(STORM)
        small.bags[player] = tuple(sorted(storms + tuple(tiles[:keep])))
        small.box = tuple(sorted(small.box + tuple(tiles[keep:])))
        small.steps[player] = min(small.steps[player], most_steps)
    return small
