"""Multiple-observer information set MCTS (Cowling, Powley & Whitehouse 2012).

Each iteration determinizes the root from the searching player's information set, then descends.
The tree is a dict keyed by ``(player, information_set_key)``: one tree per observing player, so a
player's choice in a simultaneous step is made without seeing the others' (their pending choices
are not part of that player's key). Nodes hold statistics only, per action
``[visits, availability, value_sum, score_sum]``: UCT uses the availability count (the number of
iterations in which the action was legal) as the parent count. One node is added per iteration,
chance is sampled inside simulations, and every player's return and final score is backed up to
the nodes where that player chose. At the root every player's return and score is also kept per
root action, so one search gives every player's chances. Optional: a belief (a model of how the
others choose) for the determinization, and a prior policy whose action at each node gets a
progressive bias.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

from search.errors import SearchError
from search.policies import UniformRandom
from search.parallel import derive_seed, map_in_processes, split_iterations
from search.protocol import CHANCE_PLAYER, TERMINAL_PLAYER, Evaluator, Game, Policy
from search.request import Following, RootSums, SearchRequest, SearchResult, SearchTree, with_exact_values

Node = dict[int, list[float]]
"""Per action: [visits, availability, value_sum, score_sum]."""
"""(node, action, next node) -> times walked."""


@dataclass(frozen=True)
class LiveTree:
    """A growing tree as the progress hook sees it: the live node table and, when the request
    keeps the tree, the live edges (read them, never change them)."""

    nodes: dict[Hashable, Node]
    edges: Following | None

    def __len__(self) -> int:
        return len(self.nodes)

    def snapshot(self) -> SearchTree:
        """A copy as the finished search would keep it (its cost grows with the tree: call it
        when a report is due, not every time).

        Raises:
            SearchError: the request did not keep the tree (there are no edges).
        """
        if self.edges is None:
            raise SearchError("search: a snapshot of the tree needs a request with keep_tree")
        return _kept(self.nodes, self.edges)


Progress = Callable[[SearchResult, LiveTree], "bool | None"]
"""Called every ``progress_every`` iterations with the result so far and the live tree;
returning ``False`` stops the search there."""


@dataclass(frozen=True)
class TreeOutcome:
    """One tree's root statistics: ``action -> [visits, value_sum, score_sum]``, and its work."""

    sums: dict[int, list[float]]
    player_sums: dict[int, list[float]]
    """Per root action: every player's return sum, every player's score sum, then the sum of the
    searching player's squared scores."""
    iterations: int
    seconds: float
    nodes: int
    tree: SearchTree | None = None
    """The whole tree, when the request asked to keep it."""


def rollout(state: Game, rng: random.Random, policy: Policy[Any] | None = None,
            cutoff: int | None = None, evaluator: Evaluator[Any] | None = None,
            ) -> tuple[Sequence[float], Sequence[float]]:
    """Play `state` on in place to the end (or `cutoff` decisions, then evaluate): (returns, scores).

    A game with a ``playout`` method (see :class:`~search.protocol.PlaysOut`) plays rollouts to the
    end through it: same outcomes, less overhead.
    """
    if isinstance(policy, UniformRandom):
        policy = None  # the built-in random rollout: the same draws, without a call per decision
    if cutoff is None or evaluator is None:
        playout = getattr(state, "playout", None)
        if playout is not None:
            playout(rng, policy)
            return state.returns(), state.scores()
    decisions = 0
    while True:
        actor = state.current_player()
        if actor == TERMINAL_PLAYER:
            return state.returns(), state.scores()
        if actor == CHANCE_PLAYER:
            state.apply(state.sample_chance(rng))
            continue
        if cutoff is not None and decisions >= cutoff and evaluator is not None:
            return evaluator.evaluate(state)
        if policy is None:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])
        else:
            state.apply(policy.choose(state, rng))
        decisions += 1


def run_tree(root: Game, request: SearchRequest, seed: int, iterations: int | None,
             on_progress: Progress | None = None, progress_every: int = 64,
             nodes: dict[Hashable, Node] | None = None) -> TreeOutcome:
    """Grow one tree from `root` for `iterations` (and/or ``request.seconds``); its root statistics.

    With `nodes` (a node table from earlier searches of the same game) the tree grows on it in place.
    """
    start = time.perf_counter()
    deadline = start + request.seconds if request.seconds is not None else math.inf
    limit = iterations if iterations is not None else -1
    rng = random.Random(seed)
    player = root.current_player()
    exploration = request.exploration
    policy, cutoff, evaluator, exact = request.rollout, request.rollout_cutoff, request.evaluator, request.oracle
    widening = request.widening if policy is not None else 0.0
    below = request.exploration if request.exploration_below is None else request.exploration_below
    uniform_root = request.root_selection == "uniform"
    belief, prior, prior_weight = request.belief, request.prior, request.prior_weight
    favourites: dict[Hashable, int] = {}  # per node, the prior's action (only with a prior)
    tree: dict[Hashable, Node] = {} if nodes is None else nodes
    players = root.players
    player_sums: dict[int, list[float]] = {}
    edges: Following | None = {} if request.keep_tree else None
    live = LiveTree(tree, edges)
    log, sqrt, inf, clock = math.log, math.sqrt, math.inf, time.perf_counter
    done = 0
    while done != limit and (deadline == inf or clock() < deadline):
        if belief is None:
            state = root.determinize(player, rng)
        else:
            state = root.determinize(player, rng, belief)  # type: ignore[call-arg]
        path: list[tuple[list[float], int]] = []
        expanded = False
        came_from: tuple[Hashable, int] | None = None
        root_action = -1
        while True:
            actor = state.current_player()
            if actor < 0:
                if actor == TERMINAL_PLAYER:
                    returns, scores = state.returns(), state.scores()
                    break
                state.apply(state.sample_chance(rng))
                continue
            key = (actor, state.information_set_key(actor))
            node = tree.get(key)
            if node is None:
                if expanded:
                    solved = exact.exact_value(state) if exact is not None else None
                    if solved is not None:
                        returns, scores = solved
                    else:
                        returns, scores = rollout(state, rng, policy, cutoff, evaluator)
                    break
                node = tree[key] = {}
                expanded = True
                if prior is not None:
                    favourites[key] = prior.choose(state, rng)
            if edges is not None and came_from is not None:
                walked = edges.get(came_from)
                if walked is None:
                    walked = edges[came_from] = {}
                walked[key] = walked.get(key, 0) + 1
            chosen: list[float] = []
            action = -1
            best = -inf
            untried = 0
            favourite = favourites.get(key) if prior is not None else None
            pinned = False
            legal = state.legal_actions()
            if widening and path and len(legal) > 1:
                legal = widened_actions(legal, node, widening, policy.choose(state, rng))  # type: ignore[union-attr]
            c = below if path else exploration
            for candidate in legal:
                stats = node.get(candidate)
                if stats is None:
                    stats = node[candidate] = [0, 0, 0.0, 0.0]
                stats[1] += 1
                visits = stats[0]
                if uniform_root and not path:
                    if -visits > best:  # round robin: the least visited, first in order
                        chosen, action, best = stats, candidate, -visits
                elif not visits:
                    if candidate == favourite:  # the prior's untried action goes first
                        chosen, action, best, pinned = stats, candidate, inf, True
                    elif not pinned:
                        untried += 1  # reservoir sampling: a uniform pick among untried actions
                        if untried == 1 or rng.random() * untried < 1.0:
                            chosen, action, best = stats, candidate, inf
                elif best != inf:
                    value = stats[2] / visits + c * sqrt(log(stats[1]) / visits)
                    if candidate == favourite:
                        value += prior_weight / (visits + 1)
                    if value > best:
                        chosen, action, best = stats, candidate, value
            if not path:
                root_action = action
            path.append((chosen, actor))
            if edges is not None:
                came_from = (key, action)
            state.apply(action)
        for stats, actor in path:
            stats[0] += 1
            stats[2] += returns[actor]
            stats[3] += scores[actor]
        at_root = player_sums.get(root_action)
        if at_root is None:
            at_root = player_sums[root_action] = [0.0] * (2 * players + 1)
        for p in range(players):
            at_root[p] += returns[p]
            at_root[players + p] += scores[p]
        at_root[-1] += scores[player] * scores[player]
        done += 1
        if on_progress is not None and done % progress_every == 0:
            root_sums = {a: [s[0], s[2], s[3]]
                         for a, s in tree[(player, root.information_set_key(player))].items()}
            so_far = SearchResult.from_trees(player, root.legal_actions(),
                                             [RootSums(root_sums, player_sums)], clock() - start,
                                             by_win=uniform_root)
            if on_progress(so_far, live) is False:
                break
    root_node = tree.get((player, root.information_set_key(player)), {})
    sums = {a: [s[0], s[2], s[3]] for a, s in root_node.items()}
    kept = _kept(tree, edges) if edges is not None else None
    return TreeOutcome(sums, player_sums, done, time.perf_counter() - start, len(tree), kept)


def _kept(nodes: dict[Hashable, Node], edges: Following) -> SearchTree:
    """The tree for inspection: per node and action (visits, value_sum), and a copy of the edges."""
    collecting = gc.isenabled()
    gc.disable()  # the copy makes no cycles; collections mid-copy would scan the whole big tree
    try:
        return SearchTree({k: {a: (s[0], s[2]) for a, s in n.items()} for k, n in nodes.items()},
                          {start: dict(children) for start, children in edges.items()})
    finally:
        if collecting:
            gc.enable()


def widened_actions(legal: Sequence[int], node: Node, widening: float, guide: int) -> list[int]:
    """Progressive widening: the rollout policy's action, then as many others (in the game's order)
    as ``widening * sqrt(visits)`` allows, so a thinly visited node plays like the policy."""
    visits = sum(stats[0] for stats in node.values())
    others = [a for a in legal if a != guide]
    return [guide] + others[:int(widening * math.sqrt(visits))]


def search(state: Game, request: SearchRequest, on_progress: Progress | None = None,
           progress_every: int = 64, reuse: dict[Hashable, Node] | None = None) -> SearchResult:
    """Search the decision at `state` for its current player; never mutates `state`.

    With `on_progress` (one worker only) the growing search reports every `progress_every`
    iterations and stops early when the callback returns ``False`` (see :data:`Progress`).
    With `reuse` (one worker only) the search starts from that node table, kept from the same
    player's earlier searches in this game, and grows it in place: the statistics of the
    information sets it reaches again count from the start (tree reuse). Its root sums then
    include the earlier visits; every player's chances (``players``) come from this search alone.

    Raises:
        SearchError: `state` is not a decision (chance or the end of the game), or `on_progress`
            or `reuse` with several workers.
    """
    player = state.current_player()
    if player < 0:
        what = "a chance event" if player == CHANCE_PLAYER else "the end of the game"
        raise SearchError(f"search: the root is {what}, not a player's decision")
    if on_progress is not None and request.workers != 1:
        raise SearchError("search: on_progress needs workers=1 (the callback runs in this process)")
    if reuse is not None and request.workers != 1:
        raise SearchError("search: reuse needs workers=1 (the node table lives in this process)")
    start = time.perf_counter()
    budgets = split_iterations(request.iterations, request.workers)
    jobs: list[tuple[Any, ...]] = [(state, request, derive_seed(request.seed, i), budget)
                                   for i, budget in enumerate(budgets)]
    if on_progress is not None or reuse is not None:
        jobs = [jobs[0] + (on_progress, max(1, progress_every), reuse)]
    outcomes = map_in_processes(run_tree, jobs)
    result = SearchResult.from_trees(player, state.legal_actions(),
                                     [RootSums(o.sums, o.player_sums) for o in outcomes],
                                     time.perf_counter() - start,
                                     by_win=request.root_selection == "uniform")
    if request.oracle is not None:
        solved = request.oracle.exact_options(state)
        if solved is not None:
            result = with_exact_values(result, solved)
    if request.keep_tree:
        trees = [o.tree for o in outcomes if o.tree is not None]
        result = dataclasses.replace(result, tree=SearchTree.merged(trees))
    return result
