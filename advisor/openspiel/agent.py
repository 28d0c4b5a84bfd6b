"""OpenSpiel's Python ISMCTSBot as an agent: ``openspiel-ismcts:iterations=1000`` (or ``seconds=0.1``).

Needs the ``[openspiel]`` extra; importing this module does not, building the agent does. The bot
runs on :mod:`advisor.openspiel.game` with OpenSpiel's uniform random rollout evaluator. Unlike
OpenSpiel's default (its resampler draws from ``std::random_device``), every random choice here
flows from the arena's `rng`: the bot's NumPy state, the rollouts and the determinizations.

pyspiel's C++ ``ISMCTSBot`` is not offered: with open_spiel 2.0.2 it crashes the interpreter
(segmentation fault) on any Python-implemented game, OpenSpiel's own ``python_kuhn_poker``
included, while it runs on C++ games.
"""

from __future__ import annotations

import random
import time
from typing import Any

from advisor.players.specs import AgentSpec, AgentSpecError
from advisor.players.agents import register_agent_kind
from positions import Position
from positions.kernel.actions import Action, action_from_code
from search.seeds import seed_from_stream

KIND = "openspiel-ismcts"
"""The agent kind this module registers."""
_PARAMS = ("iterations", "seconds", "exploration", "rollout")
ROLLOUTS = ("openspiel", "engine")
"""``openspiel``: OpenSpiel's RandomRolloutEvaluator; ``engine``: our engine's random playout."""


def _require_openspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise AgentSpecError(f"{KIND} needs OpenSpiel: pip install 'refuge-advisor[openspiel]'") from None
    return pyspiel


class EngineRolloutEvaluator:
    """An OpenSpiel evaluator that plays uniformly random to the end with our engine's own playout."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def evaluate(self, state: Any) -> Any:
        """The returns of one uniformly random playout of a copy of the state's position."""
        import numpy as np
        from search.ismcts import rollout

        returns, _ = rollout(state.position.copy(), self.rng)
        return np.array(returns)

    def prior(self, state: Any) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance: the outcome probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def make_bot(game: Any, iterations: int | None, seconds: float | None, exploration: float,
             seed: int, rollout: str = "openspiel") -> Any:
    """OpenSpiel's Python ISMCTSBot with uniform random rollouts, all randomness from `seed`.

    With `seconds` it searches until the clock runs out (at least one simulation); else it runs
    `iterations` simulations. `rollout` picks the evaluator (see ``ROLLOUTS``).

    Raises:
        AgentSpecError: unknown `rollout`, or OpenSpiel is not installed.
    """
    if rollout not in ROLLOUTS:
        raise AgentSpecError(f"{KIND}: unknown rollout {rollout!r} (expected {' or '.join(ROLLOUTS)})")
    _require_openspiel()
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    class ClockedISMCTSBot(ismcts.ISMCTSBot):
        """OpenSpiel's ISMCTSBot with an optional wall-clock budget instead of a simulation count."""

        simulations = 0
        """Simulations run by the last search."""

        def run_search(self, state: Any) -> Any:
            if seconds is None:
                self.simulations = self._max_simulations
                return super().run_search(state)
            self.reset()
            legal = state.legal_actions()
            if len(legal) == 1:
                return [(legal[0], 1.0)]
            self._root_node = self.create_new_node(state)
            deadline = time.perf_counter() + seconds
            self.simulations = 0
            # At least until the root has a visit: OpenSpiel's final policy asserts it has one.
            while (self._root_node.total_visits == 0 and self.simulations < 1000) \
                    or time.perf_counter() < deadline:
                self.run_simulation(self.sample_root_state(state))
                self.simulations += 1
            return self.get_final_policy(state, self._root_node)

    random_state = np.random.RandomState(seed % (1 << 32))
    resample_rng = random.Random(seed)
    evaluator = (mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=random_state)
                 if rollout == "openspiel" else EngineRolloutEvaluator(random.Random(seed + 1)))
    bot = ClockedISMCTSBot(
        game, evaluator, exploration, iterations or 1, random_state=random_state,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, resample_rng.random))
    return bot


class OpenSpielISMCTSAgent:
    """Plays by OpenSpiel's Python ISMCTSBot, one fresh tree per decision."""

    def __init__(self, name: str, iterations: int | None = None, seconds: float | None = None,
                 exploration: float = 0.7, rollout: str = "openspiel") -> None:
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise AgentSpecError(f"{name}: iterations must be an int >= 1, got {iterations!r}")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise AgentSpecError(f"{name}: seconds must be a positive number, got {seconds!r}")
        if not isinstance(exploration, (int, float)) or exploration < 0:
            raise AgentSpecError(f"{name}: exploration must be a number >= 0, got {exploration!r}")
        if rollout not in ROLLOUTS:
            raise AgentSpecError(f"{name}: unknown rollout {rollout!r} (expected {' or '.join(ROLLOUTS)})")
        if iterations is None and seconds is None:
            iterations = 1000
        if iterations is not None and seconds is not None:
            raise AgentSpecError(f"{name}: give iterations or seconds, not both")
        _require_openspiel()
        self.name = name
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = float(exploration)
        self.rollout = rollout
        self.last_simulations = 0
        """Simulations run for the last decision searched."""
        self._games: dict[tuple[int, str], Any] = {}

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The bot's most visited root action (ties broken by its seeded NumPy state)."""
        legal = position.legal_actions()
        if len(legal) == 1:
            return legal[0]
        key = (position.players, position.route.name)
        if key not in self._games:
            from advisor.openspiel.game import load_game

            self._games[key] = load_game(*key)
        game = self._games[key]
        bot = make_bot(game, self.iterations, self.seconds, self.exploration, seed_from_stream(rng),
                       self.rollout)
        action = bot.step(game.state_from_position(position))
        self.last_simulations = bot.simulations
        return action_from_code(int(action))


def _openspiel_ismcts(spec: AgentSpec) -> OpenSpielISMCTSAgent:
    unknown = set(spec.params) - set(_PARAMS)
    if unknown:
        raise AgentSpecError(f"{KIND}: unknown parameter {sorted(unknown)[0]!r} "
                             f"(expected {', '.join(_PARAMS)})")
    return OpenSpielISMCTSAgent(spec.text or KIND, **spec.params)  # type: ignore[arg-type]


register_agent_kind(KIND, _openspiel_ismcts)
