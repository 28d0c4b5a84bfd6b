"""Seeded self-play for the corpus: one game through the one game loop, what each decision looked
like and what the search thought, and a bounded sample of paired counterfactual continuations."""

from __future__ import annotations

import json
import random
import time
from typing import Any, Callable, Iterable, Sequence

from advisor.insights.store import Counterfactual, CorpusKey, Decision, GameResult
from advisor.players.agents import Agent, make_agent
from advisor.players.games import Event, GameLoop, derive_seed, play_game
from advisor.players.tablebase import ExactEndgames, single_walker
from positions.kernel import phases
from positions.kernel.actions import BUY_BASE, DRAW, PASS, RETURN
from positions.kernel.position import Position
from positions.record import GameRecorder
from positions.kernel.routes import parse_route
from positions.kernel.rules import paw_total
from positions.kernel.tiles import KIND_COUNT

DEFAULT_EXACT_NODES = 20_000
"""New positions the exact solver may solve at a last-walk return-or-draw decision (a few tenths of
a second at most); decisions over the budget are left without an exact value."""

Task = Sequence[Any]
TaskRunner = Callable[[Callable[..., Any], Iterable[Task], tuple[Any, ...],
                       Callable[[Task, Any], bool]], None]
"""Runs ``function(task, *common)`` for every task and hands each result to a callback that returns
True to stop — the arena's ``run_tasks`` bound to an executor, given by the command (the middle
packages do not import each other)."""


def game_seed(key: CorpusKey, index: int) -> int:
    """The seed of game `index` of a corpus (the agent is not part of it: two agents' corpora with
    the same seed meet the same deals)."""
    return derive_seed(key.seed, "insights", key.players, key.route, index)


def is_buy(action: int) -> bool:
    """Whether an action buys a tile."""
    return BUY_BASE <= action < BUY_BASE + KIND_COUNT


def path_paws(position: Position, seat: int) -> int:
    """The animal value of a seat's path: the victory points a return would score now."""
    return paw_total(position.paths[seat])


def agents_for(key: CorpusKey) -> list[Agent]:
    """Fresh agents, one per seat (each keeps its own tree and endgame probes)."""
    return [make_agent(key.agent) for _ in range(key.players)]


def _options(agent: Agent) -> str | None:
    """The root options of the agent's last search as JSON, and forget it (None: no search ran)."""
    result = getattr(agent, "last", None)
    if result is None:
        return None
    agent.last = None  # type: ignore[attr-defined]
    return json.dumps([[s.action, s.visits, round(s.win, 4), round(s.score, 2)] for s in result.actions])


class _Watcher:
    """Listens to the game loop: the position before each event, and a row for each decision."""

    def __init__(self, key: CorpusKey, agents: Sequence[Agent]) -> None:
        self.key = key
        self.agents = agents
        self.before = Position.new_game(key.players, parse_route(key.route))
        self.decisions: list[Decision] = []
        self.turns: set[tuple[int, int]] = set()
        self.oracle = ExactEndgames(key.exact_nodes, shared=False) if key.exact_nodes else None
        self.buys: list[tuple[int, tuple[int, ...]]] = []
        """(event, legal buys) of every buy decision with a tile to buy."""
        self.returns: list[int] = []
        """Events of every decision where both return and draw were legal."""

    def __call__(self, recorder: GameRecorder, played: Event) -> None:
        actor, action = played.actor, played.action
        pos, event = self.before, len(recorder.events) - 1
        self.turns.add((pos.walk, pos.turn))
        if actor >= 0:
            legal = pos.legal_actions()
            exact = None
            if pos.phase == phases.DECIDE:
                if RETURN in legal and DRAW in legal:
                    self.returns.append(event)
                exact = self._exact(pos, actor)
            elif pos.phase == phases.BUY:
                buys = tuple(a for a in legal if is_buy(a))
                if buys:
                    self.buys.append((event, buys))
            self.decisions.append(Decision(
                event, pos.walk, pos.turn, pos.phase, actor, int(action), len(legal),
                pos.storms_to_hit(), path_paws(pos, actor), pos.steps[actor], pos.vp[actor],
                _options(self.agents[actor]), exact))
        self.before = recorder.position.copy()

    def _exact(self, pos: Position, actor: int) -> str | None:
        if self.oracle is None or single_walker(pos) != actor:
            return None
        options = self.oracle.exact_options(pos)
        if options is None:
            return None
        return json.dumps([[a, round(w[actor], 6), round(s[actor], 4)]
                           for a, (w, s) in sorted(options.items())])


def continuation(key: CorpusKey, events: Sequence[int], forced: int, seat: int, seed: int
                 ) -> tuple[float, int]:
    """The deciding seat's return and score after `events`, then `forced`, then the agents play on
    with chance and agents seeded from `seed` (two branches with one seed meet the same chance)."""
    loop = GameLoop(agents_for(key), parse_route(key.route), seed)
    for action in events:
        loop.recorder.apply(action)
    loop.recorder.apply(forced)
    while not loop.position.is_terminal():
        loop.step()
    final = loop.position
    return final.returns()[seat], final.scores()[seat]


def _paired(key: CorpusKey, game: int, events: Sequence[int], decision: Decision, kind: str,
            first: int, second: int) -> Counterfactual:
    seed = derive_seed(game, "counterfactual", decision.event)
    prefix = events[:decision.event]
    first_return, first_score = continuation(key, prefix, first, decision.seat, seed)
    second_return, second_score = continuation(key, prefix, second, decision.seat, seed)
    return Counterfactual(decision.event, kind, decision.seat, decision.walk, decision.storms_to_hit,
                          decision.path_paws, decision.action, first, second, first_return,
                          second_return, first_score, second_score)


def play_corpus_game(task: Task, key: CorpusKey) -> GameResult:
    """Play game ``task[0]`` of the corpus and, every ``counterfactual_every`` games, one sampled
    buy decision (a legal buy drawn at random against passing) and one sampled return-or-draw
    decision played both ways."""
    index = int(task[0])
    start = time.process_time()
    seed = game_seed(key, index)
    agents = agents_for(key)
    watcher = _Watcher(key, agents)
    recorder = play_game(agents, parse_route(key.route), seed, on_event=watcher)
    final = recorder.position
    counterfactuals: list[Counterfactual] = []
    if key.counterfactual_every and index % key.counterfactual_every == 0:
        rng = random.Random(derive_seed(seed, "sample"))
        by_event = {d.event: d for d in watcher.decisions}
        if watcher.buys:
            event, buys = watcher.buys[rng.randrange(len(watcher.buys))]
            tile = buys[rng.randrange(len(buys))]
            counterfactuals.append(_paired(key, seed, recorder.events, by_event[event], "buy", tile, PASS))
        if watcher.returns:
            event = watcher.returns[rng.randrange(len(watcher.returns))]
            counterfactuals.append(_paired(key, seed, recorder.events, by_event[event], "return",
                                           RETURN, DRAW))
    return GameResult(index, seed, tuple(final.scores()), tuple(final.returns()), len(watcher.turns),
                      len(recorder.events), time.process_time() - start, tuple(watcher.decisions),
                      tuple(counterfactuals), tuple(recorder.events))
