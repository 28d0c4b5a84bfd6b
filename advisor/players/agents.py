"""In-process agents built from agent specs: bots and ISMCTS behind one ``choose(position, rng)``.

External engines (``cmd:``, ``rev:``) are built by the arena; other packages can add kinds with
:func:`register_agent_kind` (the OpenSpiel bridge does).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import random
from typing import TYPE_CHECKING, Callable, Hashable, Protocol

from advisor.players.specs import AgentSpec, AgentSpecError, parse_agent_spec
from positions import Position
from positions.errors import did_you_mean
from positions.kernel.actions import Action, action_from_code
from search.backend import KeptTree
from search.protocol import Evaluator, Policy
from search.request import SIMULTANEOUS_SELECTIONS, SearchRequest, SearchResult
from search.seeds import seed_from_stream

if TYPE_CHECKING:
    from search.ismcts import Progress


class Agent(Protocol):
    """Anything that picks a legal action for the player to decide."""

    name: str

    def choose(self, position: Position, rng: random.Random) -> Action:
        """A legal action for ``position.current_player()``; all randomness from `rng`."""
        ...


class PolicyAgent:
    """A bot or rollout policy used as a player, on the seat's view it is handed
    (:func:`positions.kernel.view.seat_view`: never another player's hidden choice)."""

    def __init__(self, name: str, policy) -> None:
        self.name = name
        self.policy = policy

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The policy's action on the seat's view `position`."""
        return action_from_code(self.policy.choose(position, rng))


AGENT_ROOT_NODES = 5_000
"""New positions an agent's root probe of ``exact=endgames`` may solve: tens of milliseconds, so
the probe stays a small part of a decision's time (the advisor allows more)."""

DEFAULT_CUTOFF = 8
"""Decisions a rollout plays before the evaluator judges it (``ismcts:cutoff=N``)."""

GROW_BASE = 1_000
"""``cutoff=grow``: the budget (iterations) at which the cut-off is ``DEFAULT_CUTOFF``."""
GROW_LIMITS = (2, 64)
"""``cutoff=grow``: the smallest and largest cut-off it gives (a 2-player game is ~200 events)."""
NOMINAL_RATE = 5_000
"""``cutoff=grow`` with ``seconds=S``: iterations a worker is taken to search per second (0.2 s is
counted as 1,000 iterations, the pairing docs/strength.md's curves use), so a time budget grows
the cut-off as the iteration budget it stands for, the same on every machine."""


def growing_cutoff(iterations: int | None, seconds: float | None, workers: int = 1) -> int:
    """``cutoff=grow``'s cut-off for a budget: ``DEFAULT_CUTOFF`` at ``GROW_BASE`` iterations,
    doubled with every 4× iterations (``8 * sqrt(n / 1000)``, rounded), within ``GROW_LIMITS``; a
    time budget counts as ``seconds * NOMINAL_RATE * workers`` iterations, the smaller budget
    deciding when both are given (docs/search.md)."""
    budgets = [float(iterations)] if iterations is not None else []
    if seconds is not None:
        budgets.append(float(seconds) * NOMINAL_RATE * workers)
    if not budgets:
        raise AgentSpecError("ismcts: cutoff=grow needs iterations or seconds")
    low, high = GROW_LIMITS
    return min(high, max(low, round(DEFAULT_CUTOFF * math.sqrt(max(0.0, min(budgets)) / GROW_BASE))))


REUSE_LIMIT = 400_000
"""Nodes a reused tree may hold before it starts afresh (memory stays bounded in long games)."""


class SearchAgent:
    """ISMCTS with an iteration and/or time budget per decision; keeps the last result.

    The defaults are what passed issue 16's SPRT (docs/strength.md): the heuristic as prior, exact
    endgames, rollouts cut off after ``DEFAULT_CUTOFF`` decisions and judged by the learned
    evaluator, and the tree kept between a game's decisions when there is one worker.
    ``prior=none,exact=none,evaluator=rollout,reuse=0`` is the search before it. ``step_root=1``
    searches a simultaneous decision others have chosen in from the step's start (issue 22), as
    the advisor does; the agent's default stays ``step_root=0`` (the others' hidden choices
    redrawn by ``belief``) until the step root passes its SPRT in play (docs/strength.md), and
    ``simultaneous=uct|rm|exp3`` picks the selection at the nodes of simultaneous steps.
    ``cutoff=grow`` sets the cut-off from the budget (:func:`growing_cutoff`, issue 27);
    ``model=PATH`` judges the cut-offs with the learned evaluator's model in that file (expert
    iteration's generations, docs/evaluator.md) instead of the shipped one, and
    ``prior=learned,prior_model=PATH`` takes the prior from a fitted policy file;
    ``chance_widening=K`` replays drawn tiles and weather inside the tree (double progressive
    widening, ``SearchRequest.chance_widening``) so that it grows deeper (issue 27);
    ``score_utility=W`` (with ``score_scale=VP``) makes every node maximise its chooser's return
    blended with their final-score margin (``SearchRequest.score_utility``).
    """

    def __init__(self, name: str, iterations: int | None = None, seconds: float | None = None,
                 exploration: float = 0.7, workers: int = 1, rollout: str = "heuristic",
                 cutoff: int | str | None = None, belief: str = "uniform", trust: float = 0.8,
                 prior: str = "heuristic", prior_weight: float = 1.0, exact: str = "endgames",
                 widening: float = 0.0, below: float | None = None, reuse: int | None = None,
                 evaluator: str = "learned", simultaneous: str = "uct", step_root: int = 0,
                 model: str | None = None, prior_model: str | None = None,
                 chance_widening: float = 0.0, score_utility: float = 0.0,
                 score_scale: float = 10.0) -> None:
        from advisor.players.bots import (
            DEFAULT_ROLLOUT, THRIFTY_ROLLOUT, HeuristicEvaluator, SearchedBelief, TrustedPolicy, random_bot)
        from advisor.players.learned import LearnedEvaluator, ModelFileError, load_model
        from advisor.players.learned_prior import LearnedPrior, load_policy
        from advisor.players.tablebase import ExactEndgames

        policies: dict[str, Policy[Position]] = {"heuristic": DEFAULT_ROLLOUT, "thrifty": THRIFTY_ROLLOUT,
                                                 "random": random_bot()}
        beliefs: dict[str, Policy[Position] | None] = {
            "uniform": None, "heuristic": TrustedPolicy(DEFAULT_ROLLOUT, trust), "search": SearchedBelief()}
        priors: dict[str, Policy[Position] | None] = {"none": None, "heuristic": DEFAULT_ROLLOUT,
                                                      "thrifty": THRIFTY_ROLLOUT, "learned": None}
        oracles: dict[str, ExactEndgames | None] = {
            "none": None, "endgames": ExactEndgames(AGENT_ROOT_NODES, shared=False)}
        evaluators: dict[str, Callable[[], Evaluator[Position]] | None] = {
            "rollout": None, "heuristic": HeuristicEvaluator, "learned": LearnedEvaluator}
        for option, value, table in (("rollout", rollout, policies), ("belief", belief, beliefs),
                                     ("prior", prior, priors), ("exact", exact, oracles),
                                     ("evaluator", evaluator, evaluators)):
            if value not in table:
                raise AgentSpecError(f"ismcts: unknown {option} {value!r} (expected {' or '.join(table)})")
        if model is not None:
            if evaluator != "learned":
                raise AgentSpecError(f"ismcts: model needs evaluator=learned, got evaluator={evaluator}")
            try:
                fitted = load_model(str(model))
            except ModelFileError as error:
                raise AgentSpecError(f"ismcts: model {error}") from None
            evaluators["learned"] = functools.partial(LearnedEvaluator, fitted)
        if (prior == "learned") != (prior_model is not None):
            raise AgentSpecError("ismcts: prior=learned and prior_model=PATH (a policy file of "
                                 "scripts/expert_iteration.py) go together")
        if prior_model is not None:
            try:
                priors["learned"] = LearnedPrior(load_policy(str(prior_model)))
            except ModelFileError as error:
                raise AgentSpecError(f"ismcts: prior_model {error}") from None
        make_evaluator = evaluators[evaluator]
        if isinstance(cutoff, (str, bool, float)) and cutoff != "grow":
            raise AgentSpecError(f"ismcts: cutoff must be an int >= 0 or grow, got {cutoff!r}")
        if make_evaluator is None and cutoff is not None:
            raise AgentSpecError(f"ismcts: cutoff={cutoff} needs an evaluator for the cut-off rollouts "
                                 "(evaluator=learned or heuristic), not evaluator=rollout")
        depth: int | None = None if make_evaluator is None else DEFAULT_CUTOFF
        if cutoff == "grow":
            budgets_ok = all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                             for v in (iterations, seconds, workers) if v is not None)
            # a budget that is not a number keeps DEFAULT_CUTOFF: the request below refuses it by name
            depth = growing_cutoff(iterations, seconds, workers) if budgets_ok else DEFAULT_CUTOFF
        elif isinstance(cutoff, int):
            depth = cutoff
        if simultaneous not in SIMULTANEOUS_SELECTIONS:
            raise AgentSpecError(f"ismcts: unknown simultaneous {simultaneous!r} "
                                 f"(expected {' or '.join(SIMULTANEOUS_SELECTIONS)})")
        if step_root not in (0, 1) or isinstance(step_root, bool):
            raise AgentSpecError(f"ismcts: step_root must be 0 or 1, got {step_root!r}")
        if reuse is None:
            reuse = 1 if workers == 1 else 0
        if reuse not in (0, 1) or isinstance(reuse, bool):
            raise AgentSpecError(f"ismcts: reuse must be 0 or 1, got {reuse!r}")
        if reuse and workers != 1:
            raise AgentSpecError("ismcts: reuse=1 needs workers=1 (the tree lives in this process)")
        self.name = name
        self.template = SearchRequest(iterations=iterations, seconds=seconds, exploration=exploration,
                                      workers=workers, rollout=policies[rollout], rollout_cutoff=depth,
                                      evaluator=None if make_evaluator is None else make_evaluator(),
                                      belief=beliefs[belief], prior=priors[prior],
                                      prior_weight=prior_weight, oracle=oracles[exact],
                                      widening=widening, exploration_below=below,
                                      chance_widening=chance_widening, score_utility=score_utility,
                                      score_scale=score_scale,
                                      simultaneous=simultaneous, step_root=bool(step_root))
        self.oracle = oracles[exact]
        """``exact=endgames``: this agent's own probes (``shared=False``), emptied at each new game."""
        self.reuse = bool(reuse)
        self.kept = KeptTree()
        """With reuse: the node table of this agent's searches in the current game (native while
        they run natively)."""
        self.kept_at: tuple[int, int] = (-1, -1)
        """With reuse: (walk, turn) of the last search; an earlier one means a new game or an undo."""
        self.kept_root: Hashable = None
        """With reuse: the last search's root information set."""
        self.last: SearchResult | None = None

    def request(self, seed: int) -> SearchRequest:
        """This agent's search request with the given seed."""
        return dataclasses.replace(self.template, seed=seed)

    def table_for(self, position: Position) -> KeptTree | None:
        """With reuse, the node table to grow for a search at `position` (``None`` without reuse):
        the kept one while it is the same game going forward to a new decision and already holds the
        root's information set, else a fresh one — so a result never depends on another game, and
        the same decision asked twice gets the same answer."""
        now = (position.walk, position.turn)
        if now < self.kept_at and self.oracle is not None:
            self.oracle.forget()  # a new game's probes start empty
        if not self.reuse:
            self.kept_at = now
            return None
        root = (position.current_player(), position.information_set_key(position.current_player()))
        if now < self.kept_at or root == self.kept_root or root not in self.kept or len(self.kept) > REUSE_LIMIT:
            self.kept = KeptTree()  # a decision asked again (an engine's repeated go, a hint) starts afresh too
        self.kept_at, self.kept_root = now, root
        return self.kept

    def choose(self, position: Position, rng: random.Random, on_progress: Progress | None = None,
               progress_every: int = 64) -> Action:
        """The most visited root action of a search seeded from `rng`; `on_progress` (one worker)
        watches the growing search and may stop it (:data:`search.ismcts.Progress`; the engine
        protocol's ``info`` and ``stop``)."""
        from search.ismcts import search

        legal = position.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self.last = search(position, self.request(seed_from_stream(rng)), on_progress=on_progress,
                           progress_every=progress_every, reuse=self.table_for(position))
        return action_from_code(self.last.chosen)


AgentFactory = Callable[[AgentSpec], Agent]
_KINDS: dict[str, AgentFactory] = {}
PLUGINS = {"openspiel-ismcts": "advisor.openspiel.agent"}
"""Agent kinds provided by packages above this one, by the module that registers them when imported
(by name, so the registry never imports its plug-ins)."""


def register_agent_kind(kind: str, factory: AgentFactory) -> None:
    """Let specs of this kind build agents with `factory`."""
    _KINDS[kind] = factory


def _bot(spec: AgentSpec) -> Agent:
    from advisor.players.bots import BOTS, HeuristicPolicy

    if spec.params:
        raise AgentSpecError(f"agent {spec.kind!r} takes no parameters, got {spec.text!r}")
    policy = HeuristicPolicy() if spec.kind == "heuristic" else BOTS[spec.kind]()
    return PolicyAgent(spec.text or spec.kind, policy)


def _ismcts(spec: AgentSpec) -> Agent:
    known = {"iterations", "seconds", "exploration", "workers", "rollout", "cutoff", "belief", "trust",
             "prior", "prior_weight", "exact", "widening", "below", "reuse", "evaluator", "simultaneous",
             "step_root", "model", "prior_model", "chance_widening", "score_utility", "score_scale"}
    unknown = set(spec.params) - known
    if unknown:
        raise AgentSpecError(f"ismcts: unknown parameter {sorted(unknown)[0]!r} "
                             f"(expected {', '.join(sorted(known))})")
    params = dict(spec.params)
    defaults = {name: p.default for name, p in inspect.signature(SearchAgent.__init__).parameters.items()}
    for option, needs, values in (("trust", "belief", ("heuristic",)),
                                  ("prior_weight", "prior", ("heuristic", "thrifty", "learned"))):
        if option in params and params.get(needs, defaults[needs]) not in values:
            raise AgentSpecError(f"ismcts: {option} needs {needs}={' or '.join(values)}, got {spec.text!r}")
    if "iterations" not in params and "seconds" not in params:
        params["iterations"] = 1000
    try:
        return SearchAgent(spec.text or "ismcts", **params)  # type: ignore[arg-type]
    except ValueError as error:
        raise AgentSpecError(f"agent spec {spec.text!r}: {error}") from None


BOT_KINDS = ("random", "heuristic", "cautious", "greedy", "thrifty")
"""The bots a spec can name (``heuristic``: ``HeuristicPolicy()``, the rest from ``bots.BOTS``)."""
for _name in BOT_KINDS:
    register_agent_kind(_name, _bot)
register_agent_kind("ismcts", _ismcts)


def agent_kinds() -> list[str]:
    """The in-process agent kinds a spec can name."""
    return sorted(set(_KINDS) | set(PLUGINS))


def make_agent(spec: AgentSpec | str) -> Agent:
    """The in-process agent a spec names.

    Raises:
        AgentSpecError: unknown kind or bad parameters.
    """
    if isinstance(spec, str):
        spec = parse_agent_spec(spec)
    if spec.kind in ("cmd", "rev"):
        raise AgentSpecError(f"{spec.text!r}: external engines are run by the arena, not in-process")
    if spec.kind in PLUGINS and spec.kind not in _KINDS:
        importlib.import_module(PLUGINS[spec.kind])  # the plug-in registers its kinds on import
    factory = _KINDS.get(spec.kind)
    if factory is None:
        raise unknown_agent(spec.kind)
    return factory(spec)


def unknown_agent(kind: str, also: tuple[str, ...] = ()) -> AgentSpecError:
    """The error for an agent kind no spec can name, with a "did you mean" among the kinds and `also`
    (``human`` where a person can take a seat)."""
    choices = [*also, *agent_kinds()]
    return AgentSpecError(f"unknown agent {kind!r}{did_you_mean(kind, choices)} (expected one of "
                          f"{', '.join(choices)}, cmd:COMMAND or rev:GITREF:SPEC)")
