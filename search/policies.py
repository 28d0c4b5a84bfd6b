"""Game-independent policies: the uniform random policy (rollouts and the random bot)."""

from __future__ import annotations

import random

from search.protocol import Game


class UniformRandom:
    """Picks each legal action with equal probability."""

    name = "random"

    def choose(self, state: Game, rng: random.Random) -> int:
        """A uniformly random legal action."""
        legal = state.legal_actions()
        return legal[int(rng.random() * len(legal))]

    def __repr__(self) -> str:
        return "UniformRandom()"
