"""A learned evaluator for rollouts cut off after a few decisions (``ismcts:cutoff=N,evaluator=learned``).

A handful of cheap features per player (:data:`FEATURES`), a conditional-logit model of who wins
(each player's logit is a weighted sum of their features; a softmax across the players gives win
shares that sum to 1, so only the differences between players count) and a linear model of the
final score. The weights ship as package data (``data/evaluator.json``) with a description of the
self-play they were fitted to; ``lab/scripts/train_evaluator.py`` makes the file (docs/evaluator.md).
A model may also carry :data:`MIX_FEATURES`, a worth per tile kind (``train_evaluator.py --mix``,
a version-2 file; issue 27), or the position itself (:data:`POSITION_FEATURES`, versions 3 and 4,
the latter with a tanh hidden layer). Every layout is summed in one documented order, the native
core's (native/core/src/evaluator.rs; docs/evaluator.md, "Native inference").

The features read only what every player sees (C7: bags, paths, hands once drawn, weather, scores);
never a pending choice. The search calls ``evaluate`` on determinized states.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from importlib import resources
from operator import add, mul
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from positions.kernel.heuristics import STEP_VALUE, WORTH, projected_score, walk_index
from positions.errors import MalformedFileError, RefugeError
from positions.files import read_text_file
from positions.kernel.position import Position
from positions.kernel.rules import paw_total, storms_to_hit, weather_hit_chance
from positions.kernel.tiles import STORM, TILES

try:
    import refuge_native  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # the crate is not built: the Python search runs
    refuge_native = None

if TYPE_CHECKING:
    import numpy as np

FEATURES = (
    "vp",              # victory points now
    "lead",            # VP minus the best other player's VP
    "lead_late",       # lead x progress (walk + 1) / walks: a lead counts more as the game ends
    "paws",            # paw points in the path while walking (scored on return, lost to the Storm)
    "paws_at_risk",    # paws x Storm pressure (1 / Storms still needed to hit)
    "path_at_risk",    # walking: path tiles x Storm pressure (a Step each when the Storm hits)
    "future_worth",    # walks left after this one x mean worth of every tile the player owns
    "owned_worth",     # mean worth of every tile the player owns (bag, hand, path, set aside)
    "steps",           # Steps x what a Step buys this walk (STEP_VALUE)
    "projection",      # the HeuristicEvaluator's projected score
    "projection_late",  # projection x progress
    "walking",         # 1 while still on the walk, else 0
    "hand_worth",      # worth of the tiles in hand (drawn this turn, about to be played)
)
"""The names of the win model's features, in order (``features(state, player)``)."""
SCORE_FEATURES = FEATURES + ("walks_left", "bias")
"""The score model's features: the win model's, the walks left after this one, and a constant."""
MIX_FEATURES = tuple(f"mix_{tile.name}" for tile in TILES)
"""Optional (``train_evaluator.py --mix``): per tile kind, walks left after this one x that kind's
share of every tile the player owns (bag, hand, path, set aside, Storms): a worth per kind fitted to
the games instead of ``heuristics.WORTH`` (issue 27: the judgement of a bag that decides a buy)."""
CONTEXT = ("walks_left", "turn", "steps_raw", "bag_size", "storms_to_hit", "hit_chance_if_walking",
           "deck_storm_share_if_walking", "others_walking", "players")
"""The public facts a position model's row ends with: walks left, turn, Steps, bag size, Storms still
needed, this turn's weather hit chance and the deck's Storm share (while walking), other walkers, players."""
POSITION_FEATURES = (FEATURES + tuple(f"bag_{t.name}" for t in TILES)
                     + tuple(f"path_{t.name}" for t in TILES) + CONTEXT)
"""Optional (``train_evaluator.py --position``, a version-3 file; issue 27): the thirteen, then how
many tiles of each kind the player's bag holds and (while walking) their path, then :data:`CONTEXT` —
the position itself, which the thirteen summarize by a mean worth."""
MODEL_VERSION = 1
"""The layout of a model file of :data:`FEATURES`; changes whenever the features or their meaning change."""
MIX_MODEL_VERSION = 2
"""The layout of a model file of :data:`FEATURES` + :data:`MIX_FEATURES`."""
POSITION_MODEL_VERSION = 3
"""The layout of a model file of :data:`POSITION_FEATURES`."""
NETWORK_MODEL_VERSION = 4
"""The layout of a model file of :data:`POSITION_FEATURES` with a hidden layer (:class:`HiddenLayer`)."""
LAYOUTS = {"summary": (MODEL_VERSION, FEATURES), "mix": (MIX_MODEL_VERSION, FEATURES + MIX_FEATURES),
           "position": (POSITION_MODEL_VERSION, POSITION_FEATURES),
           "network": (NETWORK_MODEL_VERSION, POSITION_FEATURES)}
"""Each kind of model file: its version and its win model's features."""
MODEL_RESOURCE = "data/evaluator.json"
"""The shipped model, inside the ``advisor.players`` package."""


class ModelFileError(RefugeError, ValueError):
    """A model file that cannot be read or does not fit these features."""


def _worth_sum(row: int, tiles: tuple[int, ...]) -> float:
    """The summed ``WORTH[row]`` of `tiles` (memoised: a rollout asks about the same bags often)."""
    key = (row, tiles)
    total = _WORTH_SUMS.get(key)
    if total is None:
        worth = WORTH[row]
        total = sum(worth[k] for k in tiles)
        if len(_WORTH_SUMS) > 200_000:
            _WORTH_SUMS.clear()
        _WORTH_SUMS[key] = total
    return total


_WORTH_SUMS: dict[tuple[int, tuple[int, ...]], float] = {}


def feature_rows(state: Position) -> list[list[float]]:
    """Every player's win-model features (pure Python: for a few floats it is faster than NumPy)."""
    players = state.players
    walks = state.ruleset.walks
    walks_left = max(0, walks - 1 - state.walk)
    row = walk_index(state)
    worth = WORTH[row]
    step_value = STEP_VALUE[row]
    progress = min(1.0, (state.walk + 1) / walks)
    vp = state.vp
    to_hit = storms_to_hit(state)
    pressure = 1.0 / to_hit if to_hit > 1 else 1.0
    rows = []
    for p in range(players):
        best_other = max(vp[q] for q in range(players) if q != p)
        lead = vp[p] - best_other
        path, bag, hand, aside = state.paths[p], state.bags[p], state.hands[p], state.set_aside[p]
        walking = state.walking[p]
        paws = paw_total(path) if walking else 0
        bag_sum = _worth_sum(row, bag)
        projection = projected_score(vp[p], paws, walks_left, bag_sum, len(bag))
        hand_sum = sum(worth[k] for k in hand)
        owned_worth = ((bag_sum + _worth_sum(row, path) + hand_sum + sum(worth[k] for k in aside))
                       / max(1, len(bag) + len(path) + len(hand) + len(aside) + state.owned_storms[p]))
        rows.append([float(vp[p]), float(lead), lead * progress, float(paws), paws * pressure,
                     len(path) * pressure if walking else 0.0, walks_left * owned_worth, owned_worth,
                     state.steps[p] * step_value, projection, projection * progress,
                     1.0 if walking else 0.0, hand_sum])
    return rows


def owned_kinds(state: Position, player: int) -> tuple[list[int], int]:
    """How many tiles of each kind `player` owns (bag, hand, path, set aside, Storms), and in all."""
    counts = [0] * len(TILES)
    for group in (state.bags[player], state.paths[player], state.hands[player], state.set_aside[player]):
        for kind in group:
            counts[kind] += 1
    counts[STORM] += state.owned_storms[player]
    return counts, sum(counts)


def mix_rows(state: Position) -> list[list[float]]:
    """Every player's :data:`MIX_FEATURES`."""
    left = walks_left(state)
    rows = []
    for p in range(state.players):
        counts, total = owned_kinds(state, p)
        scale = left / max(1, total)
        rows.append([count * scale for count in counts])
    return rows


def context_rows(state: Position) -> list[tuple[float, ...]]:
    """Every player's :data:`CONTEXT` at `state`."""
    left = float(walks_left(state))
    to_hit = float(storms_to_hit(state))
    hit = weather_hit_chance(state)
    deck = state.deck_suns + state.deck_storms
    storm_share = state.deck_storms / deck if deck else 0.0
    walkers = sum(state.walking)
    rows: list[tuple[float, ...]] = []
    for p in range(state.players):
        walking = state.walking[p]
        rows.append((left, float(state.turn), float(state.steps[p]), float(len(state.bags[p])), to_hit,
                     hit if walking else 0.0, storm_share if walking else 0.0,
                     float(walkers - (1 if walking else 0)), float(state.players)))
    return rows


def position_rows(state: Position) -> list[list[float]]:
    """Every player's :data:`POSITION_FEATURES` at `state` (all public, C7)."""
    rows = feature_rows(state)
    kinds = len(TILES)
    for p, (row, context) in enumerate(zip(rows, context_rows(state))):
        counts = [0.0] * (2 * kinds)
        for kind in state.bags[p]:
            counts[kind] += 1.0
        if state.walking[p]:
            for kind in state.paths[p]:
                counts[kinds + kind] += 1.0
        row += counts
        row += context
    return rows


def layout_rows(state: Position, layout: str) -> list[list[float]]:
    """Every player's features of a model of `layout` (:data:`LAYOUTS`) at `state`."""
    if layout in ("position", "network"):
        return position_rows(state)
    rows = feature_rows(state)
    if layout == "mix":
        rows = [row + extra for row, extra in zip(rows, mix_rows(state))]
    return rows


def features(state: Position, player: int) -> np.ndarray:
    """`player`'s features (:data:`FEATURES`) at `state`, as a float array of fixed length."""
    import numpy as np  # here only: agents that never train need not load NumPy

    return np.array(feature_rows(state)[player], dtype=float)


def walks_left(state: Position) -> int:
    """Walks still to come after the current one."""
    return max(0, state.ruleset.walks - 1 - state.walk)


@dataclass(frozen=True)
class HiddenLayer:
    """A network model's tanh layer over the raw features: it adds ``tanh(row @ weights_in + bias)
    @ weights_out`` to a player's win logit (lab/value_net.py fits it), summed in a fixed order
    (:meth:`logit`)."""

    weights_in: tuple[tuple[float, ...], ...]
    """One row per feature, one column per unit."""
    bias: tuple[float, ...]
    weights_out: tuple[float, ...]

    def logits(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """The layer's term of each row's win logit (rows of the model's features)."""
        return [self.logit(row) for row in rows]

    def logit(self, row: Sequence[float]) -> float:
        """The layer's term of the win logit of a player whose features are `row`, in this order
        (the native core's, native/core/src/hidden_layer.rs; docs/evaluator.md): per unit j,
        ``(sum of row[i] * weights_in[i][j] over i in order, from 0.0) + bias[j]``; then the sum of
        ``tanh(that) * weights_out[j]`` over j in order, from 0.0, with ``math.tanh`` (libm's). A
        feature of 0 is skipped: adding ±0.0 to a sum begun at +0.0 leaves it as it was."""
        units = [0.0] * len(self.bias)
        for x, weights in zip(row, self.weights_in):
            if x:
                units = [total + x * w for total, w in zip(units, weights)]
        return sum(map(mul, map(math.tanh, map(add, units, self.bias)), self.weights_out))

    def to_json(self) -> dict[str, Any]:
        """The ``hidden`` object of a version-4 file."""
        return {"units": len(self.bias), "weights_in": [list(r) for r in self.weights_in],
                "bias": list(self.bias), "weights_out": list(self.weights_out)}

    @classmethod
    def from_json(cls, data: Any, features: int, where: str) -> "HiddenLayer":
        """A hidden layer from a version-4 file's ``hidden`` object.

        Raises:
            ModelFileError: not an object of `features` rows of finite numbers, one per unit.
        """
        if not isinstance(data, dict) or not isinstance(data.get("units"), int) or data["units"] < 1:
            raise ModelFileError(f"{where}: hidden must be an object with units >= 1")
        units = data["units"]
        rows = data.get("weights_in")
        if not isinstance(rows, list) or len(rows) != features:
            raise ModelFileError(f"{where}: hidden.weights_in must be {features} rows of {units} numbers")
        weights_in = tuple(_numbers(row, units, f"{where}: hidden.weights_in[{i}]") for i, row in enumerate(rows))
        return cls(weights_in, _numbers(data.get("bias"), units, f"{where}: hidden.bias"),
                   _numbers(data.get("weights_out"), units, f"{where}: hidden.weights_out"))


def rounded(values: Iterable[float]) -> tuple[float, ...]:
    """Weights as a model file keeps them (6 significant digits)."""
    return tuple(float(f"{v:.6g}") for v in values)


def _numbers(values: Any, count: int, what: str) -> tuple[float, ...]:
    """`values` as floats when it is a list of `count` finite numbers, else a ModelFileError."""
    if (not isinstance(values, list) or len(values) != count
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)):
        raise ModelFileError(f"{what} must be {count} finite numbers")
    return tuple(float(v) for v in values)


@dataclass(frozen=True)
class Model:
    """The weights of both models and the description of the data they were fitted to."""

    win_weights: tuple[float, ...]
    """One per :data:`FEATURES`: a player's win logit is their dot product with the features."""
    score_weights: tuple[float, ...]
    """One per :data:`SCORE_FEATURES`: a player's projected final score."""
    training: dict[str, Any]
    """How the weights were made: command, seed, games, agents, samples, held-out metrics."""
    layout: str = "summary"
    """Which features (:data:`LAYOUTS`): the thirteen, with :data:`MIX_FEATURES` (a version-2 file)
    or :data:`POSITION_FEATURES` (version 3; version 4 with a hidden layer)."""
    hidden: HiddenLayer | None = None
    """A ``network`` model's hidden layer, added to the win logits (None for the other layouts)."""

    @property
    def mix(self) -> bool:
        """Whether the features go on with :data:`MIX_FEATURES` (a version-2 file)."""
        return self.layout == "mix"

    @property
    def features(self) -> tuple[str, ...]:
        """The win model's features, in the order of :attr:`win_weights`."""
        return LAYOUTS[self.layout][1]

    @property
    def score_features(self) -> tuple[str, ...]:
        """The score model's features, in the order of :attr:`score_weights`."""
        return self.features + SCORE_FEATURES[len(FEATURES):]

    def to_json(self) -> dict[str, Any]:
        """The model file's content."""
        return {"version": LAYOUTS[self.layout][0], "features": list(self.features),
                "score_features": list(self.score_features),
                "win_weights": list(self.win_weights), "score_weights": list(self.score_weights),
                **({"hidden": self.hidden.to_json()} if self.hidden is not None else {}),
                "training": self.training}

    @classmethod
    def from_json(cls, data: Any, where: str = "model") -> "Model":
        """A model from a model file's content.

        Raises:
            ModelFileError: another version, other features, or weights of the wrong length or type.
        """
        if not isinstance(data, dict):
            raise ModelFileError(f"{where}: expected a JSON object")
        version = data.get("version")
        layouts = {number: name for name, (number, _) in LAYOUTS.items()}
        if version not in layouts or isinstance(version, bool):
            raise ModelFileError(f"{where}: version {version!r}, expected one of {sorted(layouts)}")
        layout = layouts[version]
        win_names = LAYOUTS[layout][1]
        score_names = win_names + SCORE_FEATURES[len(FEATURES):]
        for key, names in (("features", win_names), ("score_features", score_names)):
            if tuple(data.get(key, ())) != names:
                raise ModelFileError(f"{where}: {key} {data.get(key)!r} are not {list(names)}")
        weights = [_numbers(data.get(key), len(names), f"{where}: {key}")
                   for key, names in (("win_weights", win_names), ("score_weights", score_names))]
        hidden = HiddenLayer.from_json(data.get("hidden"), len(win_names), where) if layout == "network" else None
        training = data.get("training")
        if not isinstance(training, dict):
            raise ModelFileError(f"{where}: training must be an object describing the data")
        return cls(weights[0], weights[1], training, layout, hidden)


def read_model(text: str, where: str = "model") -> Model:
    """A model from the text of a model file.

    Raises:
        ModelFileError: not JSON, or not a model for these features.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{where}: not JSON ({error})") from None
    return Model.from_json(data, where)


def read_json_file(path: str) -> Any:
    """The JSON content of a model file (the evaluator's or a policy prior's).

    Raises:
        ModelFileError: the file cannot be read or is not JSON.
    """
    try:
        text = read_text_file(path)
        return json.loads(text)
    except MalformedFileError as error:
        raise ModelFileError(str(error)) from None
    except json.JSONDecodeError as error:
        raise ModelFileError(f"{path}: not JSON ({error})") from None


def load_model(path: str) -> Model:
    """The model in the file at `path` (``ismcts:model=PATH``).

    Raises:
        ModelFileError: the file cannot be read, is not JSON, or is not a model for these features.
    """
    return Model.from_json(read_json_file(path), path)


@functools.cache
def shipped_model() -> Model:
    """The model shipped with the package (``advisor/players/data/evaluator.json``)."""
    text = (resources.files("advisor.players") / MODEL_RESOURCE).read_text(encoding="utf-8")
    return read_model(text, MODEL_RESOURCE)


def softmax(logits: Sequence[float]) -> list[float]:
    """Shares proportional to exp(logit), summing to 1."""
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


_NATIVE_MODELS: dict[int, tuple[Model, Any]] = {}
"""The native copies made, by the model's ``id`` (with the model, so the id is not another's):
evaluators of one model (an agent's fresh one per search) share one."""
NATIVE_MODELS_KEPT = 8
"""Native copies kept before the oldest are dropped (models loaded one after another)."""


def native_model(model: Model) -> Any:
    """`model` as the native core's search takes it (``refuge_native.LearnedModel``: every layout,
    immutable), made once per model; ``None`` where the core is not built with it."""
    if refuge_native is None or not hasattr(refuge_native, "LearnedModel"):
        return None
    held = _NATIVE_MODELS.get(id(model))
    if held is not None and held[0] is model:
        return held[1]
    hidden = model.hidden
    native = refuge_native.LearnedModel(
        model.layout, list(model.win_weights), list(model.score_weights),
        None if hidden is None else ([list(row) for row in hidden.weights_in], list(hidden.bias),
                                     list(hidden.weights_out)))
    if len(_NATIVE_MODELS) >= NATIVE_MODELS_KEPT:
        _NATIVE_MODELS.pop(next(iter(_NATIVE_MODELS)))
    _NATIVE_MODELS[id(model)] = (model, native)
    return native


_UNMADE = object()
"""A :class:`LearnedEvaluator`'s native model before it is made."""


class LearnedEvaluator:
    """Judges a cut-off rollout with a fitted model: win shares by softmax of per-player logits,
    projected final scores by a linear model (:class:`Model`; the shipped one by default).

    Every layout is summed in one order, the native core's (native/core/src/evaluator.rs): a
    player's win logit is the dot product of the win weights with the layout's row
    (:func:`layout_rows`), left to right from 0.0 (``sum(map(mul, ...))``), plus a network's
    :meth:`HiddenLayer.logit`; the projected score the score weights' dot product with the row plus
    ``score[-2] * walks_left + score[-1]``."""

    def __init__(self, model: Model | None = None) -> None:
        self.model = model if model is not None else shipped_model()
        self._win = self.model.win_weights
        self._score = self.model.score_weights
        self._layout = self.model.layout
        self._hidden = self.model.hidden
        self._native: Any = _UNMADE
        """The native copy of the model (:func:`native_model`), made at the first native search."""

    def __repr__(self) -> str:
        return "LearnedEvaluator()"

    def __reduce__(self) -> tuple[Any, ...]:
        return (LearnedEvaluator, (self.model,))  # the model, not its native copy

    def native_weights(self) -> Any:
        """The model as the native core's search takes it (``refuge_native.LearnedModel``, built
        once per evaluator: every layout), or ``None`` where the core is not built with it. Kept in
        a plain attribute (``functools.cached_property`` takes a lock at the first read: every
        search of a fresh agent)."""
        native = self._native
        if native is _UNMADE:
            native = self._native = native_model(self.model)
        return native

    def evaluate(self, state: Position) -> tuple[list[float], list[float]]:
        """(win share per player, projected final score per player)."""
        rows = layout_rows(state, self._layout)
        win, score = self._win, self._score
        logits = [sum(map(mul, win, row)) for row in rows]
        if self._hidden is not None:
            logits = [logit + self._hidden.logit(row) for logit, row in zip(logits, rows)]
        tail = score[-2] * walks_left(state) + score[-1]
        scores = [sum(map(mul, score, row)) + tail for row in rows]  # map stops at the row's end
        return softmax(logits), scores
