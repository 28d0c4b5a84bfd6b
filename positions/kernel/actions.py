"""Actions as small ints with a readable, round-tripping notation (docs/notation.md).

Decisions and chance outcomes share one action space. Every action is a cached :class:`Action`
(an ``int``), so search code can treat it as a plain int while ``str(action)`` reads well.
"""

from __future__ import annotations

from positions.errors import InvalidActionError
from positions.kernel.tiles import KIND_BY_NAME, KIND_COUNT, STORM, TILES, Kind


class Action(int):
    """A move or chance outcome; ``str()`` gives its notation, ``parse_action`` reads it back."""

    __slots__ = ()

    def __str__(self) -> str:
        return _NAMES[self]

    def __repr__(self) -> str:
        return f"Action({_NAMES[self]!r})"


RETURN_CODE, DRAW_CODE, PASS_CODE, DISCARD_NONE_CODE, DISCARD_SECOND_CODE = 0, 1, 2, 3, 4
SUN_CODE, WEATHER_STORM_CODE = 5, 6
OPTION_BASE = 8
OPTION_NAMES: tuple[str, ...] = ("steps", "vp", "play", "discard")
PLAY_BASE = 32
BUY_BASE = 64
DISCARD_PATH_BASE = 96
DRAWN_ONE_BASE = 128
TIEBREAK_BASE = 160
DRAWN_TWO_BASE = 1024
ACTION_SPACE = DRAWN_TWO_BASE + KIND_COUNT * KIND_COUNT

_NAMES: dict[int, str] = {}
_ACTIONS: list[Action | None] = [None] * ACTION_SPACE


def _define(code: int, name: str) -> Action:
    action = Action(code)
    _NAMES[code] = name
    _ACTIONS[code] = action
    return action


RETURN = _define(RETURN_CODE, "return")
DRAW = _define(DRAW_CODE, "draw")
PASS = _define(PASS_CODE, "pass")
DISCARD_NONE = _define(DISCARD_NONE_CODE, "discard none")
DISCARD_SECOND = _define(DISCARD_SECOND_CODE, "discard second")
WEATHER_SUN = _define(SUN_CODE, "weather sun")
WEATHER_STORM = _define(WEATHER_STORM_CODE, "weather storm")
OPTIONS: dict[str, Action] = {
    name: _define(OPTION_BASE + i, f"option {name}") for i, name in enumerate(OPTION_NAMES)
}
PLAY: tuple[Action, ...] = tuple(
    _define(PLAY_BASE + t.kind, f"play {t.name}") for t in TILES
)
BUY: tuple[Action, ...] = tuple(_define(BUY_BASE + t.kind, f"buy {t.name}") for t in TILES)
DISCARD_PATH: tuple[Action, ...] = tuple(
    _define(DISCARD_PATH_BASE + t.kind, f"discard path {t.name}") for t in TILES
)
DRAWN_ONE: tuple[Action, ...] = tuple(
    _define(DRAWN_ONE_BASE + t.kind, f"drawn {t.name}") for t in TILES
)
TIEBREAK: tuple[Action, ...] = tuple(_define(TIEBREAK_BASE + p, f"tiebreak {p}") for p in range(4))
for _a in range(KIND_COUNT):
    for _b in range(_a, KIND_COUNT):
        _define(DRAWN_TWO_BASE + _a * KIND_COUNT + _b, f"drawn {TILES[_a].name} {TILES[_b].name}")


def drawn_two(first: Kind, second: Kind) -> Action:
    """The chance outcome "these two tiles were drawn" (order does not matter)."""
    if first > second:
        first, second = second, first
    return _ACTIONS[DRAWN_TWO_BASE + first * KIND_COUNT + second]  # type: ignore[return-value]


def drawn_pair(action: int) -> tuple[Kind, Kind]:
    """The two kinds of a two-tile draw outcome."""
    return divmod(action - DRAWN_TWO_BASE, KIND_COUNT)


def action_from_code(code: int) -> Action:
    """The action with this integer code.

    Raises:
        InvalidActionError: no action has this code.
    """
    action = _ACTIONS[code] if 0 <= code < ACTION_SPACE else None
    if action is None:
        raise InvalidActionError(f"no action has code {code}")
    return action


_BY_NAME: dict[str, Action] = {name: _ACTIONS[code] for code, name in _NAMES.items()}  # type: ignore[misc]


def parse_action(text: str) -> Action:
    """Read an action from its notation (``play canteen``, ``buy bear``, ``option steps``).

    Raises:
        InvalidActionError: the text names no action.
    """
    words = text.strip().lower().replace("-", "_").split()
    normal = " ".join(words)
    action = _BY_NAME.get(normal)
    if action is not None:
        return action
    if len(words) == 3 and words[0] == "drawn" and words[1] in KIND_BY_NAME and words[2] in KIND_BY_NAME:
        return drawn_two(KIND_BY_NAME[words[1]], KIND_BY_NAME[words[2]])
    if len(words) == 2 and words[1] not in KIND_BY_NAME and words[0] in ("play", "buy", "drawn"):
        raise InvalidActionError(f"unknown tile kind {words[1]!r} in action {text!r}")
    raise InvalidActionError(f"cannot read {text!r} as an action")


def is_chance_outcome(action: int) -> bool:
    """Whether the action is a chance outcome rather than a player's decision."""
    return (action in (SUN_CODE, WEATHER_STORM_CODE) or action >= DRAWN_TWO_BASE
            or DRAWN_ONE_BASE <= action < TIEBREAK_BASE + 4)


assert all(_ACTIONS[PLAY_BASE + k] is PLAY[k] for k in range(KIND_COUNT))
assert STORM == 0
