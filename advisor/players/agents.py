"""In-process agents built from agent specs: bots and ISMCTS behind one ``choose(position, rng)``.

External engines (``cmd:``, ``rev:``) are built by the arena; other packages can add kinds with
:func:`register_agent_kind` (the OpenSpiel bridge does).
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol, runtime_checkable

from advisor.players.specs import AgentSpec, AgentSpecError, parse_agent_spec
from positions import Position
from positions.errors import did_you_mean
from positions.kernel.actions import Action, action_from_code
from search.backend import KeptTree
from search.request import LIMIT_FIELDS, Limit, SearchConfig, SearchRequest, SearchResult
from search.seeds import seed_from_stream

if TYPE_CHECKING:
    from search.ismcts import Progress


class Agent(Protocol):
    """Anything that picks a legal action for the player to decide."""

    name: str

    def choose(self, position: Position, rng: random.Random) -> Action:
        """A legal action for ``position.current_player()``; all randomness from `rng`."""
        ...


class ChanceStreams(Protocol):
    """The chance of one deal as the game loop draws it (``games.DealStreams``)."""

    def stream(self, position: Position) -> random.Random:
        """The stream that decides the pending chance event of `position`."""
        ...

    def copy(self) -> "ChanceStreams":
        """Independent streams at the same states."""
        ...

    def states(self) -> list[tuple[list[int], int]]:
        """Every stream's Mersenne Twister state (its 624 words and its index), in a fixed order."""
        ...


@runtime_checkable
class Foresees(Protocol):
    """An agent that sees the deal's future (the omniscient agent, ``advisor.players.omniscient``):
    the game loop hands it the whole position and a copy of the chance streams, not a seat's view."""

    def choose_foreseen(self, position: Position, streams: ChanceStreams, rng: random.Random) -> Action:
        """A legal action for ``position.current_player()``, knowing every chance outcome to come:
        they are what `streams` will draw (its own copy: drawing from it changes nothing else)."""
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


REUSE_LIMIT = 400_000
"""Nodes a reused tree may hold before it starts afresh (memory stays bounded in long games)."""


class SearchAgent:
    """ISMCTS with a :class:`~search.request.Limit` per decision and a search configuration
    (default: the agent's preset, :func:`advisor.players.presets.agent_config`); keeps the last
    result. With `reuse` (default: with one worker) the tree is kept between a game's decisions."""

    def __init__(self, name: str, limit: Limit, config: SearchConfig | None = None,
                 reuse: bool | None = None) -> None:
        if config is None:
            from advisor.players.presets import agent_config

            config = agent_config()
        if reuse is None:
            reuse = limit.workers == 1
        if reuse and limit.workers != 1:
            raise AgentSpecError(f"{name}: reuse=1 needs workers=1 (the tree lives in this process)")
        self.name = name
        self.template = SearchRequest(limit, config)
        self.oracle: Any = config.oracle if callable(getattr(config.oracle, "forget", None)) else None
        """Exact endgames with probes of this agent's own, emptied at each new game."""
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
        template = self.template
        return SearchRequest(dataclasses.replace(template.limit, seed=seed), template.config, template.keep_tree)

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
PLUGINS = {"openspiel-ismcts": "advisor.openspiel.agent", "omniscient": "advisor.players.omniscient"}
"""Agent kinds provided by modules that import this one, by the module that registers them when
imported (by name, so the registry never imports its plug-ins)."""


def register_agent_kind(kind: str, factory: AgentFactory) -> None:
    """Let specs of this kind build agents with `factory`."""
    _KINDS[kind] = factory


def _bot(spec: AgentSpec) -> Agent:
    from advisor.players.bots import BOTS, HeuristicPolicy

    if spec.params:
        raise AgentSpecError(f"agent {spec.kind!r} takes no parameters, got {spec.text!r}")
    policy = HeuristicPolicy() if spec.kind == "heuristic" else BOTS[spec.kind]()
    return PolicyAgent(spec.text or spec.kind, policy)


ISMCTS_OPTIONS = ("iterations", "seconds", "workers", "exploration", "rollout", "cutoff", "prior",
                  "prior_weight", "exact", "evaluator", "step_root", "reuse")
"""What an ``ismcts:`` spec may set: the limit, and changes to the agent's preset (docs/search.md)."""


def _choice(kind: str, option: str, value: object, table: dict[str, Any]) -> Any:
    """The entry of `table` an option's value names, or the one-line refusal."""
    if value not in table:
        raise AgentSpecError(f"{kind}: unknown {option} {value!r} (expected {' or '.join(table)})")
    return table[value]


def _flag(kind: str, option: str, value: object) -> bool:
    """A 0-or-1 option's value, or the one-line refusal."""
    if value not in (0, 1) or isinstance(value, bool):
        raise AgentSpecError(f"{kind}: {option} must be 0 or 1, got {value!r}")
    return bool(value)


def _ismcts(spec: AgentSpec) -> Agent:
    """The search agent an ``ismcts:`` spec names: the agent's preset with the spec's changes."""
    request, reuse = search_spec(spec, ISMCTS_OPTIONS)
    return SearchAgent(spec.text or spec.kind, request.limit, request.config, reuse)


def search_spec(spec: AgentSpec, options: tuple[str, ...],
                defaults: dict[str, object] | None = None) -> tuple[SearchRequest, bool | None]:
    """The search request and tree reuse (``None``: the agent's default) a search agent's spec
    names: the agent's preset with `defaults`, then the spec's changes (among `options`, a subset
    of :data:`ISMCTS_OPTIONS`); refusals name the spec's kind."""
    from advisor.players.bots import DEFAULT_ROLLOUT, HeuristicEvaluator, random_bot
    from advisor.players.learned import LearnedEvaluator
    from advisor.players.presets import AGENT_ROOT_NODES, DEFAULT_CUTOFF, agent_config
    from advisor.players.tablebase import ExactEndgames

    kind = spec.kind
    unknown = set(spec.params) - set(options)
    if unknown:
        raise AgentSpecError(f"{kind}: unknown parameter {sorted(unknown)[0]!r} "
                             f"(expected {', '.join(sorted(options))})")
    params = {**(defaults or {}), **spec.params}
    if "iterations" not in params and "seconds" not in params:
        params["iterations"] = 1000
    changes: dict[str, Any] = {}
    if "prior_weight" in params and params.get("prior", "heuristic") == "none":
        raise AgentSpecError(f"{kind}: prior_weight needs prior=heuristic, got {spec.text!r}")
    for option, field, table in (
            ("rollout", "rollout", {"heuristic": DEFAULT_ROLLOUT, "random": random_bot()}),
            ("prior", "prior", {"heuristic": DEFAULT_ROLLOUT, "none": None}),
            ("exact", "oracle", {"endgames": "endgames", "none": None}),
            ("evaluator", "evaluator", {"learned": LearnedEvaluator, "heuristic": HeuristicEvaluator,
                                        "rollout": None})):
        if option in params:
            changes[field] = _choice(kind, option, params[option], table)
    if changes.get("oracle") == "endgames":
        changes["oracle"] = ExactEndgames(AGENT_ROOT_NODES, shared=False)
    if "evaluator" in changes:
        make = changes.pop("evaluator")
        changes["evaluator"] = make() if make is not None else None
        changes["rollout_cutoff"] = DEFAULT_CUTOFF if make is not None else None
    cutoff = params.get("cutoff")
    if cutoff is not None:
        if not isinstance(cutoff, int) or isinstance(cutoff, bool):
            raise AgentSpecError(f"{kind}: cutoff must be an int >= 0, got {cutoff!r}")
        if "evaluator" in changes and changes["evaluator"] is None:
            raise AgentSpecError(f"{kind}: cutoff={cutoff} needs an evaluator for the cut-off rollouts "
                                 "(evaluator=learned or heuristic), not evaluator=rollout")
        changes["rollout_cutoff"] = cutoff
    for option in ("exploration", "prior_weight"):
        if option in params:
            changes[option] = params[option]
    if "step_root" in params:
        changes["step_root"] = _flag(kind, "step_root", params["step_root"])
    reuse = _flag(kind, "reuse", params["reuse"]) if "reuse" in params else None
    try:
        changes.update({k: params[k] for k in LIMIT_FIELDS if k in params})
        return SearchRequest.of(agent_config(), **changes), reuse
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
