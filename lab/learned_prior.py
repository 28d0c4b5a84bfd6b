"""A learned policy prior for the search (``ismcts:prior=learned,prior_model=PATH``; issue 27, item 2).

Each legal action of the decider is described by :data:`ACTION_FEATURES`: the learned evaluator's
features of the decider (:func:`~advisor.players.learned.feature_rows`) after the action is applied,
and whether it is the heuristic's choice. A linear softmax over the actions (one weight per
feature) is fitted to the visit shares of deeper searches (:mod:`lab.expert_fit`);
as the tree's prior it names its likeliest action, which gets the progressive bias. The features
read what the decider knows: public facts and their own choice (C7).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from operator import mul
from typing import Any

from advisor.players.bots import DEFAULT_ROLLOUT
from positions.kernel.heuristics import WORTH, walk_index
from advisor.players.learned import FEATURES, ModelFileError, feature_rows, read_json_file
from positions.kernel.actions import BUY_BASE, DISCARD_PATH_BASE, DRAW_CODE, RETURN_CODE
from positions.kernel.position import Position

ACTION_FEATURES = FEATURES + ("heuristic_choice", "draw", "return", "buy_worth")
"""An action's features: the decider's :data:`~advisor.players.learned.FEATURES` after it (at a
simultaneous step, before it: the choice stays hidden, or completes the step and shows the others'
choices, which the decider's view only guesses), 1 if
it is the heuristic's choice, 1 if it draws, 1 if it returns, and the worth of a tile it buys
(``heuristics.WORTH`` this walk; 0 for any other action)."""
POLICY_VERSION = 1
"""The layout of a policy file; changes whenever the features or their meaning change."""
POLICY_KIND = "refuge-policy-prior"


def action_features(state: Position, rng: random.Random) -> list[list[float]]:
    """Per legal action of the player to move at `state` (in the game's order), its features."""
    player = state.current_player()
    favourite = DEFAULT_ROLLOUT.choose(state, rng)
    worth = WORTH[walk_index(state)]
    # In a simultaneous step the choice stays hidden (or completes the step, showing the others'
    # choices, which a view only guesses): the features before it serve every action.
    shared = feature_rows(state)[player] if state.is_simultaneous() else None
    rows = []
    for action in state.legal_actions():
        if shared is None:
            after = state.copy()
            after.apply(action)
        bought = worth[action - BUY_BASE] if BUY_BASE <= action < DISCARD_PATH_BASE else 0.0
        rows.append([float(v) for v in (shared if shared is not None else feature_rows(after)[player])]
                    + [float(action == favourite), float(action == DRAW_CODE), float(action == RETURN_CODE),
                       bought])
    return rows


@dataclass(frozen=True)
class PolicyModel:
    """The prior's weights (one per :data:`ACTION_FEATURES`) and how they were made."""

    weights: tuple[float, ...]
    training: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The policy file's content."""
        return {"kind": POLICY_KIND, "version": POLICY_VERSION, "features": list(ACTION_FEATURES),
                "weights": list(self.weights), "training": self.training}

    @classmethod
    def from_json(cls, data: Any, where: str = "policy") -> "PolicyModel":
        """A policy from a policy file's content.

        Raises:
            ModelFileError: another kind or version, other features, or bad weights.
        """
        if not isinstance(data, dict) or data.get("kind") != POLICY_KIND:
            raise ModelFileError(f"{where}: not a policy file (no \"kind\": \"{POLICY_KIND}\")")
        if data.get("version") != POLICY_VERSION:
            raise ModelFileError(f"{where}: version {data.get('version')!r}, expected {POLICY_VERSION}")
        if tuple(data.get("features", ())) != ACTION_FEATURES:
            raise ModelFileError(f"{where}: features {data.get('features')!r} are not {list(ACTION_FEATURES)}")
        values = data.get("weights")
        if (not isinstance(values, list) or len(values) != len(ACTION_FEATURES)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in values)):
            raise ModelFileError(f"{where}: weights must be {len(ACTION_FEATURES)} finite numbers")
        training = data.get("training")
        if not isinstance(training, dict):
            raise ModelFileError(f"{where}: training must be an object describing the data")
        return cls(tuple(float(v) for v in values), training)


def load_policy(path: str) -> PolicyModel:
    """The policy in the file at `path`.

    Raises:
        ModelFileError: the file cannot be read, is not JSON, or is not a policy for these features.
    """
    return PolicyModel.from_json(read_json_file(path), path)


class LearnedPrior:
    """The search's prior: the action of highest logit under a :class:`PolicyModel` (ties: the
    game's order)."""

    def __init__(self, model: PolicyModel) -> None:
        self.model = model

    def __repr__(self) -> str:
        return "LearnedPrior()"

    def logits(self, state: Position, rng: random.Random) -> list[float]:
        """Per legal action (the game's order), its logit."""
        return [sum(map(mul, self.model.weights, row)) for row in action_features(state, rng)]

    def choose(self, state: Position, rng: random.Random) -> int:
        """The likeliest legal action at `state`."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        logits = self.logits(state, rng)
        return legal[max(range(len(legal)), key=lambda i: (logits[i], -i))]
