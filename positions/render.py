"""A plain, readable text rendering of a position."""

from __future__ import annotations

from collections import Counter

from positions import phases
from positions.position import Position
from positions.rules import paw_total
from positions.tiles import TILES, Kind


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
        f"Walk {min(pos.walk + 1, pos.ruleset.walks)}/{pos.ruleset.walks}, turn {pos.turn + 1}: "
        f"{whose_turn(pos)}",
        f"Weather: track {pos.track_suns} sun, {pos.storms_on_track()}/{pos.threshold} storm "
        f"(owned {list(pos.owned_storms)}); deck {pos.deck_suns} sun + {pos.deck_storms} storm; "
        f"reserve {pos.reserve}",
        "Market: " + ", ".join(f"{TILES[k].name} x{pos.market[k]} ({TILES[k].cost})"
                               for k in pos.route.kinds),
    ]
    for player in range(pos.players):
        status = "walking" if pos.walking[player] else "home"
        lines.append(
            f"P{player}: {pos.vp[player]} VP, {pos.steps[player]} steps, {status}; "
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
