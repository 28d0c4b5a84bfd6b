"""`refuge ladder`: Bradley–Terry ratings of every agent and version from all games in an arena store.

An agent's identity is its name and the code it played (``name@revision``), so one name tested at
several revisions gives one rating per version. Agents that never met (directly or through others)
cannot be compared: each connected group of the who-played-whom graph is rated on its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import networkx as nx
from tabulate import tabulate

from advisor.arena.store import StoredGame
from advisor.arena.stats import Rating, bradley_terry
from positions.errors import RefugeError
from positions.render import printable


class LadderError(RefugeError):
    """A ladder that cannot be computed: no games, an unknown anchor, an unwritable plot."""


@dataclass(frozen=True)
class Rated:
    """One agent version's rating within its group."""

    label: str
    name: str
    revision: str
    rating: Rating
    group: int
    anchor: str


def label(name: str, revision: str) -> str:
    """``name@revision`` (just the name when the revision is unknown)."""
    return f"{name}@{revision}" if revision else name


def pairwise(games: Iterable[StoredGame]) -> tuple[list[tuple[str, str, float]], dict[str, tuple[str, str]]]:
    """Every (a, b, score of a) between seats of different agent versions, and who each label is.

    The share of the win decides, then the final score (as in the arena's own table).
    """
    results: list[tuple[str, str, float]] = []
    who: dict[str, tuple[str, str]] = {}
    for game in games:
        labels = [label(name, revision) for name, _, revision in game.seats]
        for (name, _, revision), text in zip(game.seats, labels):
            who.setdefault(text, (name, revision))
        for i in range(len(labels)):
            for j in range(i + 1, len(labels)):
                if labels[i] == labels[j]:
                    continue
                a, b = (game.returns[i], game.scores[i]), (game.returns[j], game.scores[j])
                results.append((labels[i], labels[j], 1.0 if a > b else 0.5 if a == b else 0.0))
    return results, who


def _find_anchor(anchor: str, labels: Sequence[str], who: dict[str, tuple[str, str]]) -> str:
    if anchor in labels:
        return anchor
    matches = sorted(text for text in labels if who[text][0] == anchor)
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise LadderError(f"anchor {anchor!r} names {len(matches)} versions: {', '.join(matches)} "
                          "(give one as NAME@REVISION)")
    raise LadderError(f"unknown anchor {anchor!r} (agents: {', '.join(sorted(labels))})")


def ladder(games: Iterable[StoredGame], anchor: str | None = None) -> list[Rated]:
    """Ratings of every agent version, one Bradley–Terry fit per connected group of agents.

    Raises:
        LadderError: no games between two different agents, or an unknown or ambiguous anchor.
    """
    results, who = pairwise(games)
    if not results:
        raise LadderError("no games between two different agents in the store")
    graph = nx.Graph()
    played: Counter[str] = Counter()
    for a, b, _ in results:
        graph.add_edge(a, b)
        played[a] += 1
        played[b] += 1
    chosen = _find_anchor(anchor, list(who), who) if anchor is not None else None
    groups = sorted(nx.connected_components(graph), key=lambda g: (chosen not in g, -len(g)))
    rated: list[Rated] = []
    for number, members in enumerate(groups, 1):
        names = sorted(members)
        group_anchor = (chosen if chosen is not None and chosen in members
                        else max(names, key=lambda n: (played[n], n)))
        group_results = [r for r in results if r[0] in members]
        for rating in bradley_terry(names, group_results, group_anchor):
            name, revision = who[rating.name]
            rated.append(Rated(rating.name, name, revision, rating, number, group_anchor))
    return rated


def format_ladder(rated: Sequence[Rated]) -> str:
    """The ladder as a table, best first within each group."""
    rows = []
    for entry in rated:
        r = entry.rating
        rows.append([entry.group, printable(entry.name), printable(entry.revision) or "-", f"{r.elo:+.1f}",
                     f"[{r.ci95[0]:+.1f}, {r.ci95[1]:+.1f}]", r.games,
                     "yes" if entry.label == entry.anchor else ""])
    return tabulate(rows, headers=["group", "agent", "version", "Elo", "95% CI", "games", "anchor"],
                    tablefmt="simple", disable_numparse=True)
