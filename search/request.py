"""What a search is asked (:class:`SearchRequest`) and what it answers (:class:`SearchResult`)."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import Any, Hashable, Mapping, Sequence

from search.errors import SearchConfigError
from search.protocol import Evaluator, ExactValues, Policy
from search.records import PlayerSums, RootStats

ROOT_SELECTIONS = ("uct", "uniform")
"""How the root picks its action each iteration (see ``SearchConfig.root_selection``)."""
SIMULTANEOUS_SELECTIONS = ("uct", "rm", "exp3")
"""How a node of a simultaneous step picks its action (see ``SearchConfig.simultaneous``)."""
MIXING = 0.1
"""With ``simultaneous="rm"`` or ``"exp3"``: the share of uniform exploration mixed into a node's strategy."""
Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


@dataclass(frozen=True)
class Limit:
    """How long one search runs and from which seed (python-chess's ``Limit``); checked when built.

    With an ``iterations`` limit the result depends only on the seed and the worker count. A
    ``seconds`` limit stops on the clock, so how many iterations run (and hence the result) varies
    from run to run; with both, whichever comes first stops the search.
    """

    iterations: int | None = None
    """Iterations in all (split across workers); ``None``: no iteration limit."""
    seconds: float | None = None
    """Wall-clock budget for each worker; ``None``: no time limit."""
    seed: int = 0
    """Every random choice of the search flows from this seed."""
    workers: int = 1
    """Independent trees searched in separate processes, their root statistics merged."""

    def __post_init__(self) -> None:
        if self.iterations is None and self.seconds is None:
            raise SearchConfigError("search request: give iterations, seconds or both")
        if self.iterations is not None and (not isinstance(self.iterations, int)
                                            or isinstance(self.iterations, bool)
                                            or self.iterations < 1):
            raise SearchConfigError(f"search request: iterations must be an int >= 1, got {self.iterations!r}")
        if self.seconds is not None and not (isinstance(self.seconds, (int, float)) and self.seconds > 0
                                             and math.isfinite(self.seconds)):
            raise SearchConfigError(f"search request: seconds must be a positive number, got {self.seconds!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise SearchConfigError(f"search request: seed must be an int, got {self.seed!r}")
        if not isinstance(self.workers, int) or isinstance(self.workers, bool) or self.workers < 1:
            raise SearchConfigError(f"search request: workers must be an int >= 1, got {self.workers!r}")
        if self.iterations is not None and self.workers > self.iterations:
            raise SearchConfigError(
                f"search request: {self.workers} workers for only {self.iterations} iterations")


@dataclass(frozen=True)
class SearchConfig:
    """What a search is, apart from its limit: a named configuration (the presets are in
    ``advisor/players/presets.py``); checked when built. The defaults are plain UCT with random
    rollouts to the end, grown from a simultaneous step's start."""

    exploration: float = 0.7
    """The UCT exploration constant at the root (returns are in [0, 1])."""
    exploration_below: float | None = None
    """The UCT constant below the root; ``None``: ``exploration``."""
    widening: float = 0.0
    """Progressive widening below the root, guided by ``rollout``: a node visited n times considers
    the policy's action and ``floor(widening * sqrt(n))`` others; 0: every legal action (plain UCT)."""
    rollout: Policy[Any] | None = None
    """Picks decisions after the tree; ``None``: uniformly random."""
    rollout_cutoff: int | None = None
    """After this many rollout decisions, stop and ask ``evaluator``; ``None``: roll out to the end."""
    evaluator: Evaluator[Any] | None = None
    """Estimates returns and final scores where a rollout is cut off."""
    prior: Policy[Any] | None = None
    """Progressive bias: at each node, the action this policy picks gets
    ``prior_weight / (visits + 1)`` added to its UCT value and is tried first; ``None``: no prior."""
    prior_weight: float = 1.0
    """The weight of the prior's bias (returns are in [0, 1])."""
    oracle: ExactValues[Any] | None = None
    """Exact values: where it answers, a simulation takes these exact values instead of rolling out, and the root
    options' values are replaced by exact ones (marked ``exact``); ``None``: estimates only."""
    root_selection: str = "uct"
    """``"uct"``: the root selects like every node and the most visited action is chosen.
    ``"uniform"``: every root action gets an equal share of iterations (UCT below), so each
    option's estimate is equally sharp, and the action with the best mean win is chosen."""
    simultaneous: str = "uct"
    """Selection at the nodes of simultaneous steps (decoupled simultaneous-move MCTS): ``"uct"``
    like every node; ``"rm"`` regret matching or ``"exp3"`` Exp3, each mixed with ``MIXING``
    uniform exploration (Lisý et al. 2013; Lanctot, Lisý & Winands 2014): they converge to an
    equilibrium of the step where UCT converges to a best reply; the answer's ``share`` is then
    the searching player's mean strategy. The prior's bias does not apply at these nodes."""
    step_root: bool = True
    """At a simultaneous decision where others have already chosen unseen, grow the tree from the
    step's start (the game's ``step_start``, see :class:`~search.protocol.StepStart`): every seat's
    choice is selected by its own node and the answer is read at the searching player's node.
    ``False``: grow it from the decision, the others' hidden choices redrawn uniformly by the
    determinization."""

    def __post_init__(self) -> None:
        if not (_is_real(self.exploration) and self.exploration >= 0):
            raise SearchConfigError(
                f"search request: exploration must be a number >= 0, got {self.exploration!r}")
        if self.exploration_below is not None and not (_is_real(self.exploration_below)
                                                       and self.exploration_below >= 0):
            raise SearchConfigError(f"search request: exploration_below must be a number >= 0, "
                                    f"got {self.exploration_below!r}")
        if not (_is_real(self.widening) and self.widening >= 0):
            raise SearchConfigError(f"search request: widening must be a number >= 0, got {self.widening!r}")
        if self.rollout_cutoff is not None:
            if not isinstance(self.rollout_cutoff, int) or self.rollout_cutoff < 0:
                raise SearchConfigError(
                    f"search request: rollout_cutoff must be an int >= 0, got {self.rollout_cutoff!r}")
            if self.evaluator is None:
                raise SearchConfigError("search request: rollout_cutoff needs an evaluator")
        for name in ("rollout", "prior"):
            policy = getattr(self, name)
            if policy is not None and not callable(getattr(policy, "choose", None)):
                raise SearchConfigError(f"search request: {name} {policy!r} has no choose(state, rng)")
        if not (_is_real(self.prior_weight) and self.prior_weight >= 0):
            raise SearchConfigError(
                f"search request: prior_weight must be a number >= 0, got {self.prior_weight!r}")
        if self.oracle is not None and not callable(getattr(self.oracle, "exact_value", None)):
            raise SearchConfigError(f"search request: oracle {self.oracle!r} has no exact_value(state)")
        if self.root_selection not in ROOT_SELECTIONS:
            raise SearchConfigError(f"search request: root_selection must be one of "
                                    f"{', '.join(ROOT_SELECTIONS)}, got {self.root_selection!r}")
        if self.simultaneous not in SIMULTANEOUS_SELECTIONS:
            raise SearchConfigError(f"search request: simultaneous must be one of "
                                    f"{', '.join(SIMULTANEOUS_SELECTIONS)}, got {self.simultaneous!r}")
        if not isinstance(self.step_root, bool):
            raise SearchConfigError(f"search request: step_root must be a bool, got {self.step_root!r}")


LIMIT_FIELDS = tuple(f.name for f in dataclasses.fields(Limit))
CONFIG_FIELDS = tuple(f.name for f in dataclasses.fields(SearchConfig))


@dataclass(frozen=True)
class SearchRequest:
    """One search: its :class:`Limit`, its :class:`SearchConfig`, and whether to keep the tree."""

    limit: Limit
    config: SearchConfig = field(default_factory=SearchConfig)
    keep_tree: bool = False
    """Return the whole tree (every information-set node and the edges walked) for inspection."""

    @classmethod
    def of(cls, config: SearchConfig | None = None, *, keep_tree: bool = False, **fields: Any) -> "SearchRequest":
        """A request with the limit in `fields` (``iterations``, ``seconds``, ``seed``, ``workers``)
        and `config` (default: :class:`SearchConfig`'s) with the rest of `fields` changed by name.

        Raises:
            SearchConfigError: a field neither has, or a value either refuses.
        """
        _check_names(fields)
        config = config or SearchConfig()
        changed = {k: v for k, v in fields.items() if k in CONFIG_FIELDS}
        return cls(Limit(**{k: v for k, v in fields.items() if k in LIMIT_FIELDS}),
                   dataclasses.replace(config, **changed) if changed else config, keep_tree)

    @property
    def iterations(self) -> int | None:
        """The limit's iterations."""
        return self.limit.iterations

    @property
    def seconds(self) -> float | None:
        """The limit's seconds."""
        return self.limit.seconds

    @property
    def seed(self) -> int:
        """The limit's seed."""
        return self.limit.seed

    @property
    def workers(self) -> int:
        """The limit's workers."""
        return self.limit.workers

    def replace(self, **fields: Any) -> "SearchRequest":
        """This request with `fields` of its limit, its configuration or ``keep_tree`` changed by name.

        Raises:
            SearchConfigError: a field neither has, or a value either refuses.
        """
        _check_names(fields, "keep_tree")
        limit = {k: v for k, v in fields.items() if k in LIMIT_FIELDS}
        config = {k: v for k, v in fields.items() if k in CONFIG_FIELDS}
        return SearchRequest(dataclasses.replace(self.limit, **limit) if limit else self.limit,
                             dataclasses.replace(self.config, **config) if config else self.config,
                             fields.get("keep_tree", self.keep_tree))


def _check_names(fields: Mapping[str, Any], *also: str) -> None:
    """Refuse a field that neither the limit nor the configuration has (nor one of `also`)."""
    unknown = sorted(set(fields) - set(LIMIT_FIELDS) - set(CONFIG_FIELDS) - set(also))
    if unknown:
        raise SearchConfigError(f"search request: unknown field {unknown[0]!r}")


def _is_real(value: object) -> bool:
    """A finite int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def wilson_interval(mean: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a success rate `mean` seen over `n` trials ((0, 1) when n = 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, mean))
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def worker_spread(means: Sequence[float], visits: Sequence[int], z: float = Z95) -> float:
    """The 95% half-width of a merged mean implied by the spread between independent trees.

    Each tree's mean is weighted by its share of the visits; the spread of the weighted means
    estimates the merged mean's variance (0 with fewer than two trees that visited the action).
    """
    seen = [(m, n) for m, n in zip(means, visits) if n > 0]
    if len(seen) < 2:
        return 0.0
    total = sum(n for _, n in seen)
    merged = sum(m * n for m, n in seen) / total
    variance = sum((n / total) ** 2 * (m - merged) ** 2 for m, n in seen) * len(seen) / (len(seen) - 1)
    return z * math.sqrt(variance)


@dataclass(frozen=True)
class ActionStats:
    """One root action's statistics, from the searching player's point of view."""

    action: int
    visits: int
    win: float
    """Mean return (win share, C18) over the iterations that played this action."""
    ci_low: float
    ci_high: float
    """The 95% noise interval of ``win``: the Wilson interval, widened to the spread between
    independent trees (workers) when that is larger. It measures the search's Monte Carlo noise
    around its own mean, not the bias of the continuation below the tree (docs/search.md)."""
    score: float
    """Mean final score of the searching player over those iterations."""
    wins: tuple[float, ...] = ()
    """Every player's mean return over those iterations (they sum to 1: C18)."""
    scores: tuple[float, ...] = ()
    """Every player's mean final score over those iterations."""
    exact: bool = False
    """The values are exact (solved), not estimated: the interval is the point."""
    score_noise: float = math.inf
    """The 95% half-width of ``score``'s Monte Carlo noise (normal approximation)."""
    share: float | None = None
    """At a simultaneous decision searched with regret matching or Exp3: this action's probability
    in the searching player's mean strategy (the equilibrium mix); ``None`` under UCT."""
    samples: int = 0
    """The iterations behind ``wins``, ``scores`` and ``score_noise``: this search's own (``visits``
    also counts those of a tree kept from the same player's earlier searches, tree reuse)."""

    @classmethod
    def from_sums(cls, action: int, visits: int, value_sum: float, score_sum: float,
                  player_sums: PlayerSums | None = None, spread: float = 0.0,
                  share: float | None = None, player: int = 0) -> "ActionStats":
        """Statistics from raw sums; `player_sums` every player's sums (``None``: the searcher's
        only), averaged over the iterations they sum (``count``), the searching `player`'s scores
        giving ``score_noise``; `spread` the half-width implied by the spread between trees (see
        :func:`worker_spread`)."""
        win = value_sum / visits if visits else 0.0
        score = score_sum / visits if visits else 0.0
        low, high = wilson_interval(win, visits)
        if spread > 0 and visits:
            low, high = min(low, max(0.0, win - spread)), max(high, min(1.0, win + spread))
        wins: tuple[float, ...] = ()
        scores: tuple[float, ...] = ()
        score_noise = math.inf
        samples = 0
        if player_sums is not None and player_sums.count:
            count = player_sums.count
            samples = int(count)
            wins = tuple(v / count for v in player_sums.returns)
            scores = tuple(v / count for v in player_sums.scores)
            if count > 1:
                mean = scores[player]
                variance = max(0.0, player_sums.squared_score / count - mean * mean)
                score_noise = Z95 * math.sqrt(variance * count / (count - 1) / count)
        return cls(action, visits, win, low, high, score, wins, scores, score_noise=score_noise, share=share,
                   samples=samples)

    @property
    def half_width(self) -> float:
        """Half the width of the noise interval (infinite when never visited)."""
        if self.exact:
            return 0.0
        return (self.ci_high - self.ci_low) / 2 if self.visits else math.inf


_AFTER_ACTION = tuple(f.name for f in dataclasses.fields(ActionStats))[1:]
_new_object = object.__new__


def action_stats(action: int, fields: Sequence[Any]) -> ActionStats:
    """The :class:`ActionStats` of `action` with all its other fields in order (a native core's
    merged answer, one per root action of a search), set without the frozen dataclass's
    ``__init__`` (which has nothing to check: it sets the fields one call each)."""
    stats = _new_object(ActionStats)
    values = vars(stats)
    values["action"] = action
    values.update(zip(_AFTER_ACTION, fields))
    return stats


def within_noise(first: ActionStats, second: ActionStats) -> bool:
    """Whether two options' win estimates differ by no more than their combined noise."""
    return abs(first.win - second.win) <= math.hypot(first.half_width, second.half_width)


@dataclass(frozen=True)
class RootSums:
    """One tree's root: every action's :class:`~search.records.RootStats` and every player's
    :class:`~search.records.PlayerSums` behind it."""

    sums: dict[int, RootStats]
    player_sums: dict[int, PlayerSums]

    @property
    def iterations(self) -> int:
        """Iterations this tree ran (every one visits one root action)."""
        return int(sum(s.visits for s in self.sums.values()))


UNVISITED = RootStats(0.0, 0.0, 0.0)
"""The sums of a root action no iteration played."""
CONTENDER_SHARE = 0.1
"""Under UCT, options with fewer visits than this share of the most visited one are not
recommended: UCT starved them, so their mean rests on too few samples to be trusted."""


@dataclass(frozen=True)
class Recommendation:
    """The option an advisor recommends, the runner-up, and whether they are within noise."""

    action: int
    runner_up: int | None
    within_noise: bool
    """The runner-up's win chance is within the combined noise of the recommendation's."""


Following = dict[tuple[Hashable, int], dict[Hashable, int]]
"""Edges by where they start: (node, action) -> {next node: times walked}."""


@dataclass(frozen=True)
class SearchTree:
    """A search tree for inspection: per node ``(player, key)`` and action, (visits, value_sum); and
    how often each edge (node, action, next node) was walked. Chance sits inside the edges."""

    nodes: dict[Hashable, dict[int, tuple[float, float]]]
    following: Following
    """The edges walked, indexed by where they start (what the principal line and the intervals
    read; kept this way by the search itself, so a report of a growing tree needs no index)."""

    @classmethod
    def from_edges(cls, nodes: dict[Hashable, dict[int, tuple[float, float]]],
                   edges: Mapping[tuple[Hashable, int, Hashable], int]) -> "SearchTree":
        """A tree from its nodes and its edges as ``(node, action, next node) -> times walked``."""
        following: Following = {}
        for (parent, action, child), walked in edges.items():
            bucket = following.setdefault((parent, action), {})
            bucket[child] = bucket.get(child, 0) + walked
        return cls(nodes, following)

    @functools.cached_property
    def edges(self) -> dict[tuple[Hashable, int, Hashable], int]:
        """Every edge walked, ``(node, action, next node) -> times walked``."""
        return {(parent, action, child): walked
                for (parent, action), children in self.following.items()
                for child, walked in children.items()}

    @classmethod
    def merged(cls, trees: Sequence["SearchTree"]) -> "SearchTree":
        """The trees of several workers as one (their statistics added up)."""
        nodes: dict[Hashable, dict[int, tuple[float, float]]] = {}
        following: Following = {}
        for tree in trees:
            for key, stats in tree.nodes.items():
                node = nodes.setdefault(key, {})
                for action, (visits, value) in stats.items():
                    old = node.get(action, (0.0, 0.0))
                    node[action] = (old[0] + visits, old[1] + value)
            for start, children in tree.following.items():
                bucket = following.setdefault(start, {})
                for child, walked in children.items():
                    bucket[child] = bucket.get(child, 0) + walked
        return cls(nodes, following)


@dataclass(frozen=True)
class SearchResult:
    """What a search found: per-action statistics at the root and the action it picks."""

    player: int
    """The searching player: every statistic is from their point of view."""
    actions: tuple[ActionStats, ...]
    """Every legal root action, in the game's order."""
    chosen: int
    """The action with most visits (ties: higher win rate, then the game's order); with
    ``root_selection="uniform"``, the best mean win (ties: more visits, then the game's order);
    with a mean strategy (regret matching or Exp3 at a simultaneous decision), its likeliest
    action (ties: more visits, higher win rate, the game's order)."""
    iterations: int
    seconds: float
    workers: int = 1
    per_worker_iterations: tuple[int, ...] = field(default=())
    tree: SearchTree | None = None
    """The whole tree, if the request asked to keep it."""
    by_win: bool = False
    """The root selection was uniform, so ``chosen`` is the best mean win."""
    backend: str = "python"
    """Which engine grew the trees: ``"python"`` or ``"native"`` (the game's native core; the same
    statistics, see :mod:`search.backend`)."""

    @property
    def recommendation(self) -> Recommendation:
        """The best win chance among the contenders; options within noise of it are tied, and the
        higher expected score breaks the tie (then win, visits, the game's order).

        Contenders are every visited option under uniform root selection; under UCT, those with at
        least ``CONTENDER_SHARE`` of the most visits.
        """
        order = {s.action: i for i, s in enumerate(self.actions)}
        contenders = [s for s in self.actions if self.is_contender(s)]
        leader = max(contenders, key=lambda s: (s.win, s.visits, -order[s.action]))
        tied = [s for s in contenders if within_noise(leader, s)]
        best = max(tied, key=lambda s: (s.score, s.win, s.visits, -order[s.action]))
        rest = [s for s in self.actions if s.action != best.action and (s.visits or s.exact)]
        if not rest:
            return Recommendation(best.action, None, False)
        second = max(rest, key=lambda s: (self.is_contender(s), s.win, s.score, s.visits,
                                          -order[s.action]))
        return Recommendation(best.action, second.action, within_noise(best, second))

    def is_contender(self, stats: ActionStats) -> bool:
        """Whether an option's estimate rests on enough visits to be recommended (exact ones do)."""
        if stats.exact:
            return True
        most = max(s.visits for s in self.actions)
        return stats.visits >= (1 if self.by_win else max(1.0, CONTENDER_SHARE * most))

    def stats(self, action: int) -> ActionStats:
        """The statistics of one root action.

        Raises:
            KeyError: the action was not legal at the root.
        """
        for entry in self.actions:
            if entry.action == action:
                return entry
        raise KeyError(action)

    @classmethod
    def from_trees(cls, player: int, legal: Sequence[int], trees: Sequence[RootSums],
                   seconds: float, by_win: bool = False, backend: str = "python") -> "SearchResult":
        """A result merging independent trees' root sums (root parallelisation): the sums add up,
        and each interval is widened to the spread between the trees when that is larger;
        `backend` the engine that grew them."""
        merged, players = (trees[0].sums, trees[0].player_sums) if len(trees) == 1 else _merged(trees)
        actions = []
        policy_total = sum(s.policy_sum for a, s in merged.items() if a in legal)
        for action in legal:
            stats = merged.get(action, UNVISITED)
            share = stats.policy_sum / policy_total if policy_total > 0 else None
            spread = 0.0  # one tree has no spread between trees
            if len(trees) > 1:
                seen = [t.sums.get(action, UNVISITED) for t in trees]
                spread = worker_spread([s.value_sum / s.visits if s.visits else 0.0 for s in seen],
                                       [int(s.visits) for s in seen])
            actions.append(ActionStats.from_sums(action, int(stats.visits), stats.value_sum, stats.score_sum,
                                                 players.get(action), spread, share, player))
        order = {a: i for i, a in enumerate(legal)}
        if by_win:
            chosen = max(actions, key=lambda s: (s.win, s.visits, -order[s.action])).action
        elif policy_total > 0:
            chosen = max(actions, key=lambda s: (s.share or 0.0, s.visits, s.win, -order[s.action])).action
        else:
            chosen = max(actions, key=lambda s: (s.visits, s.win, -order[s.action])).action
        return cls.answered(player, tuple(actions), chosen, tuple(t.iterations for t in trees), seconds,
                            by_win, backend)

    @classmethod
    def answered(cls, player: int, actions: tuple[ActionStats, ...], chosen: int, per_worker: tuple[int, ...],
                 seconds: float, by_win: bool = False, backend: str = "python") -> "SearchResult":
        """The result of merged trees' `actions` and `chosen` (:meth:`from_trees`, or a native
        core's merge), each worker's iterations `per_worker`."""
        result = _new_object(cls)  # every field set here: the frozen dataclass's __init__ has nothing to check
        vars(result).update(player=player, actions=actions, chosen=chosen, iterations=sum(per_worker), seconds=seconds,
                            workers=len(per_worker), per_worker_iterations=per_worker, tree=None, by_win=by_win,
                            backend=backend)
        return result


def _merged(trees: Sequence[RootSums]) -> tuple[dict[int, RootStats], dict[int, PlayerSums]]:
    """Several trees' root sums added up, per action (the trees' own left unchanged)."""
    merged: dict[int, RootStats] = {}
    players: dict[int, PlayerSums] = {}
    for tree in trees:
        for action, stats in tree.sums.items():
            merged[action] = merged[action].plus(stats) if action in merged else stats
        for action, sums in tree.player_sums.items():
            if action in players:
                players[action].add(sums)
            else:
                players[action] = sums.copy()
    return merged, players


def with_exact_values(result: SearchResult,
                      exact: Mapping[int, tuple[Sequence[float], Sequence[float]]]) -> SearchResult:
    """`result` with each root option's values replaced by its exact ones (the interval a point)."""
    actions = []
    for stats in result.actions:
        known = exact.get(stats.action)
        if known is not None:
            returns, scores = known
            win, score = float(returns[result.player]), float(scores[result.player])
            stats = dataclasses.replace(stats, win=win, ci_low=win, ci_high=win, score=score,
                                        wins=tuple(float(r) for r in returns),
                                        scores=tuple(float(s) for s in scores), exact=True,
                                        score_noise=0.0)
        actions.append(stats)
    return dataclasses.replace(result, actions=tuple(actions))


