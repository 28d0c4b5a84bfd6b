"""What the pages draw, as JSON: a position's board, the tile catalogue, a game's move list."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from advisor.analysis.track import choosing
from positions.kernel import phases
from positions.events import event_options
from positions.kernel.actions import action_from_code
from positions.kernel.position import Position
from positions.kernel.rules import choice_revealed
from positions.kernel.view import walk_number
from positions.record import Replay
from positions.kernel.routes import ROUTES
from positions.kernel.rulesets import DEFAULT_RULESET, RULES_VERSION
from positions.render import decision_words, plural
from positions.kernel.tiles import TILES, Effect, Kind, TileKind


def _gain(effect: Effect) -> str:
    """One effect as a short phrase: ``+2 Steps``, ``+1 VP per paw``, ``pay 2 VP``."""
    parts = []
    for field, text in (("pay_vp", "pay {} VP"), ("pay_steps", "pay {}"), ("steps", "+{}"),
                        ("vp", "+{} VP"), ("steps_per_sun", "+{} per Sun"),
                        ("vp_per_sun", "+{} VP per Sun"),
                        ("steps_per_path_tile", "+{} per path tile"),
                        ("vp_per_path_tile", "+{} VP per path tile"),
                        ("steps_per_paw", "+{} per paw"), ("vp_per_paw", "+{} VP per paw"),
                        ("extra_plays", "{}")):
        value = getattr(effect, field)
        if value:  # "+1 Step", "+2 Steps per Sun" (positions.render.plural), "2 extra plays"
            if field == "extra_plays":
                parts.append(f"{value} extra play{'' if value == 1 else 's'}")
            else:
                parts.append(text.format(plural(value, "Step") if "steps" in field else value))
    if effect.discards:
        required = f", {effect.discards_required} required" if effect.discards_required else ", optional"
        parts.append(f"discard up to {effect.discards}{required}")
    return ", ".join(parts) or "no effect"


def effect_text(tile: TileKind) -> str:
    """A tile's effect in words; "X OR Y" tiles (C9) list both."""
    return " OR ".join(_gain(effect) for effect in tile.effects)


def tile_to_data(tile: TileKind) -> dict[str, object]:
    """One catalogue entry for the pages (names, cost, paw value, effect)."""
    return {"name": tile.name, "title": tile.title, "category": tile.category, "cost": tile.cost,
            "paw": tile.paw, "priority": tile.priority, "start": tile.is_start,
            "effect": effect_text(tile)}


def catalogue() -> dict[str, object]:
    """The tile catalogue, the routes, the phases and the default ruleset's facts."""
    return {
        "rules_version": RULES_VERSION,
        "tiles": [tile_to_data(t) for t in TILES],
        "routes": {name: [TILES[k].name for k in route.kinds] for name, route in ROUTES.items()},
        "phases": list(phases.NAMES),
        "player_counts": list(DEFAULT_RULESET.player_counts),
        "walks": DEFAULT_RULESET.walks,
    }


def _names(tiles: Sequence[Kind]) -> list[str]:
    return [TILES[k].name for k in tiles]


def _counts(tiles: Sequence[Kind]) -> dict[str, int]:
    counts = Counter(tiles)
    return {TILES[k].name: counts[k] for k in sorted(counts)}


def _player(pos: Position, seat: int, names: Sequence[str]) -> dict[str, object]:
    pending = pos.pending[seat] if seat < len(pos.pending) else -1
    chosen = None
    if pos.phase in phases.SIMULTANEOUS and seat < pos.actor and pending >= 0:
        chosen = "hidden"  # chosen already, not revealed to the player deciding now (C6, C8, C12)
    elif pending >= 0 and choice_revealed(pos, seat):
        chosen = str(action_from_code(pending))
    return {
        "seat": seat, "name": names[seat] if seat < len(names) else "",
        "status": "walking" if pos.walking[seat] else "home",
        "vp": pos.vp[seat], "steps": pos.steps[seat], "storms": pos.owned_storms[seat],
        "path": _names(pos.paths[seat]), "hand": _names(pos.hands[seat]),
        "set_aside": _names(pos.set_aside[seat]), "bag": _counts(pos.bags[seat]),
        "bag_size": len(pos.bags[seat]), "choice": chosen,
        "bag_unknown": seat in pos.hidden_bags,  # "bag" is then one guess of its tiles, not known
    }


def _decision(pos: Position, names: Sequence[str]) -> dict[str, object]:
    player = pos.current_player()
    data: dict[str, object] = {"phase": phases.NAMES[pos.phase], "player": player if player >= 0 else None,
                               "kind": ("over" if player == phases.TERMINAL_PLAYER else
                                        "chance" if player == phases.CHANCE_PLAYER else "decision")}
    if pos.phase in (phases.OPTION, phases.DISCARD) and pos.tile >= 0:
        data["tile"] = TILES[pos.tile].name
    if player >= 0:
        who = names[player] if player < len(names) and names[player] else f"player {player}"
        tile = f" ({TILES[pos.tile].name})" if "tile" in data else ""
        data["text"] = f"{who} to decide: {decision_words(pos.phase)}{tile}"
    elif player == phases.CHANCE_PLAYER:
        drawer = pos.actor if pos.phase in (phases.DEAL, phases.EXTRA_DRAW) else None
        data["drawer"] = drawer
        data["text"] = f"chance: {phases.NAMES[pos.phase]}" + (
            f" for player {drawer}" if drawer is not None else "")
    else:
        data["text"] = f"game over, scores {pos.scores()}"
    return data


def position_view(pos: Position, names: Sequence[str] = ()) -> dict[str, object]:
    """Everything the board draws for `pos`: paths, hands, bags, scores, weather, market, decision."""
    player = pos.current_player()
    legal: list[str] = []
    chance: list[dict[str, object]] = []
    if player >= 0:
        legal = [str(a) for a in pos.legal_actions()]
    elif player == phases.CHANCE_PLAYER:
        chance = [{"action": str(a), "probability": round(p, 6)} for a, p in pos.chance_outcomes()]
    seats = [{"seat": seat, "options": [str(a) for a in event_options(pos, seat)]} for seat in choosing(pos)]
    return {
        "players": [_player(pos, seat, names) for seat in range(pos.players)],
        "seats": seats,
        "route": {"name": pos.route.name,
                  "stacks": [{"tile": TILES[k].name, "cost": TILES[k].cost, "left": pos.market[k],
                              "category": TILES[k].category} for k in pos.route.kinds]},
        "ruleset": pos.ruleset.name,
        "walk": walk_number(pos), "walks": pos.ruleset.walks,
        "turn": pos.turn + 1,
        "weather": {"track_suns": pos.track_suns, "track_storms": pos.track_storms,
                    "owned_storms": list(pos.owned_storms), "storms_on_track": pos.storms_on_track(),
                    "threshold": pos.threshold, "deck_suns": pos.deck_suns,
                    "deck_storms": pos.deck_storms, "reserve": pos.reserve},
        "box": _counts(pos.box),
        "decision": _decision(pos, names),
        "legal": legal,
        "chance": chance,
        "scores": pos.scores() if pos.is_terminal() else None,
    }


def moves_to_data(game: Replay, names: Sequence[str] = ()) -> list[dict[str, object]]:
    """A game's events for the move list: index, walk, turn, who, notation, chance or not."""
    moves: list[dict[str, object]] = []
    for step in game.steps:
        pos = step.position
        moves.append({"event": step.event, "walk": walk_number(pos),
                      "turn": pos.turn + 1, "player": step.player if step.player >= 0 else None,
                      "action": str(step.action), "chance": step.player == phases.CHANCE_PLAYER,
                      "drawer": pos.actor if pos.phase in (phases.DEAL, phases.EXTRA_DRAW) else None})
    return moves
