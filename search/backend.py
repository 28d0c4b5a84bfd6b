"""Which engine grows a search's trees: the game's native core (one call per tree, the GIL released,
workers as threads) when it is built and copies the request exactly, else the Python tree.

``REFUGE_BACKEND=python`` or ``native`` forces either (``native`` refuses, naming why, a search the
core cannot run); unset, the native core runs whatever it supports. The native trees equal the
Python ones bit for bit (tests/native/test_search_identity.py), so the choice changes the speed,
never the answer.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Hashable, Iterable, Mapping, NamedTuple, Sequence

from search.errors import SearchError
from search.policies import UniformRandom
from search.protocol import Game, NativeAnswer, NativeKept
from search.records import JointCell, PlayerSums, RootStats
from search.request import MIXING, ActionStats, RootSums, SearchRequest, action_stats

BACKEND_ENV = "REFUGE_BACKEND"
"""``python`` or ``native``: force the search's engine (unset: native where it can)."""
BACKENDS = ("python", "native")
NativeOutcome = tuple[list[RootSums], dict[tuple[int, ...], JointCell], int, int, NativeKept | None]
"""One natively grown tree: every answer's root sums, the joint cells, its nodes, its iterations, and
with ``keep_tree`` its kept tree as the core exports it."""


_forced: str | None = None
"""``REFUGE_BACKEND`` as last read (``None``: read it again): the backend is asked several times per
search (its plan, every worker's probes), and ``os.environ.get`` of an unset name costs a caught
``KeyError`` (≈ 6 µs on this machine)."""


def _environment_changed(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook (``sys.addaudithook``): ``os.environ`` set or removed ``REFUGE_BACKEND``
    (its ``putenv``/``unsetenv``: ``monkeypatch.setenv``, a CLI's ``os.environ[...] = ...``), so
    :func:`forced_backend` reads it again."""
    global _forced
    if (event == "os.putenv" or event == "os.unsetenv") and args and args[0] in _BACKEND_NAMES:
        _forced = None


_BACKEND_NAMES = (BACKEND_ENV, BACKEND_ENV.encode())
sys.addaudithook(_environment_changed)


def forced_backend() -> str:
    """The engine ``REFUGE_BACKEND`` forces ('' when unset), read from ``os.environ`` once and again
    after every change to it (:func:`_environment_changed`).

    Raises:
        SearchError: another value.
    """
    global _forced
    forced = _forced
    if forced is None:
        forced = _forced = os.environ.get(BACKEND_ENV, "")
    if forced not in ("", *BACKENDS):
        raise SearchError(f"{BACKEND_ENV} must be python or native, got {forced!r}")
    return forced


class NativeRequest(NamedTuple):
    """A search request as the native core reads it: the limit's time, the configuration's fields
    and the selection's constants, flat (the game's ``native_search`` reads it by name)."""

    seconds: float | None
    keep_tree: bool
    exploration: float
    exploration_below: float | None
    widening: float
    rollout: Any
    rollout_cutoff: int | None
    evaluator: Any
    prior: Any
    prior_weight: float
    oracle: Any
    """The oracle as the core takes it (``native_oracle(worker)`` of the request's, for one worker's
    tree), or the request's own where it has no native form (the core names it unsupported)."""
    root_selection: str
    simultaneous: str
    step_root: bool
    mixing: float = MIXING


_new_tuple = tuple.__new__
"""``tuple.__new__``: a named tuple (:class:`NativeRequest`, :class:`RootStats`) from all its values
in order, without the named tuple's Python ``__new__`` (every worker's request, every root action's
record of every search)."""


def native_requests(request: SearchRequest, workers: int = 1) -> list[NativeRequest]:
    """`request` as the native core reads it for each of `workers` trees: a uniformly random rollout
    policy is the built-in random rollout (as :func:`search.ismcts.rollout` treats it), unless
    widening asks it for guides; worker i's oracle the one its ``native_oracle(i)`` gives."""
    config = request.config
    rollout = None if isinstance(config.rollout, UniformRandom) and not config.widening else config.rollout
    native_oracle = getattr(config.oracle, "native_oracle", None)
    oracles = [native_oracle(worker) for worker in range(workers)] if callable(native_oracle) else [None] * workers
    before = (request.limit.seconds, request.keep_tree, config.exploration, config.exploration_below,
              config.widening, rollout, config.rollout_cutoff, config.evaluator, config.prior, config.prior_weight)
    after = (config.root_selection, config.simultaneous, config.step_root, MIXING)
    return [_new_tuple(NativeRequest, (*before, config.oracle if oracle is None else oracle, *after))
            for oracle in oracles]  # the named tuple's fields in order, without its Python __new__ per worker


def native_request(request: SearchRequest, worker: int = 0) -> NativeRequest:
    """`request` as the native core reads it for worker `worker`'s tree (see :func:`native_requests`)."""
    return native_requests(request, worker + 1)[worker]


def native_plan(state: Game, request: SearchRequest, reuse: dict[Hashable, Any] | None = None,
                ) -> list[NativeRequest] | None:
    """Every worker's request as the native core reads it (:func:`native_requests`) when this search
    runs natively, ``None`` when it runs in Python (see the module's docstring).

    Raises:
        SearchError: ``REFUGE_BACKEND`` is not python or native, or forces native where it cannot run.
    """
    forced = forced_backend()
    if forced == "python":
        return None
    unsupported = getattr(state, "native_unsupported", None)
    requests: list[NativeRequest] = []
    if unsupported is None:
        why = "the game has no native core"
    elif reuse is not None:
        why = "tree reuse in a Python node table"
    else:
        requests = native_requests(request, request.limit.workers)
        why = str(unsupported(requests[0]))
    if not why:
        return requests
    if forced == "native":
        raise SearchError(f"search: {BACKEND_ENV}=native, but the native core cannot run this search: {why}")
    return None


class KeptTree:
    """A node table kept between one player's searches of a game (tree reuse, ``search(reuse=...)``):
    the game's native core's while the searches run there; from the first that runs in Python on,
    a Python node table (the native one converted once: the same statistics)."""

    def __init__(self) -> None:
        self.native: Any = None
        """The core's table (``SearchesNatively.native_table()``), made by the first native search."""
        self.nodes: dict[Hashable, Any] | None = None
        """The Python node table, once a search ran in Python."""

    def __len__(self) -> int:
        if self.nodes is not None:
            return len(self.nodes)
        return 0 if self.native is None else len(self.native)

    def __contains__(self, key: object) -> bool:
        if self.nodes is not None:
            return key in self.nodes
        return self.native is not None and key in self.native

    def native_table(self, state: Game) -> Any:
        """The core's table to grow (made at the first native search)."""
        if self.native is None:
            self.native = state.native_table()  # type: ignore[attr-defined]
        return self.native

    def python_nodes(self, convert: Callable[[Any], dict[Hashable, Any]]) -> dict[Hashable, Any]:
        """The Python node table to grow: the native one converted by `convert` (from its
        ``export()``) the first time."""
        if self.nodes is None:
            self.nodes = {} if self.native is None else convert(self.native.export())
            self.native = None
        return self.nodes


NativeProgress = Callable[[RootSums, Any], "bool | None"]
"""A progress hook of a native tree: the searching player's root sums so far and the core's live
tree (``len``, ``kept()``: the kept tree as :data:`NativeKept`, ``None`` without ``keep_tree``);
``False`` stops the search."""


def native_trees(state: Game, requests: Sequence[NativeRequest], seeds: Sequence[int], budgets: Sequence[int | None],
                 table: Any = None, also: Sequence[Game] = (), pinned: Mapping[int, int] | None = None,
                 on_progress: NativeProgress | None = None, progress_every: int = 64) -> list[NativeOutcome] | None:
    """Every worker's tree grown natively with its request of `requests` (:func:`native_plan`), on
    threads of the core (every answer's root sums, the joint cells,
    node count, iterations and kept tree, in worker order; `also` and `pinned` as ``search_step``'s),
    on `table` when given (one worker: tree reuse), each worker with its own oracle probes
    (``native_oracle(worker)``), reporting to `on_progress` every `progress_every` iterations when
    given (one worker); ``None`` when one of them met a leaf the core cannot value as Python would
    (run Python; `table` is left as it was)."""
    def progress(answer: NativeAnswer, live: Any) -> bool | None:
        assert on_progress is not None
        return on_progress(root_sums(*answer), live)

    grown = state.native_search(requests, seeds, budgets, table, also, pinned,  # type: ignore[attr-defined]
                                None if on_progress is None else progress, progress_every)
    if grown is None:
        return None
    return [([root_sums(sums, player_sums) for sums, player_sums in answers],
             {cell: joint_cell(sums) for cell, sums in joint.items()}, nodes, done, kept)
            for answers, joint, nodes, done, kept in grown]


NativeAnswered = tuple[tuple[ActionStats, ...], int, tuple[int, ...], list[NativeKept]]
"""A search's answer merged by the native core: every legal root action's statistics, the chosen
action, every worker's iterations and (with ``keep_tree``) kept tree."""


def native_answer(state: Game, requests: Sequence[NativeRequest], seeds: Sequence[int], budgets: Sequence[int | None],
                  table: Any = None) -> NativeAnswered | None:
    """The answer of every worker's tree grown natively (:func:`native_trees`' trees, without a
    progress hook), merged in the core as ``SearchResult.from_trees`` merges them, bit for bit (the
    game's own actions in it); ``None`` where the core hands the search back to Python."""
    found = state.native_answer(requests, seeds, budgets, table)  # type: ignore[attr-defined]
    if found is None:
        return None
    rows, chosen, per_worker, kept = found
    legal = state.legal_actions()
    return tuple([action_stats(action, row) for action, row in zip(legal, rows)]), legal[chosen], tuple(per_worker), kept


def root_sums(sums: Iterable[tuple[int, int, float, float, float]], player_sums: Iterable[tuple[int, list[float]]],
              ) -> RootSums:
    """One answer's flat statistics from the core as named records: per action ``(action, visits,
    value, score, policy)``, and per action ``(action, [every player's returns, then their scores,
    then the decider's squared score, then the iterations summed])``."""
    by_player: dict[int, PlayerSums] = {}
    players = -1
    for action, flat in player_sums:
        if players < 0:
            players = (len(flat) - 2) // 2  # every action's row has the same length
        by_player[action] = PlayerSums(flat[:players], flat[players:-2], flat[-2], flat[-1])
    return RootSums({row[0]: _new_tuple(RootStats, row[1:]) for row in sums}, by_player)


def joint_cell(flat: Sequence[float]) -> JointCell:
    """A joint cell from the core: ``[iterations, *returns, *scores]``."""
    players = (len(flat) - 1) // 2
    return JointCell(flat[0], list(flat[1:1 + players]), list(flat[1 + players:]))
