"""Events as people type them at the table: action notation with a seat and short forms.

An event line is an action in the notation of docs/notation.md, optionally prefixed by who makes
it (``1: buy bear``, ``Ann: draw``, ``chance: weather sun``), and read against a position so that
short forms work where only one legal event fits: ``draw sign storm`` or ``sign, storm`` for the
tiles drawn, ``sun`` for a weather tile, ``bear`` for ``buy bear`` at a buy, ``steps`` for
``option steps``, ``none`` for ``discard none``. :func:`event_line` writes the long form back.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from positions.kernel import phases, rules
from positions.kernel.actions import (
    BUY_BASE, DISCARD_NONE_CODE, DISCARD_PATH_BASE, DISCARD_SECOND_CODE, DRAWN_ONE_BASE,
    DRAWN_TWO_BASE, OPTION_BASE, PLAY_BASE, SUN_CODE, TIEBREAK_BASE, WEATHER_STORM_CODE, Action,
    action_from_code, drawn_pair, parse_action,
)
from positions.errors import IllegalActionError, InvalidActionError
from positions.kernel.position import Position
from positions.kernel.tiles import COST, KIND_BY_NAME, PRIORITY, TILES
from positions.errors import did_you_mean

DRAW_VERBS = ("drawn", "draw", "drew")
CHANCE_WORD = "chance"


class EventLine(NamedTuple):
    """A typed line split into who (a seat, ``CHANCE_PLAYER``, or ``None`` if unstated) and what."""

    player: int | None
    text: str


def normalize(text: str) -> str:
    """Lower case, hyphens as underscores, commas as spaces, single spaces."""
    return " ".join(text.strip().lower().replace("-", "_").replace(",", " ").split())


def split_event_line(line: str, names: Sequence[str] = (), players: int = 4) -> EventLine:
    """Split ``1: buy bear`` / ``Ann: buy bear`` / ``chance: sun`` into who and what.

    Raises:
        InvalidActionError: the text before ``:`` names no seat, player or chance.
    """
    if ":" not in line:
        return EventLine(None, line.strip())
    who, _, what = line.partition(":")
    label = who.strip().lower()
    if label == CHANCE_WORD:
        return EventLine(phases.CHANCE_PLAYER, what.strip())
    if label.startswith("p") and label[1:].isdigit():
        label = label[1:]
    if label.isdigit() and int(label) < players:
        return EventLine(int(label), what.strip())
    lowered = [n.lower() for n in names]
    if label in lowered:
        return EventLine(lowered.index(label), what.strip())
    by_lower = {n.lower(): n for n in names if n}
    close = did_you_mean(label, [str(p) for p in range(players)] + list(by_lower))
    for lowered_name, name in by_lower.items():  # suggest the name as it was given
        close = close.replace(repr(lowered_name), repr(name))
    raise InvalidActionError(f"{who.strip()!r} is not a player: expected a seat 0-{players - 1}"
                             + (f", a name ({', '.join(n for n in names if n)})" if any(names) else "")
                             + " or 'chance'" + close)


def spellings(action: int) -> tuple[str, ...]:
    """Every way of typing `action`, the notation first (drawn tiles in catalogue order)."""
    name = str(action_from_code(action))
    words = name.split()
    if action >= DRAWN_TWO_BASE or DRAWN_ONE_BASE <= action < TIEBREAK_BASE:
        kinds = " ".join(words[1:])
        return (name, f"draw {kinds}", kinds)
    if action in (SUN_CODE, WEATHER_STORM_CODE):
        return (name, words[1])
    if OPTION_BASE <= action < PLAY_BASE or PLAY_BASE <= action < DISCARD_PATH_BASE:
        return (name, words[-1])
    if DISCARD_PATH_BASE <= action < DRAWN_ONE_BASE:
        return (name, f"discard {words[-1]}")
    if action in (DISCARD_NONE_CODE, DISCARD_SECOND_CODE):
        return (name, words[-1])
    return (name,)


def _canonical_draw(words: list[str]) -> str | None:
    """``drawn a b`` with the kinds in catalogue order, if `words` are an optional verb + 1-2 kinds."""
    if words and words[0] in DRAW_VERBS:
        words = words[1:]
    if not 1 <= len(words) <= 2 or not all(w in KIND_BY_NAME for w in words):
        return None
    kinds = sorted(KIND_BY_NAME[w] for w in words)
    return "drawn " + " ".join(TILES[k].name for k in kinds)


def event_options(pos: Position, player: int | None = None) -> tuple[Action, ...]:
    """The events open to `player` (a seat in the current simultaneous step) or to whoever is next."""
    if player is None or player == pos.current_player() or pos.is_chance() or pos.is_terminal():
        return tuple(pos.legal_actions())
    if pos.is_simultaneous():
        return rules.step_legal(pos, player)
    return ()


def read_event(text: str, pos: Position, player: int | None = None) -> Action:
    """The legal event that `text` (a long or short form) names for `player` at `pos`.

    Raises:
        InvalidActionError: the text names no event, or several (the message lists them).
        IllegalActionError: it names an event that is not legal here (the message says why).
    """
    normal = normalize(text)
    legal = event_options(pos, player)
    words = normal.split()
    if pos.phase in (phases.DEAL, phases.EXTRA_DRAW):
        draw = _canonical_draw(words)
        if draw is not None:
            normal = draw
    if pos.phase == phases.TIEBREAK and len(words) == 3 and words[0] == "tiebreak":
        normal = f"tiebreak {words[2]}"  # ``tiebreak bear 2``: the contested stack named too
    matches = [a for a in legal if normal in spellings(a)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise InvalidActionError(f"{text.strip()!r} is ambiguous here: "
                                 f"{' or '.join(str(a) for a in matches)}")
    who = player if player is not None else pos.current_player()
    try:
        action = parse_action(normal)
    except InvalidActionError:
        raise InvalidActionError(_unreadable(text, normal, legal)) from None
    raise IllegalActionError(explain_illegal(pos, who, action, legal))


def _unreadable(text: str, normal: str, legal: Sequence[Action]) -> str:
    """Why `text` reads as nothing: its unknown word, or the whole line, with a did-you-mean."""
    every = [s for a in legal for s in spellings(a)]
    for word in normal.split():
        if word not in KIND_BY_NAME and word not in _KNOWN_WORDS and not word.isdigit():
            hint = did_you_mean(word, list(KIND_BY_NAME) + sorted(_KNOWN_WORDS))
            if hint or len(normal.split()) > 1:
                return f"{word!r}: unknown word{hint}"
    return f"cannot read {text.strip()!r} as an event{did_you_mean(normal, every)}"


_KNOWN_WORDS = frozenset({"return", "draw", "drawn", "play", "buy", "pass", "option", "steps",
                          "vp", "discard", "path", "second", "none", "weather", "sun", "storm",
                          "tiebreak", "chance"})


def explain_illegal(pos: Position, player: int, action: int,
                    legal: Sequence[Action] = ()) -> str:
    """Why `action` is not open to `player` here, in a player's words (``buy map: costs 6 Steps,
    you have 4``), with the legal events."""
    legal = legal or event_options(pos, player)
    name = str(action_from_code(action))
    reason = ""
    if BUY_BASE <= action < DISCARD_PATH_BASE and player >= 0:
        kind = action - BUY_BASE
        if pos.phase != phases.BUY:
            reason = f"tiles are bought at the end of the turn, not at {phases.NAMES[pos.phase]}"
        elif kind not in pos.route.kinds:
            reason = f"{TILES[kind].name} is not on this route's market"
        elif not pos.market[kind]:
            reason = f"no {TILES[kind].name} left in the market"
        elif COST[kind] > pos.steps[player]:
            reason = f"costs {COST[kind]} Steps, you have {pos.steps[player]}"
    elif PLAY_BASE <= action < BUY_BASE and player >= 0:
        kind = action - PLAY_BASE
        hand = pos.hands[player]
        if kind not in hand:
            reason = f"not in the hand ({', '.join(TILES[k].name for k in hand) or 'empty'})"
        elif any(PRIORITY[k] for k in hand) and not PRIORITY[kind]:
            reason = "the other tile has priority and must be played (C8)"
    elif DISCARD_PATH_BASE <= action < DRAWN_ONE_BASE and player >= 0:
        kind = action - DISCARD_PATH_BASE
        if kind not in pos.paths[player]:
            reason = f"no {TILES[kind].name} in the path"
    elif action >= DRAWN_TWO_BASE or DRAWN_ONE_BASE <= action < TIEBREAK_BASE:
        reason = _explain_draw(pos, action)
    who = "chance" if player == phases.CHANCE_PLAYER else f"player {player}"
    if not reason:
        reason = f"not legal for {who} at {phases.NAMES[pos.phase]}"
    shown = ", ".join(str(a) for a in legal[:12]) + (f", ... {len(legal) - 12} more"
                                                     if len(legal) > 12 else "")
    return f"{name}: {reason} (legal: {shown or 'nothing'})"


def _explain_draw(pos: Position, action: int) -> str:
    if pos.phase not in (phases.DEAL, phases.EXTRA_DRAW):
        return f"no draw is expected at {phases.NAMES[pos.phase]}"
    bag = pos.bags[pos.actor]
    kinds = drawn_pair(action) if action >= DRAWN_TWO_BASE else (action - DRAWN_ONE_BASE,)
    wanted = 1 if pos.phase == phases.EXTRA_DRAW or len(bag) == 1 else 2
    if len(kinds) != wanted:
        return f"player {pos.actor} draws {wanted} tile{'s' if wanted > 1 else ''} here"
    for kind in set(kinds):
        if bag.count(kind) < kinds.count(kind):
            have = bag.count(kind)
            return f"player {pos.actor}'s bag holds {have} {TILES[kind].name}"
    return ""


def event_line(pos: Position, action: int, label: Callable[[int], str] = str) -> str:
    """The long form of an event with who makes it: ``1: buy bear``, ``0: drawn sign storm``,
    ``weather sun`` (weather tiles and tie-breaks belong to nobody); `label` names the seat
    (``1 (Ben): buy bear``)."""
    name = str(action_from_code(action))
    if pos.phase in (phases.WEATHER, phases.TIEBREAK) or pos.is_terminal():
        return name
    return f"{label(pos.actor)}: {name}"



def movetext(steps: Sequence[tuple[Position, int]]) -> list[str]:
    """A game's events one a line in long form, each turn headed by a ``# walk W, turn T`` comment:
    the game's movetext, which :mod:`advisor.analysis.track` reads back."""
    lines: list[str] = []
    turn: tuple[int, int] | None = None
    for pos, action in steps:
        if (pos.walk, pos.turn) != turn:
            turn = (pos.walk, pos.turn)
            lines.append(f"# walk {pos.walk + 1}, turn {pos.turn + 1}")
        lines.append(event_line(pos, action))
    return lines
