"""A plain, readable text rendering of a position."""

from __future__ import annotations

from collections import Counter

from positions import phases
from positions.position import Position
from positions.rules import paw_total
from positions.tiles import TILES, Kind
from positions.view import walk_number


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


def whose_turn(pos: Position) -> str:
    """Who acts next and at which step."""
    player = pos.current_player()
    if player == phases.TERMINAL_PLAYER:
        return "game over"
    if player == phases.CHANCE_PLAYER:
        return f"chance ({phases.NAMES[pos.phase]})"
    return f"player {player} to {phases.NAMES[pos.phase]}"


def render(pos: Position) -> str:
    """The position as lines of text: the walk, the weather, the market and each player."""
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
            f"P{player}: {pos.vp[player]} VP, {plural(pos.steps[player], 'Step')}, {status}; "
            f"path [{tile_list(pos.paths[player])}] (paw {paw_total(pos.paths[player])}); "
            f"hand [{tile_list(pos.hands[player])}]; set aside [{tile_list(pos.set_aside[player])}]; "
            f"bag {len(pos.bags[player])}: {tile_counts(pos.bags[player])}"
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
            required = "" if effect.discards_required else " (optional)"
            words.append(f"discard {effect.discards}{required}")
        halves.append(", ".join(w for w in words if w))
    text = " or ".join(h for h in halves if h)
    if tile.paw:
        text = f"{text}, paw {tile.paw}" if text else f"paw {tile.paw}"
    if tile.priority:
        text += " (played first)"
    return text or "-"


def player_changes(before: Position, after: Position) -> list[list[str]]:
    """What each player did between two positions of one game, in words: tiles played (forced
    ones too), Storms drawn, buys, discards, going home, Steps and VP gained or lost."""
    changes: list[list[str]] = []
    bought = Counter({k: before.market[k] - after.market[k] for k in range(len(after.market))
                      if before.market[k] > after.market[k]})
    boxed = Counter(after.box) - Counter(before.box)
    for p in range(after.players):
        events: list[str] = []
        for kind in (Counter(after.paths[p]) - Counter(before.paths[p])).elements():
            events.append(f"plays {TILES[kind].name}")
        storms = after.owned_storms[p] - before.owned_storms[p]
        if storms > 0:
            events.append(f"draws {'a Storm' if storms == 1 else f'{storms} Storms'}")
        gained = Counter(after.bags[p]) - Counter(before.bags[p])
        for kind in list(bought):
            if gained[kind] and bought[kind]:
                events.append(f"buys {TILES[kind].name} for {TILES[kind].cost} Steps")
                bought[kind] -= 1
        lost = (Counter(before.paths[p]) + Counter(before.hands[p])
                - Counter(after.paths[p]) - Counter(after.hands[p]) - Counter(after.bags[p]))
        for kind in list(boxed):
            if lost[kind] and boxed[kind]:
                events.append(f"discards {TILES[kind].name}")
                boxed[kind] -= 1
        if before.walking[p] and not after.walking[p] and before.walk == after.walk:
            events.append("returns home")
        vp, steps = after.vp[p] - before.vp[p], after.steps[p] - before.steps[p]
        if vp:
            events.append(f"{vp:+d} VP ({after.vp[p]})")
        if steps:
            events.append(f"{steps:+d} Steps ({after.steps[p]})")
        changes.append(events)
    return changes
