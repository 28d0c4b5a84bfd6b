"""Multiple-observer information set MCTS (Cowling, Powley & Whitehouse 2012).

Each iteration determinizes the root from the searching player's information set, then descends.
The tree is a dict keyed by ``(player, information_set_key)``: one tree per observing player, so a
player's choice in a simultaneous step is made without seeing the others' (their pending choices
are not part of that player's key). A simultaneous decision whose step others have already chosen
in, unseen, is searched from the step's start: every seat's choice is selected by that seat's own
node (decoupled simultaneous-move MCTS) and the answer is read at the searching player's node, so
the others' hidden choices are modelled, not redrawn at random. Nodes hold statistics only
(:class:`EdgeStats` per action): UCT uses the availability count (the number of iterations in
which the action was legal) as the parent count. One node is added per iteration, chance is
sampled inside simulations, and every player's return and final score is backed up to the nodes
where that player chose. At the answer node every player's return and score is also kept per
action, so one search gives every player's chances. Optional (:class:`~search.request.SearchConfig`):
a prior policy whose action at each node gets a progressive bias, progressive widening at decisions
below the root, rollouts cut off and judged by an evaluator, exact values from an oracle.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator, Mapping, NamedTuple, Protocol, Sequence

from search.errors import SearchError
from search.backend import KeptTree, native_answer, native_plan, native_trees
from search.policies import UniformRandom
from search.parallel import map_in_processes, split_iterations, worker_seeds
from search.protocol import CHANCE_PLAYER, TERMINAL_PLAYER, Evaluator, Game, NativeKept, Policy
from search.records import JointCell, PlayerSums, RootStats
from search.request import (MIXING, Following, RootSums, SearchConfig, SearchRequest, SearchResult, SearchTree,
                            with_exact_values)



class EdgeStats:
    """One action's statistics at a node."""

    __slots__ = ("visits", "availability", "value_sum", "score_sum", "regret", "policy_sum")

    def __init__(self) -> None:
        self.visits = 0
        """Iterations that played the action here."""
        self.availability = 0
        """Iterations in which the action was legal here (UCT's parent count)."""
        self.value_sum = 0.0
        """The chooser's return summed over the visits."""
        self.score_sum = 0.0
        """The chooser's final score summed over the visits."""
        self.regret = 0.0
        """At a simultaneous node: regret matching's cumulative regret, or Exp3's cumulative
        estimated reward (0 under UCT)."""
        self.policy_sum = 0.0
        """At a simultaneous node under regret matching or Exp3: the action's probability summed
        over the node's visits (the mean strategy, unnormalised; 0 under UCT)."""

    def __repr__(self) -> str:
        return (f"EdgeStats(visits={self.visits}, availability={self.availability}, "
                f"value_sum={self.value_sum}, "
                f"score_sum={self.score_sum}, regret={self.regret}, "
                f"policy_sum={self.policy_sum})")


Node = dict[int, EdgeStats]
"""A node: every action tried or available there, with its statistics."""


class LiveTree(Protocol):
    """A growing tree as the progress hook sees it (the Python tree's :class:`PythonLiveTree` or
    the native core's :class:`NativeLiveTree`): read it during the report."""

    def __len__(self) -> int:
        """The information sets in the tree."""
        ...

    def snapshot(self) -> SearchTree:
        """A copy as the finished search would keep it (its cost grows with the tree: call it
        when a report is due, not every time).

        Raises:
            SearchError: the request did not keep the tree (there are no edges).
        """
        ...


NO_SNAPSHOT = "search: a snapshot of the tree needs a request with keep_tree"


@dataclass(frozen=True)
class PythonLiveTree:
    """The Python tree as it grows: the live node table and, when the request keeps the tree, the
    live edges (read them, never change them)."""

    nodes: dict[Hashable, Node]
    edges: Following | None

    def __len__(self) -> int:
        return len(self.nodes)

    def snapshot(self) -> SearchTree:
        """See :meth:`LiveTree.snapshot`."""
        if self.edges is None:
            raise SearchError(NO_SNAPSHOT)
        return _kept(self.nodes, self.edges)


class NativeLiveTree:
    """A native tree as it grows (the core's ``LiveTree``: readable only during its report)."""

    def __init__(self, live: Any) -> None:
        self.live = live

    def __len__(self) -> int:
        return len(self.live)

    def snapshot(self) -> SearchTree:
        """See :meth:`LiveTree.snapshot`."""
        kept = self.live.kept()
        if kept is None:
            raise SearchError(NO_SNAPSHOT)
        return tree_from_native(kept)


Progress = Callable[[SearchResult, LiveTree], "bool | None"]
"""Called every ``progress_every`` iterations with the result so far and the live tree;
returning ``False`` stops the search there."""


@dataclass(frozen=True)
class TreeOutcome:
    """One tree's root statistics, and its work."""

    sums: dict[int, RootStats]
    player_sums: dict[int, PlayerSums]
    """Per root action: every player's sums."""
    iterations: int
    seconds: float
    nodes: int
    tree: SearchTree | None = None
    """The whole tree, when the request asked to keep it."""
    answers: tuple[RootSums, ...] = ()
    """Every answer node's statistics: the searching player's, then those of the later decisions
    of the same step searched with it (see :func:`search_step`)."""
    joint: dict[tuple[int, ...], JointCell] = dataclasses.field(default_factory=dict)
    """With several answer nodes: per joint action, its cell (see :class:`StepSearch`)."""


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


class TreeJob(NamedTuple):
    """One tree's work, as a worker process is sent it (:func:`run_tree`'s arguments)."""

    root: Game
    request: SearchRequest
    seed: int
    iterations: int | None
    on_progress: "Progress | None" = None
    progress_every: int = 64
    nodes: "dict[Hashable, Node] | None" = None
    also: Sequence[Game] = ()
    pinned: Mapping[int, int] | None = None


def run_tree(root: Game, request: SearchRequest, seed: int, iterations: int | None,
             on_progress: Progress | None = None, progress_every: int = 64,
             nodes: dict[Hashable, Node] | None = None, also: Sequence[Game] = (),
             pinned: Mapping[int, int] | None = None) -> TreeOutcome:
    """Grow one tree for the decision `root` for `iterations` (and/or ``request.seconds``); the
    statistics of the deciding player's node (see :func:`tree_root` for where the tree starts).

    With `nodes` (a node table from earlier searches of the same game) the tree grows on it in place.
    With `also` (later decisions of the same simultaneous step) the tree grows from the step's start
    and keeps their nodes' statistics too. With `pinned` (answer index -> action) those answer
    nodes play that action in every iteration.
    """
    start = time.perf_counter()
    deadline = start + request.limit.seconds if request.limit.seconds is not None else math.inf
    limit = iterations if iterations is not None else -1
    tree = Tree(root, request, seed, nodes, also, pinned)
    legal = root.legal_actions()
    live = PythonLiveTree(tree.nodes, tree.edges)
    clock = time.perf_counter
    done = 0
    while done != limit and (deadline == math.inf or clock() < deadline):
        tree.iterate()
        done += 1
        if on_progress is not None and done % progress_every == 0:
            so_far = SearchResult.from_trees(tree.player, legal, [tree.root_sums()],
                                             clock() - start, by_win=tree.uniform_root)
            if on_progress(so_far, live) is False:
                break
    answers = tuple(tree.root_sums(i) for i in range(len(tree.answers)))
    kept = _kept(tree.nodes, tree.edges) if tree.edges is not None else None
    return TreeOutcome(answers[0].sums, answers[0].player_sums, done, time.perf_counter() - start,
                       len(tree.nodes), kept, answers, tree.joint)


Mix = tuple[list[EdgeStats], float]
"""A regret-matching or Exp3 pick: every legal action's statistics, and the chosen one's probability."""
Step = tuple[EdgeStats, int, "Mix | None"]
"""One decision of an iteration's walk down the tree: the chosen action's statistics, who chose,
and the mix it was drawn from (``None``: UCT or round robin)."""


class Tree:
    """One tree's growth, an iteration at a time: determinize, select down the tree (adding one node),
    simulate from where the walk leaves the tree, back the outcome up."""

    def __init__(self, decision: Game, request: SearchRequest, seed: int,
                 nodes: dict[Hashable, Node] | None = None, also: Sequence[Game] = (),
                 pinned: Mapping[int, int] | None = None) -> None:
        self.config = config = request.config
        self.rng = random.Random(seed)
        self.player = decision.current_player()
        """The searching player."""
        self.root = tree_root(also[-1] if also else decision, config)
        """Where every iteration starts: the decision, or its simultaneous step's start."""
        deciders = [decision, *also]
        self.answer_players = [d.current_player() for d in deciders]
        self.answers: dict[Hashable, int] = {
            (p, d.information_set_key(p)): i for i, (p, d) in enumerate(zip(self.answer_players, deciders))}
        """The nodes whose statistics are the search's answers, by index: the searching player's at
        the decision (0), then those of the later decisions `also` of the same simultaneous step."""
        self.answer: Hashable = next(iter(self.answers))
        self.nodes: dict[Hashable, Node] = {} if nodes is None else nodes
        self.edges: Following | None = {} if request.keep_tree else None
        self.answer_sums: list[dict[int, PlayerSums]] = [{} for _ in deciders]
        """Per answer node and action: every player's sums."""
        self.favourites: dict[Hashable, int] = {}
        """Per node, the prior's action (only with a prior)."""
        self.uniform_root = config.root_selection == "uniform"
        self.widening = config.widening if config.rollout is not None else 0.0
        self.below = config.exploration if config.exploration_below is None else config.exploration_below
        self.joint: dict[tuple[int, ...], JointCell] = {}
        """With several answer nodes: per joint action of theirs (-1: not reached), its cell."""
        self.answer_actions = [-1] * len(deciders)
        """The action each answer node chose in the current iteration (-1: not reached)."""
        self.matching = config.simultaneous if config.simultaneous != "uct" else ""
        """``"rm"`` or ``"exp3"`` at the nodes of simultaneous steps; ``""``: UCT everywhere."""
        self.pinned: Mapping[int, int] = pinned or {}
        """Per answer index, the action that answer node plays in every iteration (a verification
        search of moves the search itself would rarely sample)."""

    def iterate(self) -> list[Step]:
        """One iteration: determinization, selection and expansion, simulation, backup; the
        decisions it walked in the tree."""
        state = self.determinized()
        path = self.descend(state)
        returns, scores = self.simulate(state)
        self.backup(path, returns, scores)
        return path

    def determinized(self) -> Game:
        """A world consistent with the searching player's information set."""
        return self.root.determinize(self.player, self.rng)

    def descend(self, state: Game) -> list[Step]:
        """Selection and expansion: from the root, each node chooses (chance is sampled) and the first
        information set not yet in the tree is added (and any above the answer node, so every
        iteration reaches it), until the game ends or the walk reaches a second new one; `state` is
        left where the simulation starts. The decisions taken, in order."""
        rng, nodes, edges, answers = self.rng, self.nodes, self.edges, self.answers
        path: list[Step] = []
        expanded = False
        remaining = len(answers)  # answer nodes not passed yet: the nodes on the way are "above"
        came_from: tuple[Hashable, int] | None = None
        chosen = self.answer_actions
        for i in range(remaining):
            chosen[i] = -1
        while True:
            actor = state.current_player()
            if actor < 0:
                if actor == TERMINAL_PLAYER:
                    return path
                state.apply(state.sample_chance(rng))
                continue
            key = (actor, state.information_set_key(actor))
            index = answers.get(key, -1) if remaining else -1
            at_answer = index >= 0 and chosen[index] < 0
            if remaining and not at_answer and not state.is_simultaneous():
                remaining = 0  # the walk left the step without meeting every answer node
            node = nodes.get(key)
            if node is None:
                if expanded:
                    return path
                node = self.expand(key, state)
                # the nodes above the (last) answer node are added on the way
                expanded = remaining == 0 or (at_answer and remaining == 1)
            if edges is not None and came_from is not None:
                walked = edges.get(came_from)
                if walked is None:
                    walked = edges[came_from] = {}
                walked[key] = walked.get(key, 0) + 1
            if at_answer and index in self.pinned:
                action, mix = self.pinned[index], None
                stats = _edge(node, action)
                stats.availability += 1
            else:
                stats, action, mix = self.select(node, key, state, at_answer, remaining > 0)
            if at_answer:
                remaining -= 1
                chosen[index] = action
            path.append((stats, actor, mix))
            if edges is not None:
                came_from = (key, action)
            state.apply(action)

    def expand(self, key: Hashable, state: Game) -> Node:
        """Add the node of an information set first reached (and ask the prior for its favourite)."""
        node: Node = {}
        self.nodes[key] = node
        if self.config.prior is not None:
            self.favourites[key] = self.config.prior.choose(state, self.rng)
        return node

    def select(self, node: Node, key: Hashable, state: Game, at_answer: bool, above: bool,
               ) -> tuple[EdgeStats, int, Mix | None]:
        """The action a node plays in this iteration, its statistics and the mix it was drawn from
        (every legal action's availability counted): at the answer node under uniform root
        selection, round robin; at a simultaneous node under ``rm``/``exp3``, a draw from that
        node's strategy; else UCT with the prior's bias, untried actions first (the prior's
        favourite, else a uniform pick)."""
        config = self.config
        legal = state.legal_actions()
        above = above or at_answer  # answer nodes and those above them select like a root
        if self.widening and not above and len(legal) > 1:
            legal = widened_actions(legal, node, self.widening, config.rollout.choose(state, self.rng))  # type: ignore[union-attr]
        if at_answer and self.uniform_root:
            return _least_visited(node, legal) + (None,)
        favourite = self.favourites.get(key) if config.prior is not None else None
        if self.matching and len(legal) > 1 and state.is_simultaneous():
            return _matched(node, legal, self.matching, MIXING, favourite, self.rng)
        return _uct(node, legal, config.exploration if above else self.below, favourite,
                    config.prior_weight, self.rng) + (None,)

    def simulate(self, state: Game) -> tuple[Sequence[float], Sequence[float]]:
        """Every player's return and final score from where the walk left the tree: the end of the
        game, an exact value where the oracle has one, else a rollout."""
        if state.current_player() == TERMINAL_PLAYER:
            return state.returns(), state.scores()
        config = self.config
        if config.oracle is not None:
            solved = config.oracle.exact_value(state)
            if solved is not None:
                return solved
        return rollout(state, self.rng, config.rollout, config.rollout_cutoff, config.evaluator)

    def backup(self, path: list[Step], returns: Sequence[float], scores: Sequence[float]) -> None:
        """Every decision of the walk gets its chooser's return and score; the answer node's action
        also every player's (so one search gives every player's chances)."""
        exp3 = self.matching == "exp3"
        for stats, actor, mix in path:
            value = returns[actor]
            stats.visits += 1
            stats.value_sum += value
            stats.score_sum += scores[actor]
            if mix is not None:
                edges, probability = mix
                if not exp3:  # regret matching: r_b += x_b - u, x the importance-weighted reward
                    for other in edges:
                        other.regret -= value
                stats.regret += value / probability
        players = len(returns)
        if len(self.answer_actions) > 1:
            joint = tuple(self.answer_actions)
            cell = self.joint.get(joint)
            if cell is None:
                cell = self.joint[joint] = JointCell.zeros(players)
            cell.iterations += 1
            cell_returns, cell_scores = cell.returns, cell.scores
            for p in range(players):
                cell_returns[p] += returns[p]
                cell_scores[p] += scores[p]
        for index, action in enumerate(self.answer_actions):
            if action < 0:
                continue
            sums = self.answer_sums[index]
            at_answer = sums.get(action)
            if at_answer is None:
                at_answer = sums[action] = PlayerSums.zeros(players)
            answer_returns, answer_scores = at_answer.returns, at_answer.scores
            for p in range(players):
                answer_returns[p] += returns[p]
                answer_scores[p] += scores[p]
            mine = scores[self.answer_players[index]]
            at_answer.squared_score += mine * mine
            at_answer.count += 1

    def root_sums(self, index: int = 0) -> RootSums:
        """An answer node's statistics so far (0: the searching player's)."""
        key = list(self.answers)[index] if index else self.answer
        node = self.nodes.get(key, {})
        return RootSums({a: RootStats(s.visits, s.value_sum, s.score_sum, s.policy_sum) for a, s in node.items()},
                        self.answer_sums[index])


def tree_root(decision: Game, config: SearchConfig) -> Game:
    """Where the search of `decision` starts: with ``config.step_root``, at a simultaneous decision
    whose step others have chosen in unseen, the step's start as the decider knows it (the game's
    ``step_start``); else the decision itself."""
    if config.step_root and decision.is_simultaneous():
        step_start = getattr(decision, "step_start", None)
        if step_start is not None:
            start: Game | None = step_start(decision.current_player())
            if start is not None:
                return start
    return decision


def _edge(node: Node, action: int) -> EdgeStats:
    stats = node.get(action)
    if stats is None:
        stats = node[action] = EdgeStats()
    return stats


def _matched(node: Node, legal: Sequence[int], rule: str, mixing: float, favourite: int | None,
             rng: random.Random) -> tuple[EdgeStats, int, Mix]:
    """Decoupled simultaneous-move selection: the node's strategy (regret matching: in proportion
    to the positive regrets; Exp3: a softmax of the estimated rewards with rate ``mixing / k``),
    added to the mean strategy, mixed with ``mixing`` uniform exploration and sampled; the chosen
    action's statistics, the action, and the mix for the backup. Where nothing has been learnt
    yet (regret matching: no positive regret; Exp3: a new node) the strategy is the prior's
    `favourite` (uniform without one), as UCT tries it first: a thinly visited node plays like
    the prior, not at random."""
    edges = [_edge(node, action) for action in legal]
    k = len(edges)
    if rule == "exp3":
        rate = mixing / k
        top = max(e.regret for e in edges)
        weights = [math.exp(rate * (e.regret - top)) for e in edges] if top or min(
            e.regret for e in edges) else [0.0] * k
    else:
        weights = [e.regret if e.regret > 0 else 0.0 for e in edges]
    total = sum(weights)
    if total > 0:
        strategy = [w / total for w in weights]
    elif favourite is not None and favourite in legal:
        strategy = [1.0 if action == favourite else 0.0 for action in legal]
    else:
        strategy = [1.0 / k] * k
    draw = rng.random()
    index = -1
    for i, (stats, probability) in enumerate(zip(edges, strategy)):
        stats.availability += 1
        stats.policy_sum += probability
        if index < 0:
            draw -= (1.0 - mixing) * probability + mixing / k
            if draw < 0:
                index = i
    if index < 0:  # rounding left a sliver past the last action
        index = k - 1
    chosen = edges[index]
    return chosen, legal[index], (edges, (1.0 - mixing) * strategy[index] + mixing / k)


def _least_visited(node: Node, legal: Sequence[int]) -> tuple[EdgeStats, int]:
    """Round robin: the least visited legal action, first in the game's order."""
    chosen: EdgeStats | None = None
    action = -1
    for candidate in legal:
        stats = _edge(node, candidate)
        stats.availability += 1
        if chosen is None or stats.visits < chosen.visits:
            chosen, action = stats, candidate
    assert chosen is not None
    return chosen, action


def _uct(node: Node, legal: Sequence[int], c: float, favourite: int | None, prior_weight: float,
         rng: random.Random) -> tuple[EdgeStats, int]:
    """UCT over the availability counts: the prior's untried favourite first, then a uniform pick
    among untried actions (reservoir sampling), then the best mean plus exploration (plus bias)."""
    log, sqrt, inf = math.log, math.sqrt, math.inf
    chosen: EdgeStats | None = None
    action = -1
    best = -inf
    untried = 0
    pinned = False
    for candidate in legal:
        stats = node.get(candidate)
        if stats is None:
            stats = node[candidate] = EdgeStats()
        stats.availability += 1
        visits = stats.visits
        if not visits:
            if candidate == favourite:  # the prior's untried action goes first
                chosen, action, best, pinned = stats, candidate, inf, True
            elif not pinned:
                untried += 1  # reservoir sampling: a uniform pick among untried actions
                if untried == 1 or rng.random() * untried < 1.0:
                    chosen, action, best = stats, candidate, inf
        elif best != inf:
            value = stats.value_sum / visits + c * sqrt(log(stats.availability) / visits)
            if candidate == favourite:
                value += prior_weight / (visits + 1)
            if value > best:
                chosen, action, best = stats, candidate, value
    assert chosen is not None
    return chosen, action


def _kept(nodes: dict[Hashable, Node], edges: Following) -> SearchTree:
    """The tree for inspection: per node and action (visits, return sum), and a copy of the edges."""
    collecting = gc.isenabled()
    gc.disable()  # the copy makes no cycles; collections mid-copy would scan the whole big tree
    try:
        return SearchTree({k: {a: (s.visits, s.value_sum) for a, s in n.items()} for k, n in nodes.items()},
                          {start: dict(children) for start, children in edges.items()})
    finally:
        if collecting:
            gc.enable()


def widened_actions(legal: Sequence[int], node: Node, widening: float, guide: int) -> list[int]:
    """Progressive widening: the rollout policy's action, then as many others (in the game's order)
    as ``widening * sqrt(visits)`` allows, so a thinly visited node plays like the policy."""
    visits = sum(stats.visits for stats in node.values())
    others = [a for a in legal if a != guide]
    return [guide] + others[:int(widening * math.sqrt(visits))]


def nodes_from_native(exported: Sequence[tuple[Hashable, Sequence[tuple[int, int, int, float, float, float, float]]]],
                      ) -> dict[Hashable, Node]:
    """A native core's node table as the Python tree keeps it (``SearchTable.export()``: per node
    its key and every edge's action, visits, availability, value, score, regret and policy sums)."""
    nodes: dict[Hashable, Node] = {}
    for key, edges in exported:
        node: Node = {}
        for action, visits, availability, value_sum, score_sum, regret, policy_sum in edges:
            stats = node[action] = EdgeStats()
            stats.visits, stats.availability = visits, availability
            stats.value_sum, stats.score_sum, stats.regret, stats.policy_sum = value_sum, score_sum, regret, policy_sum
        nodes[key] = node
    return nodes


def tree_from_native(exported: NativeKept) -> SearchTree:
    """A native core's kept tree as :func:`_kept` makes it (nodes, then the edges walked with the
    nodes as indices into them)."""
    exported_nodes, walked = exported
    keys = [key for key, _ in exported_nodes]
    nodes: dict[Hashable, dict[int, tuple[float, float]]] = {
        key: {action: (visits, value_sum) for action, visits, value_sum in edges} for key, edges in exported_nodes}
    following: Following = {(keys[start], action): {keys[child]: times for child, times in children}
                             for (start, action), children in walked}
    return SearchTree(nodes, following)


class _Reports:
    """One search's progress hook, fed by the native tree and, where that hands back to Python, by
    the Python tree that redoes it from the start: the reports the native tree made are not made
    again (the Python tree's first ones are equal to them, bit for bit)."""

    def __init__(self, hook: Progress, player: int, legal: Sequence[int], start: float, by_win: bool) -> None:
        self.hook, self.player, self.legal, self.start, self.by_win = hook, player, legal, start, by_win
        self.made = 0
        """Reports made by the native tree."""
        self.redone = 0
        """Reports the Python tree reached."""

    def native(self, sums: RootSums, live: Any) -> bool | None:
        """A native tree's report: the result so far built as :func:`run_tree` builds it."""
        self.made += 1
        so_far = SearchResult.from_trees(self.player, self.legal, [sums], time.perf_counter() - self.start,
                                         by_win=self.by_win, backend="native")
        return self.hook(so_far, NativeLiveTree(live))

    def python(self, so_far: SearchResult, live: LiveTree) -> bool | None:
        """A Python tree's report, passed on unless the native tree made it already."""
        self.redone += 1
        return None if self.redone <= self.made else self.hook(so_far, live)


def search(state: Game, request: SearchRequest, on_progress: Progress | None = None,
           progress_every: int = 64, reuse: dict[Hashable, Node] | KeptTree | None = None) -> SearchResult:
    """Search the decision at `state` for its current player; never mutates `state`.

    With `on_progress` (one worker only) the growing search reports every `progress_every`
    iterations and stops early when the callback returns ``False`` (see :data:`Progress`); the
    native core reports exactly as the Python tree would (native/SEARCH.md).
    With `reuse` (one worker only) the search starts from that node table, kept from the same
    player's earlier searches in this game, and grows it in place: the statistics of the
    information sets it reaches again count from the start (tree reuse). Its root sums then
    include the earlier visits; every player's chances (``wins``, ``scores``) come from this search
    alone, averaged over its own iterations (``ActionStats.samples``).

    Raises:
        SearchError: `state` is not a decision (chance or the end of the game), or `on_progress`
            or `reuse` with several workers.
    """
    player = state.current_player()
    if player < 0:
        what = "a chance event" if player == CHANCE_PLAYER else "the end of the game"
        raise SearchError(f"search: the root is {what}, not a player's decision")
    limit, config = request.limit, request.config
    if on_progress is not None and limit.workers != 1:
        raise SearchError("search: on_progress needs workers=1 (the callback runs in this process)")
    if reuse is not None and limit.workers != 1:
        raise SearchError("search: reuse needs workers=1 (the node table lives in this process)")
    start = time.perf_counter()
    budgets = split_iterations(limit.iterations, limit.workers)
    seeds = worker_seeds(limit.seed, len(budgets))
    kept = reuse if isinstance(reuse, KeptTree) else None
    python_table = reuse.nodes if isinstance(reuse, KeptTree) else reuse
    requests = native_plan(state, request, python_table)
    every = max(1, progress_every)
    by_win = config.root_selection == "uniform"
    reports = None if on_progress is None else _Reports(on_progress, player, state.legal_actions(), start, by_win)
    native_table = kept.native_table(state) if kept is not None and requests is not None else None
    answered = grown = None
    if requests is not None and reports is None:  # merged in the core
        answered = native_answer(state, requests, seeds, budgets, native_table)
    elif requests is not None and reports is not None:
        grown = native_trees(state, requests, seeds, budgets, native_table, on_progress=reports.native,
                             progress_every=every)
    if answered is not None:
        actions, chosen, per_worker, kept_trees = answered
        result = SearchResult.answered(player, actions, chosen, per_worker, time.perf_counter() - start, by_win,
                                       "native")
        trees = [tree_from_native(tree) for tree in kept_trees]
    elif grown is None:
        jobs = [TreeJob(state, request, seed, budget) for seed, budget in zip(seeds, budgets)]
        table = kept.python_nodes(nodes_from_native) if kept is not None else python_table
        if reports is not None or table is not None:
            jobs = [jobs[0]._replace(on_progress=None if reports is None else reports.python,
                                     progress_every=every, nodes=table)]
        outcomes = map_in_processes(run_tree, jobs)
        roots = [RootSums(o.sums, o.player_sums) for o in outcomes]
        result = SearchResult.from_trees(player, state.legal_actions(), roots, time.perf_counter() - start,
                                         by_win=by_win)
        trees = [o.tree for o in outcomes if o.tree is not None]
    else:
        result = SearchResult.from_trees(player, state.legal_actions(), [answers[0] for answers, *_ in grown],
                                         time.perf_counter() - start, by_win=by_win, backend="native")
        trees = [tree_from_native(tree) for *_, tree in grown if tree is not None]
    if config.oracle is not None:
        solved = config.oracle.exact_options(state)
        if solved is not None:
            result = with_exact_values(result, solved)
    if request.keep_tree:
        result = dataclasses.replace(result, tree=SearchTree.merged(trees))
    return result


@dataclass(frozen=True)
class StepSearch:
    """One search of several seats' decisions of a simultaneous step (:func:`search_step`)."""

    results: tuple[SearchResult, ...]
    """Each decision's result, read at its seat's node, in the decisions' order."""
    joint: dict[tuple[int, ...], JointCell]
    """Per joint action of the seats (in the decisions' order): the iterations that played it and
    every player's sums over them."""

    def chances_after(self, index: int, action: int, policies: Sequence[Mapping[int, float]],
                      ) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """Every player's mean return and final score after seat `index` plays `action` while each
        other seat plays its policy (action -> probability; e.g. its recommendation, or its mean
        strategy): the joint outcomes weighted by the others' policies, so the search's own
        exploration of their other options does not count. ``None`` where no joint action the
        policies give weight to was sampled with `action`."""
        total = 0.0
        sums: list[float] = []
        for cell, weight in self._cells(index, action, policies):
            values = [*cell.returns, *cell.scores]
            if not sums:
                sums = [0.0] * len(values)
            for i, value in enumerate(values):
                sums[i] += weight * value / cell.iterations
            total += weight
        if total <= 0:
            return None
        players = len(sums) // 2
        return (tuple(v / total for v in sums[:players]), tuple(v / total for v in sums[players:]))

    def support(self, index: int, action: int, policies: Sequence[Mapping[int, float]]) -> int:
        """The iterations behind :meth:`chances_after` of the same arguments."""
        return int(sum(cell.iterations for cell, _ in self._cells(index, action, policies)))

    def _cells(self, index: int, action: int, policies: Sequence[Mapping[int, float]],
               ) -> Iterator[tuple[JointCell, float]]:
        """The sampled joint outcomes with seat `index` at `action`, each with the weight the other
        seats' policies give it (those they give no weight left out)."""
        for joint, cell in self.joint.items():
            if joint[index] != action or cell.iterations <= 0:
                continue
            weight = 1.0
            for seat, chosen in enumerate(joint):
                if seat != index:
                    weight *= policies[seat].get(chosen, 0.0)
            if weight > 0:
                yield cell, weight


def search_step(decisions: Sequence[Game], request: SearchRequest,
                pinned: Mapping[int, int] | None = None) -> StepSearch:
    """One search for several seats' decisions of one simultaneous step (in seat order, each as that
    seat saw it): grown from the step's start, each seat's answer read at its own node, so every
    seat's option values and everyone's chances come from one viewpoint — where every seat's
    knowledge is shared. One result per decision, in order (``iterations`` each: every iteration
    passes every seat's node), and the joint outcomes. With `pinned` (decision index -> action)
    those seats play that action in every iteration: a verification of moves a free search would
    sample too rarely (and whose means would then be biased low by the selection).

    Raises:
        SearchError: no decisions, one of them not a player's decision, or a pinned action not
            legal there.
    """
    if not decisions:
        raise SearchError("search_step: no decisions")
    for decision in decisions:
        if decision.current_player() < 0:
            raise SearchError("search_step: every position must be a player's decision")
    for index, action in (pinned or {}).items():
        if not 0 <= index < len(decisions) or action not in decisions[index].legal_actions():
            raise SearchError(f"search_step: cannot pin action {action} at decision {index}")
    start = time.perf_counter()
    first, later = decisions[0], tuple(decisions[1:])
    limit, config = request.limit, request.config
    budgets = split_iterations(limit.iterations, limit.workers)
    seeds = worker_seeds(limit.seed, len(budgets))
    requests = native_plan(first, request)
    grown = None if requests is None else native_trees(first, requests, seeds, budgets, None, later, pinned)
    if grown is None:
        jobs = [TreeJob(first, request, seed, budget, also=later, pinned=pinned)
                for seed, budget in zip(seeds, budgets)]
        outcomes = map_in_processes(run_tree, jobs)
    else:
        outcomes = [TreeOutcome(answers[0].sums, answers[0].player_sums, done, time.perf_counter() - start, nodes,
                                None, tuple(answers), joint) for answers, joint, nodes, done, _ in grown]
    seconds = time.perf_counter() - start
    results = []
    for index, decision in enumerate(decisions):
        result = SearchResult.from_trees(decision.current_player(), decision.legal_actions(),
                                         [o.answers[index] for o in outcomes], seconds,
                                         by_win=config.root_selection == "uniform")
        if config.oracle is not None:
            solved = config.oracle.exact_options(decision)
            if solved is not None:
                result = with_exact_values(result, solved)
        results.append(result)
    joint: dict[tuple[int, ...], JointCell] = {}
    for outcome in outcomes:
        for key, cell in outcome.joint.items():
            if key in joint:
                joint[key].add(cell)
            else:
                joint[key] = cell.copy()
    return StepSearch(tuple(results), joint)
