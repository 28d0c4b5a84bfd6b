"""One search tree grown by the native core (``refuge_native.search``, the Rust crate in native/):
what :meth:`Position.native_search` and :meth:`Position.native_unsupported` do for the search's
optional verb ``search.protocol.SearchesNatively``.

The request is read by duck typing (the kernel imports nothing above it): a rollout policy or prior
is native when it has ``native_parameters()`` (a heuristic policy); an evaluator when it
has ``native_weights()`` (the learned evaluator's model, any layout); an oracle when the request holds
it as the core takes it (``ExactEndgames.native_oracle``: native probes and the leaf budget).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

try:
    import refuge_native  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # the crate is not built: the Python search runs
    refuge_native = None

Answer = tuple[list[tuple[int, int, float, float, float]], list[tuple[int, list[float]]]]
"""One answer node's statistics as the core returns them: per root action ``(action, visits,
value_sum, score_sum, policy_sum)``, and per root action played ``(action, [every player's return
sum, ..., every player's score sum, ..., the decider's squared-score sum, the iterations summed])``."""
Kept = tuple[list[tuple[Any, list[tuple[int, int, float]]]], list[tuple[tuple[int, int], list[tuple[int, int]]]]]
"""A kept tree: every node as ``(key, [(action, visits, value_sum), ...])`` in the order added, and
the edges walked as ``((node index, action), [(next node index, times walked), ...])``."""
NativeTree = tuple[list[Answer], dict[tuple[int, ...], list[float]], int, int, Kept | None]
"""One tree's answers (the searching player's first, then the later decisions of its step), the
joint cells (several answers), the number of information sets, the iterations run and, with
``keep_tree``, the kept tree (``search.ismcts.TreeOutcome``'s fields)."""

Report = Callable[[Answer, Any], "bool | None"]
"""A progress hook as the core calls it: the searching player's answer so far and the live tree
(``refuge_native.LiveTree``: ``len``, ``kept()``); ``False`` stops the search."""

_SIMULTANEOUS = ("uct", "rm", "exp3")


class Encodable(Protocol):
    """A position that crosses to the core as its canonical encoding (``Position.to_ints``)."""

    def to_ints(self) -> list[int]:
        """The canonical encoding."""
        ...


def built() -> bool:
    """Whether the native core can be imported."""
    return refuge_native is not None and hasattr(refuge_native, "search")


def _heuristic(policy: Any) -> tuple[float, bool, float, float, float, float, float] | None:
    """A heuristic policy's parameters as the core takes them (``None``: uniformly random)."""
    return None if policy is None else policy.native_parameters()  # type: ignore[no-any-return]


def _native_policy(policy: Any) -> bool:
    """Whether the core plays this policy: none (uniformly random) or a heuristic policy."""
    return policy is None or callable(getattr(policy, "native_parameters", None))


def unsupported(request: Any) -> str:
    """Why the native core cannot grow `request`'s tree exactly as the Python search would ('' when
    it can)."""
    if not built():
        return "the native core is not built"
    reasons = []  # each reason written only when it applies (a search asks once per search)
    if request.simultaneous not in _SIMULTANEOUS:
        reasons.append(f"simultaneous={request.simultaneous}")
    if not _native_policy(request.rollout):
        reasons.append(f"the rollout policy {request.rollout!r}")
    if not _native_policy(request.prior):
        reasons.append(f"the prior {request.prior!r}")
    if request.evaluator is not None and request.rollout_cutoff is not None and _weights(request.evaluator) is None:
        reasons.append(f"the evaluator {request.evaluator!r}")
    if request.oracle is not None and not _native_oracle(request.oracle):
        reasons.append(f"the oracle {request.oracle!r}")
    return ", ".join(reasons)


def _native_oracle(oracle: Any) -> bool:
    """Whether the core takes this oracle: ``(refuge_native.EndgameProbes, leaf budget)``."""
    endgame_probes = getattr(refuge_native, "EndgameProbes", None)
    return (isinstance(oracle, tuple) and len(oracle) == 2 and endgame_probes is not None
            and isinstance(oracle[0], endgame_probes))


def _weights(evaluator: Any) -> Any:
    """The evaluator's model as the core takes it (``native_weights()``: a ``refuge_native.LearnedModel``
    the evaluator builds once, passed as it is to every search), or ``None``: the Python search runs."""
    weights = getattr(evaluator, "native_weights", None)
    return weights() if weights is not None else None


def new_table() -> Any:
    """An empty node table of the core (``refuge_native.SearchTable``), kept between searches."""
    assert refuge_native is not None
    return refuge_native.SearchTable()


NativeResult = tuple[list[tuple[Any, ...]], int, list[int], list[Kept]]
"""A search's answer as the core merges it (``search.protocol.NativeResult``)."""


def answer(position: Encodable, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
           table: Any = None, streams: Sequence[tuple[list[int], int]] | None = None) -> NativeResult | None:
    """The answer of the trees :func:`search` grows with the same arguments, merged in the core
    (``search.request.SearchResult.from_trees``'s statistics, bit for bit): every legal root action
    as ``ActionStats``'s fields after ``action``, the chosen one's index, every worker's iterations
    and kept trees."""
    return _grown(position, requests, seeds, budgets, table, streams=streams, answer=True)  # type: ignore[no-any-return]


def search(position: Encodable, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
           table: Any = None, also: Sequence[Encodable] = (), pinned: dict[int, int] | None = None,
           progress: Report | None = None, progress_every: int = 64,
           streams: Sequence[tuple[list[int], int]] | None = None) -> list[NativeTree] | None:
    """Trees grown natively from `position`, one per worker: worker i with ``requests[i]`` (the
    same search but for its own oracle), the stream ``Random(seeds[i])`` and ``budgets[i]``
    iterations and/or ``request.seconds``; every worker's ``search.ismcts.run_tree`` root
    statistics, bit for bit, in worker order, the workers on threads of the core (the GIL released),
    or ``None`` where the core met a leaf it cannot value exactly as Python would (`table` is left
    as it was): run the Python search. With one worker only: `table` (:func:`new_table`, kept from
    the same player's earlier searches) to grow in place, and `progress`, which the core calls every
    `progress_every` iterations (``search.ismcts.run_tree``'s ``on_progress``; an exception it
    raises stops the search and is raised here). With `also` (the later decisions of the same
    simultaneous step) and `pinned` (decision index -> action), the trees of ``search_step``.
    With `streams` (every chance stream's Mersenne Twister state: words and index) chance is drawn
    from them, not from the tree's stream: the omniscient agent's foreseen future
    (``advisor.players.omniscient.Foreseen``).

    The caller has checked :func:`unsupported`.
    """
    found = _grown(position, requests, seeds, budgets, table, also, pinned, progress, progress_every, streams)
    if found is None:
        return None
    return [(answers, {tuple(cell): sums for cell, sums in joint} if joint else {}, nodes, done, kept)
            for answers, joint, nodes, done, kept in found]


def _grown(position: Encodable, requests: Sequence[Any], seeds: Sequence[int], budgets: Sequence[int | None],
           table: Any = None, also: Sequence[Encodable] = (), pinned: dict[int, int] | None = None,
           progress: Report | None = None, progress_every: int = 64,
           streams: Sequence[tuple[list[int], int]] | None = None, answer: bool = False) -> Any:
    """``refuge_native.search`` of these arguments (:func:`search`, :func:`answer`), as it returns."""
    assert refuge_native is not None
    request = requests[0]
    cutoff = request.rollout_cutoff if request.evaluator is not None else None
    evaluator = _weights(request.evaluator) if cutoff is not None else None
    below = request.exploration if request.exploration_below is None else request.exploration_below
    trees = [(seed, budget, worker.oracle) for worker, seed, budget in zip(requests, seeds, budgets)]
    hook = None if progress is None else lambda sums, player_sums, live: progress((sums, player_sums), live)
    found = refuge_native.search(  # positionally, in the core's order (no keyword to match per argument)
        position.to_ints(), trees, float(request.exploration), float(below), float(request.widening),
        float(request.prior_weight), cutoff, request.root_selection == "uniform", request.step_root,
        request.simultaneous, float(request.mixing), _heuristic(request.rollout), _heuristic(request.prior),
        evaluator, request.seconds, [p.to_ints() for p in also] if also else [],
        sorted(pinned.items()) if pinned else [], table, bool(request.keep_tree), hook, progress_every,
        None if streams is None else list(streams), answer)
    return found
