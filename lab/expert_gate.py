"""Expert iteration's gate (issue 54, item 3): generation k against generation k − 1 at equal time,
with fishtest's SPRT, through the arena's Python API (stored and resumable like any arena run).

The arena names agents by spec; a model file is not an ``ismcts:`` option (retired, issue 52), so
importing this module registers a lab kind, ``expert:model=PATH,<ismcts options>``: the default
agent with the model in PATH judging its cut-offs. Local arena workers are forked from this
process and so know the kind; a Dask cluster's would not.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from typing import Callable

from advisor.arena.match import ArenaReports, ArenaSettings, ArenaTally, run_arena
from advisor.arena.sprt import SprtSettings
from advisor.arena.store import ArenaStore
from advisor.players.agents import ISMCTS_OPTIONS, Agent, SearchAgent, register_agent_kind, search_spec
from advisor.players.learned import LearnedEvaluator, Model, load_model
from advisor.players.specs import AgentSpec, AgentSpecError
from search.seeds import derive_seed

KIND = "expert"
"""The lab's agent kind: ``expert:model=PATH`` plus any ``ismcts:`` option."""
GATE_SECONDS = 0.2
"""Time per decision of both generations (issue 54's equal-time matches)."""
GATE_SPRT = SprtSettings(0.0, 10.0)
"""fishtest's SPRT [0, 10] (normalized Elo, alpha = beta = 0.05)."""


@functools.lru_cache(maxsize=8)
def cached_model(path: str) -> Model:
    """The model in the file at `path`, read once per process."""
    return load_model(path)


def expert_agent(spec: AgentSpec) -> Agent:
    """The agent an ``expert:`` spec names: the ``ismcts:`` agent of its other options, its
    evaluator the model in ``model=PATH``.

    Raises:
        AgentSpecError: no model, or a bad ``ismcts:`` option.
        ModelFileError: a model file that cannot be read.
    """
    params = dict(spec.params)
    path = params.pop("model", None)
    if not isinstance(path, str):
        raise AgentSpecError(f"{KIND}: needs model=PATH (a model file), got {spec.text!r}")
    request, reuse = search_spec(AgentSpec("ismcts", params, text=spec.text), ISMCTS_OPTIONS)
    config = dataclasses.replace(request.config, evaluator=LearnedEvaluator(cached_model(path)))
    return SearchAgent(spec.text or KIND, request.limit, config, reuse)


register_agent_kind(KIND, expert_agent)


def model_path(out: str, generation: int) -> str:
    """Where generation `generation`'s model file is (generation 0 is the shipped model: none)."""
    return os.path.join(out, f"gen-{generation}", "evaluator.json")


def generation_spec(out: str, generation: int, seconds: float = GATE_SECONDS) -> str:
    """The agent spec of a generation at `seconds` a decision.

    Raises:
        AgentSpecError: a model path a spec cannot hold (a comma or a colon in it).
    """
    if generation == 0:
        return f"ismcts:seconds={seconds:g}"
    path = os.path.abspath(model_path(out, generation))
    if "," in path or ":" in path:
        raise AgentSpecError(f"--out {out}: the gate names the model in an agent spec, which cannot hold "
                             f"a path with a comma or a colon ({path})")
    return f"{KIND}:seconds={seconds:g},model={path}"


def gate_settings(out: str, generation: int, games: int, seed: int, workers: int) -> ArenaSettings:
    """The arena run of generation `generation` against the one before: 2 players on meadows,
    `games` games at most (the SPRT stops it earlier), stored in ``gen-k/gate.sqlite`` and resumed
    when that store already holds it."""
    agents = [(f"gen-{generation}", generation_spec(out, generation)),
              (f"gen-{generation - 1}", generation_spec(out, generation - 1))]
    db = os.path.join(out, f"gen-{generation}", "gate.sqlite")
    settings = ArenaSettings(agents, games, players=2, seed=derive_seed(seed, "gate", generation) % 10**9, db=db,
                             workers=workers, sprt=GATE_SPRT)
    return dataclasses.replace(settings, resume=_stored(settings))


def _stored(settings: ArenaSettings) -> bool:
    """Whether the arena store already holds this run (then it is resumed)."""
    if not os.path.isfile(settings.db):
        return False
    store = ArenaStore(settings.db)
    try:
        return store.find_run(settings.identity()) is not None
    finally:
        store.close()


def run_gate(out: str, generation: int, games: int, seed: int, workers: int,
             line: Callable[[str], None]) -> ArenaTally:
    """Play (the rest of) the gate of `generation`; progress lines go to `line`."""
    return run_arena(gate_settings(out, generation, games, seed, workers), ArenaReports(line=line))
