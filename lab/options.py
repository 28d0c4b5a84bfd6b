"""The position one option of a decision leads to, for judging a decision's options side by side
(issue 27: does an evaluator rank them as a deep search does?)."""

from __future__ import annotations

from positions.kernel import phases
from positions.kernel.actions import PASS
from positions.kernel.position import Position


def after_option(position: Position, action: int) -> Position:
    """The position `action` leads to, the others' pending choices of the same step made as passes
    (or their first legal action), alike for every option so only the decider's side differs."""
    after = position.copy()
    after.apply(action)
    while not after.is_terminal() and not after.is_chance() and after.phase == position.phase:
        legal = after.legal_actions()
        after.apply(PASS if PASS in legal else legal[0])
    return after


def is_early_buy(position: Position) -> bool:
    """Whether `position` asks for a buy before the last walk (where a bought tile pays off walks
    later, beyond the tree and the cut-off; docs/strength.md)."""
    return position.phase == phases.BUY and position.walk < position.ruleset.walks - 1
