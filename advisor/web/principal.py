"""The board's line: the recommendation, then every player's most visited reply in the search tree
and the outcome of each chance event (a draw, the weather) the search drew most (else the
likeliest), with its chance, played on the
position until the deciding player's fifth decision, the tree's edge or a thin node."""

from __future__ import annotations

from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.kernel.position import Position
from search.request import SearchTree

OWN_DECISIONS = 4
"""The line stops before the deciding player's fifth decision (best-move's line shows as many)."""
MAX_EVENTS = 16
MIN_VISITS = 10
"""A reply visited fewer times than this is too thin to show: the line stops there."""


def line_with_replies(position: Position, tree: SearchTree, first: int) -> list[dict[str, object]]:
    """``[{player, action, visits}]`` for decisions (``first``, the recommendation, has no visits)
    and ``[{player: None, drawer, action, probability}]`` for chance events, in the order played."""
    state = position.copy()
    player = state.current_player()
    line: list[dict[str, object]] = []
    own = 0
    chosen: int | None = first
    while len(line) < MAX_EVENTS and not state.is_terminal():
        if state.is_chance():  # the outcome the search drew most here, else the likeliest
            drawn = tree.nodes.get((phases.CHANCE_PLAYER, state.information_set_key(player)), {})
            outcome, probability = max(state.chance_outcomes(),
                                       key=lambda entry: (drawn.get(entry[0], (0, 0))[0], entry[1]))
            drawer = state.actor if state.phase in (phases.DEAL, phases.EXTRA_DRAW) else None
            line.append({"player": None, "drawer": drawer, "action": str(outcome),
                         "probability": round(probability, 4)})
            state.apply(outcome)
            continue
        actor = state.current_player()
        visits = None
        if chosen is None:
            stats = tree.nodes.get((actor, state.information_set_key(actor)))
            if not stats:
                break
            chosen = max(stats, key=lambda action: stats[action][0])
            visits = int(stats[chosen][0])
            if visits < MIN_VISITS or chosen not in state.legal_actions():
                break
        own += actor == player
        if own > OWN_DECISIONS:
            break
        line.append({"player": actor, "action": str(action_from_code(chosen)), "visits": visits})
        state.apply(chosen)
        chosen = None
    return line
