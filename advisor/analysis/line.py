"""The principal line: the most visited continuation of the deciding player's own next decisions."""

from __future__ import annotations

from typing import Hashable, Sequence

from advisor.analysis.intervals import Following, following_edges
from positions.kernel.actions import action_from_code
from search.request import SearchTree

MAX_MOVES = 5
"""The line stops after this many of the player's own decisions."""
MIN_WALKED = 20
"""The line stops where the continuation was walked fewer times than this (too thin to show)."""


def principal_line(tree: SearchTree, root: Hashable, first: int, player: int,
                   max_moves: int = MAX_MOVES, min_walked: int = MIN_WALKED,
                   following: Following | None = None) -> list[int]:
    """`first`, then the player's own next decisions along the most walked edges of `tree`.

    From each (node, action) the line follows the information set met most often next; at another
    player's node it follows that player's most visited action without showing it. It stops at the
    edge of the tree, on a thin edge, or after `max_moves` of the player's decisions.
    """
    if following is None:
        following = following_edges(tree)
    line = [first]
    key, action = root, first
    for _ in range(64):  # bounds the walk should the tree hold a cycle of information sets
        if len(line) >= max_moves:
            break
        nexts = following.get((key, action))
        if not nexts:
            break
        child, walked = max(nexts.items(), key=lambda entry: entry[1])  # first of equals: insertion order
        stats = tree.nodes.get(child)
        if walked < min_walked or not stats:
            break
        action = max(stats, key=lambda a: stats[a][0])
        if isinstance(child, tuple) and child and child[0] == player:
            line.append(action)
        key = child
    return line


def line_in_words(line: Sequence[int]) -> str:
    """A line in notation joined by arrows; the first move after a return (and its return-discard)
    is marked ``next walk:`` — a player who has gone home decides nothing more in this walk (C6)."""
    words: list[str] = []
    home = False  # returned; the return-discard, if any, may still follow
    for action in line:
        word = str(action_from_code(action))
        if home and word.startswith("discard") and not words[-1].startswith("discard"):
            words.append(word)  # the return-discard (C15)
            continue
        words.append(f"next walk: {word}" if home else word)
        home = word == "return"
    return " → ".join(words)
