"""Expert iteration's self-play (issue 54, item 3): games of the native default agent, each asked
decision recorded with the position's model rows and the self-play search's own root value.

Every seat is the agent's preset (:func:`advisor.players.presets.agent_config`) at an iteration
budget, its cut-offs judged by the evaluator of the generation before; the game is played through
:class:`~advisor.players.games.GameLoop`, so each seat decides on its own view. At every decision
an agent is asked (a choice; forced moves are not asked) it records the view's position rows
(:func:`advisor.players.learned.position_rows`: the network layout's input, all public, C7) and
the root value of the search that just chose the move: every player's mean win share and final
score over the root's actions, weighted by the search's own iterations there (:func:`root_value`).
That search is deeper than the evaluator it calls at its cut-offs, and it costs nothing extra: it
is the move's own search. Every random choice flows from (seed, generation, game), so a game is the same in any
process, in any order.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass
from typing import NamedTuple

from advisor.players.agents import SearchAgent
from advisor.players.games import GameLoop, deal_seed
from advisor.players.learned import LearnedEvaluator, Model, position_rows, walks_left
from advisor.players.presets import agent_config
from positions.kernel.actions import Action
from positions.kernel.position import Position
from positions.kernel.routes import ROUTES
from search.request import Limit, SearchResult
from search.seeds import derive_seed

PLAYERS = 2
"""Seats per self-play game (issue 54's goals are measured with two players)."""


@dataclass(frozen=True)
class Recorded:
    """One asked decision of a self-play game."""

    decision: int
    """Its number among the game's asked decisions (0, 1, ...)."""
    seat: int
    walk: int
    walks_left: int
    rows: list[list[float]]
    """Every player's position rows on the decider's view (``position_rows``)."""
    search_wins: list[float]
    """Every player's win share at the root of the move's search (they sum to 1)."""
    search_scores: list[float]
    """Every player's final score at the root of the move's search."""
    iterations: int
    """The iterations behind the value (the search's own, on exact options too)."""


@dataclass(frozen=True)
class PlayedGame:
    """A finished self-play game and its recorded decisions."""

    game: int
    route: str
    deal_seed: int
    returns: list[float]
    """Every player's win share (tied winners share, C18)."""
    scores: list[int]
    decisions: list[Recorded]
    cpu_seconds: float
    """CPU time of this process for the game (the search's threads included)."""


def game_route(seed: int, generation: int, game: int) -> str:
    """The route of a game, drawn by its own seed among every named route."""
    return random.Random(derive_seed(seed, "expert-iteration", generation, game, "route")).choice(sorted(ROUTES))


def game_deal(seed: int, generation: int, game: int) -> int:
    """The deal seed of a game (apart from the arena's deals of the same seed)."""
    return deal_seed(derive_seed(seed, "expert-iteration", generation), game)


class RootValue(NamedTuple):
    """Every player's win share and final score at a search's root, and the iterations behind them."""

    wins: list[float]
    scores: list[float]
    iterations: int


def root_value(result: SearchResult) -> RootValue:
    """Every player's (win share, final score) at the root of `result`: the mean over the search's
    own iterations, every root action weighted by the iterations this search made there
    (``ActionStats.samples``: a tree kept from the game's earlier decisions adds visits, not
    samples; an exact option with its exact values); the chosen action's values when no action
    holds any (every option solved)."""
    seen = [s for s in result.actions if s.samples and s.wins]
    made = sum(s.samples for s in seen)
    if not made:
        chosen = result.stats(result.chosen)
        return RootValue(list(chosen.wins), list(chosen.scores), 0)
    players = len(seen[0].wins)
    wins = [sum(s.samples * s.wins[p] for s in seen) / made for p in range(players)]
    scores = [sum(s.samples * s.scores[p] for s in seen) / made for p in range(players)]
    return RootValue(wins, scores, made)


def selfplay_agent(model: Model | None, iterations: int) -> SearchAgent:
    """The default agent at `iterations` a decision, judging its cut-offs with `model` (``None``:
    the shipped one), one search worker, its tree kept between the game's decisions."""
    config = agent_config()
    if model is not None:
        config = dataclasses.replace(config, evaluator=LearnedEvaluator(model))
    return SearchAgent("expert-selfplay", Limit(iterations=iterations, workers=1), config)


class RecordingSeat:
    """A seat's search agent that keeps the view it was last handed, beside the agent's own
    last result (the search that chose the move)."""

    def __init__(self, agent: SearchAgent) -> None:
        self.agent = agent
        self.name = agent.name
        self.view: Position | None = None

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The agent's move on the seat's view `position`, the view kept."""
        self.view = position
        return self.agent.choose(position, rng)

    def recorded(self, number: int, seat: int) -> Recorded:
        """The decision this seat was just asked: its view's rows and its search's root value."""
        result, view = self.agent.last, self.view
        assert result is not None and view is not None, "recorded before the seat was asked"
        value = root_value(result)
        return Recorded(number, seat, view.walk, walks_left(view), position_rows(view), value.wins, value.scores,
                        value.iterations)


def play_selfplay_game(seed: int, generation: int, game: int, model: Model | None,
                       iterations: int) -> PlayedGame:
    """Game `game` of generation `generation` of the run seeded `seed`: fresh agents in both seats
    (nothing carries over from another game), every asked decision recorded."""
    started = time.process_time()
    seats = [RecordingSeat(selfplay_agent(model, iterations)) for _ in range(PLAYERS)]
    route, deal = game_route(seed, generation, game), game_deal(seed, generation, game)
    loop = GameLoop(seats, route, deal)
    recorded: list[Recorded] = []
    while not loop.position.is_terminal():
        decision = loop.decide()
        if decision.asked:
            recorded.append(seats[decision.actor].recorded(len(recorded), decision.actor))
        loop.play(decision)
    final = loop.position
    return PlayedGame(game, route, deal, list(final.returns()), [int(s) for s in final.scores()], recorded,
                      time.process_time() - started)
