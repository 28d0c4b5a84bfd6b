"""The reference a player reads: every tile, route and ruleset as plain data, from the kernel's tables.

`refuge catalogue` prints it (text or ``--json``) and docs/catalogue.md is that text, so the page is
generated from ``positions/kernel/tiles.py``, ``routes.py`` and ``rulesets.py`` and cannot drift.
"""

from __future__ import annotations

from collections import Counter

from positions.kernel.routes import ROUTES, Route
from positions.kernel.rulesets import RULES_VERSION, RULESETS, Ruleset
from positions.kernel.tiles import STORM, TILES, TileKind
from positions.render import effect_text

FORMAT = "refuge-catalogue/1"


def tile_entry(tile: TileKind) -> dict[str, object]:
    """One tile kind: names, kind, cost (``None`` for start tiles and the Storm), paw, priority,
    effect in words and whether it is a start tile."""
    return {"name": tile.name, "title": tile.title, "kind": tile.category,
            "cost": None if tile.is_start or tile.kind == STORM else tile.cost,
            "paw": tile.paw, "priority": tile.priority, "start": tile.is_start,
            "effect": "-" if tile.kind == STORM else effect_text(tile.kind)}


def route_entry(route: Route) -> dict[str, object]:
    """One route's market: its 4 object stacks and 4 landscape/animal stacks, cheapest first."""
    return {"name": route.name,
            "objects": [TILES[k].name for k in route.objects],
            "nature": [TILES[k].name for k in route.nature]}


def bag_counts(bag: tuple[int, ...]) -> dict[str, int]:
    """A bag as ``{kind name: count}`` in catalogue order."""
    counts = Counter(bag)
    return {TILES[k].name: counts[k] for k in sorted(counts)}


def ruleset_entry(ruleset: Ruleset) -> dict[str, object]:
    """One ruleset's facts (C1, C4, C5, C16, C17): start bag, Storm thresholds, penalised tiles, sizes."""
    return {"name": ruleset.name,
            "start_bag": bag_counts(ruleset.start_bag),
            "start_steps": ruleset.start_steps,
            "storm_thresholds": {str(players): threshold for players, threshold in ruleset.storm_thresholds},
            "penalised": "every walk tile" if ruleset.penalised_kinds is None
            else [TILES[k].name for k in ruleset.penalised_kinds],
            "walks": ruleset.walks,
            "weather_deck": {"sun": ruleset.deck_suns, "storm": ruleset.deck_storms},
            "reserve_storms": ruleset.reserve_storms,
            "market_stack_size": ruleset.stack_size}


def catalogue() -> dict[str, object]:
    """The whole catalogue, the ``refuge catalogue --json`` document."""
    return {"format": FORMAT, "rules_version": RULES_VERSION,
            "tiles": [tile_entry(t) for t in TILES],
            "routes": [route_entry(r) for r in ROUTES.values()],
            "rulesets": [ruleset_entry(r) for r in RULESETS.values()]}
