"""Does an evaluator rank a decision's options as a deep search does? (issue 27)

A search asks its evaluator which of the positions its options lead to is better; a fit to who won
games need not answer that well (docs/strength.md, "A worth per tile kind"). Here every buy
decision with a choice before the last walk of a stored arena run (or a seeded sample of them) is
played out once per option: the option applied, the other players' choices still pending in that
step completed by passing (the same for every option, so only the decider's side differs), and the
evaluator's win share for the decider read off the position it leads to. Its best option is
compared with what a reference agent chooses on the decider's own view.
"""

from __future__ import annotations

import random
from typing import Sequence

from lab.decisions import Agreement, StoredDecision
from lab.options import after_option, is_early_buy
from positions.kernel.actions import Action
from positions.kernel.position import Position
from positions.kernel.view import seat_view
from search.protocol import Evaluator, Policy
from search.seeds import derive_seed


def ranked_buys(decisions: Sequence[StoredDecision], limit: int | None = None,
                seed: int = 0) -> list[StoredDecision]:
    """The buy decisions with a choice before the last walk, in store order; with `limit`, a
    sample of that many drawn from `seed` (kept in store order)."""
    buys = [d for d in decisions if is_early_buy(d.position) and len(d.position.legal_actions()) > 1]
    if limit is not None and limit < len(buys):
        chosen = sorted(random.Random(derive_seed(seed, "ranked-buys")).sample(range(len(buys)), limit))
        buys = [buys[i] for i in chosen]
    return buys


def best_option(position: Position, evaluator: Evaluator[Position]) -> Action:
    """The option whose position the evaluator gives the decider the largest win share (first of
    equals, in legal order)."""
    seat = position.current_player()
    legal = position.legal_actions()
    shares = [evaluator.evaluate(after_option(position, action))[0][seat] for action in legal]
    return legal[max(range(len(legal)), key=shares.__getitem__)]


def reference_choices(buys: Sequence[StoredDecision], reference: Policy[Position], seed: int = 0) -> list[int]:
    """The reference's choice at each decision, on the decider's view (each view and search seeded
    by `seed` and the decision's number)."""
    choices = []
    for number, decision in enumerate(buys):
        rng = random.Random(derive_seed(seed, "ranking-reference", number))
        choices.append(reference.choose(seat_view(decision.position, decision.seat, rng), rng))
    return choices


def ranking_agreement(buys: Sequence[StoredDecision], choices: Sequence[int],
                      evaluator: Evaluator[Position]) -> Agreement:
    """How often `evaluator`'s best option is the reference's choice (an :class:`Agreement`)."""
    same = sum(best_option(d.position, evaluator) == choice for d, choice in zip(buys, choices))
    return Agreement(len(buys), same)
