"""A plain, readable text rendering of a position."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from positions.kernel import phases
from positions.kernel.position import Position
from positions.kernel.rules import paw_total
from positions.kernel.tiles import TILES, Kind
from positions.kernel.view import walk_number


def printable(text: str) -> str:
    """`text` safe to print: control characters, lone surrogates and other non-printing characters
    escaped as in Python (``\\n``, ``\\x1b``, ``\\ud800``), so a name cannot move the cursor or fake a line."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def tile_list(tiles: tuple[Kind, ...] | list[Kind]) -> str:
    """Kinds in order, by name: ``sign, fox, big_lake``."""
    return ", ".join(TILES[k].name for k in tiles) or "-"


def tile_counts(tiles: tuple[Kind, ...] | list[Kind]) -> str:
    """A multiset by name with counts: ``2 sign, 1 fox``."""
    counts = Counter(tiles)
    return ", ".join(f"{counts[k]} {TILES[k].name}" for k in sorted(counts)) or "-"


def bag_text(pos: Position, player: int) -> str:
    """``11: 2 storm, 2 sign, ...``, or ``unknown (11 tiles)`` for a bag the player to decide does
    not know (a saved position's ``"bag": "unknown"``: the tiles held are one guess, dealt afresh
    by every search)."""
    size = len(pos.bags[player])
    if player in pos.hidden_bags:
        return f"unknown ({plural(size, 'tile')})"
    return f"{size}: {tile_counts(pos.bags[player])}"


DECISION_WORDS = {phases.DECIDE: "return or draw", phases.RETURN_DISCARD: "discard a path tile on going home, or none",
                  phases.CHOOSE: "which tile to play", phases.OPTION: "which option", phases.DISCARD: "what to discard",
                  phases.EXTRA: "play the other tile or draw", phases.BUY: "buy a tile or pass"}
"""What a decision asks, in words (the phase names are the notation's: ``decide``, ``buy`` ...)."""


def decision_words(phase: int) -> str:
    """``return or draw`` for the decide step; the phase's name where it has no words."""
    return DECISION_WORDS.get(phase, phases.NAMES[phase])


def whose_turn(pos: Position) -> str:
    """Who acts next and at which step."""
    player = pos.current_player()
    if player == phases.TERMINAL_PLAYER:
        return "game over"
    if player == phases.CHANCE_PLAYER:
        return f"chance ({phases.NAMES[pos.phase]})"
    return f"player {player} to decide: {decision_words(pos.phase)}"


def render(pos: Position, names: Sequence[str] = ()) -> str:
    """The position as lines of text: the walk, the weather, the market and each player (``P0 Ann``
    where `names` names the seat)."""
    lines = [
        f"Refuge, {pos.players} players, route {pos.route.name}, ruleset {pos.ruleset.name}",
        f"Walk {walk_number(pos)}/{pos.ruleset.walks}, turn {pos.turn + 1}: "
        f"{whose_turn(pos)}",
        f"Weather: track {pos.track_suns} sun, {pos.storms_on_track()}/{pos.threshold} storm "
        f"(owned {list(pos.owned_storms)}); deck {pos.deck_suns} sun + {pos.deck_storms} storm; "
        f"reserve {pos.reserve}",
        "Market: " + ", ".join(f"{TILES[k].name} x{pos.market[k]} ({TILES[k].cost})"
                               for k in pos.route.kinds),
    ]
    for player in range(pos.players):
        status = "finished" if pos.is_terminal() else "walking" if pos.walking[player] else "home"
        lines.append(
            f"P{player}{' ' + printable(names[player]) if player < len(names) and names[player] else ''}: "
            f"{pos.vp[player]} VP, {plural(pos.steps[player], 'Step')}, {status}; "
            f"path [{tile_list(pos.paths[player])}] (paw {paw_total(pos.paths[player])}); "
            f"hand [{tile_list(pos.hands[player])}]; set aside [{tile_list(pos.set_aside[player])}]; "
            f"bag {bag_text(pos, player)}"
        )
    if pos.phase in (phases.OPTION, phases.DISCARD):
        lines.append(f"Resolving: {TILES[pos.tile].name} (player {pos.actor}), "
                     f"{pos.extra_plays} additional play(s) to come")
    if pos.box:
        lines.append(f"Box: {tile_counts(pos.box)}")
    if pos.current_player() >= 0:
        lines.append("Legal: " + ", ".join(str(a) for a in pos.legal_actions()))
    return "\n".join(lines)


_GAINS = (("steps", "Step"), ("vp", "VP"), ("steps_per_sun", "Step per Sun"),
          ("vp_per_sun", "VP per Sun"), ("steps_per_path_tile", "Step per path tile"),
          ("vp_per_path_tile", "VP per path tile"), ("steps_per_paw", "Step per paw"),
          ("vp_per_paw", "VP per paw"))


def plural(count: int, word: str) -> str:
    """``1 Step``, ``3 Steps``, ``2 Steps per Sun`` (the first word takes the s; VP never does)."""
    first, _, rest = word.partition(" ")
    if count != 1 and first not in ("VP",):
        first += "s"
    return f"{count} {first}" + (f" {rest}" if rest else "")


def effect_text(kind: Kind) -> str:
    """A tile's effect in a few words: ``+5 Steps``, ``1 more play or +3 Steps``, ``paw 4``."""
    tile = TILES[kind]
    halves = []
    for effect in tile.effects:
        words = [f"pay {effect.pay_vp} VP" if effect.pay_vp else "",
                 f"pay {plural(effect.pay_steps, 'Step')}" if effect.pay_steps else ""]
        words += ["+" + plural(getattr(effect, field), unit) for field, unit in _GAINS
                  if getattr(effect, field)]
        if effect.extra_plays:
            words.append(f"{effect.extra_plays} more play{'s' if effect.extra_plays != 1 else ''}")
        if effect.discards:
            if not effect.discards_required:
                words.append(f"discard {effect.discards} (optional)")
            elif effect.discards_required < effect.discards:  # Cave: 1 or 2 (C11)
                words.append(f"discard {effect.discards_required}–{effect.discards}")
            else:
                words.append(f"discard {effect.discards}")
        halves.append(", ".join(w for w in words if w))
    text = " or ".join(h for h in halves if h)
    if tile.paw:
        text = f"{text}, paw {tile.paw}" if text else f"paw {tile.paw}"
    if tile.priority:
        text += " (played first)"
    return text or "-"


def _label(labels: Sequence[str], player: int) -> str:
    return labels[player] if player < len(labels) and labels[player] else f"player {player}"


def verb(subject: str, third_person: str) -> str:
    """`third_person` agreeing with `subject`: ``Ann draws``, but ``you draw``, ``you have``."""
    if subject != "you" and not subject.startswith("you "):
        return third_person
    first, space, rest = third_person.partition(" ")
    base = {"has": "have", "is": "are", "does": "do"}.get(first, first[:-1] if first.endswith("s") else first)
    return base + space + rest


def player_changes(before: Position, after: Position, labels: Sequence[str] = ()) -> list[list[str]]:
    """What each player did between two positions of one game, in words: tiles played (forced
    ones too), Storms drawn, buys, discards, going home, Steps and VP gained or lost.

    A buy is a tile the player owns more of (bag, hand, path, set aside) that left the market, so
    buying the kind just played counts; a player labelled ``you`` gets ``draw``, not ``draws``.
    """
    changes: list[list[str]] = []
    bought = Counter({k: before.market[k] - after.market[k] for k in range(len(after.market))
                      if before.market[k] > after.market[k]})
    boxed = Counter(after.box) - Counter(before.box)
    for p in range(after.players):
        label = _label(labels, p)
        events: list[str] = []
        for kind in (Counter(after.paths[p]) - Counter(before.paths[p])).elements():
            events.append(verb(label, f"plays {TILES[kind].name}"))
        storms = after.owned_storms[p] - before.owned_storms[p]
        if storms > 0:
            events.append(verb(label, f"draws {'a Storm' if storms == 1 else f'{storms} Storms'}"))
        owned_before, owned_after = _owned(before, p), _owned(after, p)
        gained = owned_after - owned_before
        for kind in sorted(bought):
            for _ in range(min(gained[kind], bought[kind])):
                events.append(verb(label, f"buys {TILES[kind].name} for {plural(TILES[kind].cost, 'Step')}"))
                bought[kind] -= 1
        lost = owned_before - owned_after
        for kind in sorted(boxed):
            for _ in range(min(lost[kind], boxed[kind])):
                events.append(verb(label, f"discards {TILES[kind].name}"))
                boxed[kind] -= 1
        if returned_home(before, after, p):
            events.append(verb(label, "returns home"))
        vp, steps = after.vp[p] - before.vp[p], after.steps[p] - before.steps[p]
        if vp:
            events.append(f"{vp:+d} VP (now {after.vp[p]})")
        if steps:
            events.append(f"{'+' if steps > 0 else '-'}{plural(abs(steps), 'Step')} (now {after.steps[p]})")
        changes.append(events)
    return changes


def _owned(pos: Position, player: int) -> Counter[Kind]:
    """Every tile a player owns outside the track: bag, hand, path and set-aside."""
    return (Counter(pos.bags[player]) + Counter(pos.hands[player]) + Counter(pos.paths[player])
            + Counter(pos.set_aside[player]))


def returned_home(before: Position, after: Position, player: int) -> bool:
    """The player went home between the two positions: stopped walking within the walk, or ended
    the walk by going home (the last walker's return-discard, or every walker returning at once)."""
    if not before.walking[player]:
        return False
    if before.walk == after.walk:
        return not after.walking[player]
    return before.phase == phases.DECIDE or (before.phase == phases.RETURN_DISCARD
                                             and before.actor == player)
