"""Refuge as an OpenSpiel Python game (``pyspiel.load_game("python_refuge(players=3,route=forest)")``).

Needs the ``[openspiel]`` extra. The OpenSpiel state wraps a :class:`positions.Position`: the rules,
chance outcomes, information-set keys and determinization are the engine's own, so OpenSpiel's
algorithms and our search see the same game. The simultaneous steps (decide, choose, buy) are
already sequential in seat order with hidden choices, so the game is ``SEQUENTIAL`` with
``IMPERFECT_INFORMATION``; draws, weather tiles and tie-breaks are ``EXPLICIT_STOCHASTIC`` chance.

Cloning never deep-copies a position: OpenSpiel clones a Python state by deep-copying each
attribute, and the only attribute is a :class:`PositionBox` whose ``__deepcopy__`` is
``Position.copy()`` (a clone takes about 6 us instead of about 100 us).

A resampled state (:meth:`RefugeState.resample_from_infostate`) carries the original's OpenSpiel
``history()``: that C++ list cannot be rewritten from Python, so in a simultaneous step it still
lists the others' true hidden choices while the position holds the resampled ones. Information-set
search (OpenSpiel's ISMCTS, ours) reads only information-state strings, which are consistent.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pyspiel

from positions import Position, RefugeError
from positions.kernel.actions import ACTION_SPACE, action_from_code
from positions.kernel.phases import TERMINAL_PLAYER
from positions.render import render
from positions.kernel.rulesets import DEFAULT_RULESET

GAME_NAME = "python_refuge"
"""The name OpenSpiel knows the game by."""

_HASH_MASK = (1 << 64) - 1
_TURNS_PER_WALK = (DEFAULT_RULESET.deck_suns + DEFAULT_RULESET.deck_storms
                   + DEFAULT_RULESET.reserve_storms + 1)
MAX_GAME_LENGTH = DEFAULT_RULESET.walks * _TURNS_PER_WALK * max(DEFAULT_RULESET.player_counts) * 24
"""A generous bound on decisions per game (each turn turns a weather tile or a reserve Storm;
24 decisions per player and turn is far above any real turn; random 4-player games use < 150)."""


class OpenSpielGameError(RefugeError):
    """OpenSpiel asked for something this game does not provide (a parameter, an observation type)."""


GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Refuge (Python, refuge-advisor engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=max(DEFAULT_RULESET.player_counts),
    min_num_players=min(DEFAULT_RULESET.player_counts),
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={"players": 2, "route": "meadows"},
)
"""Refuge's OpenSpiel game type: parameters ``players`` (2-4) and ``route``."""


class PositionBox:
    """Holds a state's position; OpenSpiel's clone deep-copies it with ``Position.copy()``."""

    __slots__ = ("position",)

    def __init__(self, position: Position) -> None:
        self.position = position

    def __deepcopy__(self, memo: dict) -> "PositionBox":
        return PositionBox(self.position.copy())

    def __getstate__(self) -> Position:
        return self.position

    def __setstate__(self, position: Position) -> None:
        self.position = position


class SamplerRandom(random.Random):
    """A ``random.Random`` whose every draw comes from an OpenSpiel probability sampler (uniforms)."""

    def __init__(self, sampler: Callable[[], float]) -> None:
        super().__init__()
        self._sampler = sampler

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Nothing to seed (seeding the unused Mersenne Twister would cost 6 us per resample)."""

    def random(self) -> float:
        """The sampler's next uniform in [0, 1)."""
        return float(self._sampler())

    def getrandbits(self, k: int) -> int:
        """`k` random bits, 32 per uniform."""
        bits, filled = 0, 0
        while filled < k:
            bits = (bits << 32) | (int(self._sampler() * 4294967296.0) & 0xFFFFFFFF)
            filled += 32
        return bits >> (filled - k)


def information_state_string(position: Position, player: int) -> str:
    """`player`'s information state: the public history (hashed) and their own unrevealed choice."""
    _, history, own = position.information_set_key(player)
    mine = str(action_from_code(own)) if own >= 0 else "-"
    return f"p{player} h{history & _HASH_MASK:016x} own:{mine}"


class RefugeObserver:
    """OpenSpiel's observer for the information state (strings only, no tensor)."""

    def __init__(self, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise OpenSpielGameError(f"{GAME_NAME} observer: takes no parameters, got {dict(params)}")
        if not (iig_obs_type.perfect_recall and iig_obs_type.public_info
                and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise OpenSpielGameError(
                f"{GAME_NAME} observer: only the information state (perfect recall, public and own "
                f"private information) is provided, not {iig_obs_type}")
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state: "RefugeState", player: int) -> None:
        """No tensor to fill."""

    def string_from(self, state: "RefugeState", player: int) -> str:
        """`player`'s information-state string."""
        return information_state_string(state.position, player)


class RefugeGame(pyspiel.Game):
    """Refuge for OpenSpiel; parameters ``players`` (2-4) and ``route`` (meadows, forest, mountains)."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        unknown = set(params) - set(GAME_TYPE.parameter_specification)
        if unknown:
            raise OpenSpielGameError(f"{GAME_NAME}: unknown parameter {sorted(unknown)[0]!r} "
                                     "(expected players, route)")
        players = int(params.get("players", 2))
        route = str(params.get("route", "meadows"))
        try:
            initial = Position.new_game(players, route)
        except RefugeError as error:
            raise OpenSpielGameError(f"{GAME_NAME}(players={players}, route={route}): {error}") from None
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_SPACE, max_chance_outcomes=ACTION_SPACE, num_players=players,
            min_utility=0.0, max_utility=1.0, utility_sum=1.0, max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, {"players": players, "route": route})
        self.initial = initial
        """The opening position, copied by every new initial state."""

    def new_initial_state(self) -> "RefugeState":
        """The opening position."""
        return RefugeState(self, self.initial.copy())

    def state_from_position(self, position: Position) -> "RefugeState":
        """An OpenSpiel state for a copy of `position` (its OpenSpiel ``history()`` starts empty).

        Raises:
            OpenSpielGameError: `position` has another player count, route or ruleset.
        """
        initial = self.initial
        if (position.players, position.route.kinds, position.ruleset) != (
                initial.players, initial.route.kinds, initial.ruleset):
            raise OpenSpielGameError(
                f"{GAME_NAME}: a {position.players}-player {position.route.name} position does not "
                f"belong to this {initial.players}-player {initial.route.name} game")
        return RefugeState(self, position.copy())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> RefugeObserver:
        """The information-state observer (the only observation this game provides)."""
        return RefugeObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=True), params)


class RefugeState(pyspiel.State):
    """An OpenSpiel state wrapping one :class:`Position`; OpenSpiel verbs map onto the engine's."""

    def __init__(self, game: RefugeGame, position: Position) -> None:
        super().__init__(game)
        self._box = PositionBox(position)

    @property
    def position(self) -> Position:
        """The wrapped engine position (mutated by ``apply_action``)."""
        return self._box.position

    def current_player(self) -> int:
        """The player to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        player = self._box.position.current_player()
        return pyspiel.PlayerId.TERMINAL if player == TERMINAL_PLAYER else player

    def _legal_actions(self, player: int) -> list[int]:
        """The current player's decisions, ascending (OpenSpiel's contract)."""
        return sorted(self._box.position.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each chance outcome with its probability, by ascending action."""
        return sorted(self._box.position.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        self._box.position.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return str(action_from_code(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._box.position.is_terminal()

    def returns(self) -> list[float]:
        """Win shares at the end (C18), zeros before."""
        return self._box.position.returns()

    def information_state_string(self, player: int | None = None) -> str:
        """`player`'s (default: the current player's) information state; same as the observer's."""
        position = self._box.position
        return information_state_string(position, position.current_player() if player is None else player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]
                                ) -> "RefugeState":
        """A state `player_id` cannot tell from this one: our ``determinize`` driven by the sampler."""
        state: RefugeState = self.clone()
        state._box.position = self._box.position.determinize(player_id, SamplerRandom(probability_sampler))
        return state

    def __str__(self) -> str:
        return render(self._box.position)


pyspiel.register_game(GAME_TYPE, RefugeGame)


def load_game(players: int = 2, route: str = "meadows") -> RefugeGame:
    """The registered OpenSpiel game for this player count and route.

    Raises:
        OpenSpielGameError: unsupported player count or unknown route.
    """
    return pyspiel.load_game(GAME_NAME, {"players": players, "route": route})
