"""Does an evaluator rank a buy's options as a reference agent does (issue 27)? The options are
played out on the whole position, the other seats' pending choices passed alike, and the best
option by the evaluator compared with the reference's choice on the decider's view."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lab.decisions import stored_decisions
from lab.evaluator_ranking import best_option, ranked_buys, ranking_agreement, reference_choices
from advisor.players.bots import greedy_bot
from advisor.players.learned import LearnedEvaluator
from lab.options import after_option
from positions.kernel import phases
from positions.kernel.actions import BUY, PASS
from positions.kernel.position import Position

SCRIPT = Path(__file__).resolve().parents[2] / "lab" / "scripts" / "evaluator_ranking.py"


class OwnsMore:
    """A toy evaluator: the decider's share grows with the tiles they own (it likes any buy)."""

    def evaluate(self, state: Position) -> tuple[list[float], list[float]]:
        owned = [len(state.bags[p]) + len(state.paths[p]) + len(state.hands[p]) + len(state.set_aside[p])
                 for p in range(state.players)]
        total = sum(owned)
        return [n / total for n in owned], [float(n) for n in owned]


def test_the_sample_is_the_buys_with_a_choice_before_the_last_walk(arena_db) -> None:
    decisions = list(stored_decisions(arena_db))
    buys = ranked_buys(decisions)
    assert buys and all(d.position.phase == phases.BUY and len(d.position.legal_actions()) > 1
                        and d.position.walk < d.position.ruleset.walks - 1 for d in buys)
    assert len(buys) == sum(1 for d in decisions if d.position.phase == phases.BUY
                            and d.position.walk < 4 and len(d.position.legal_actions()) > 1)
    sample = ranked_buys(decisions, 5, seed=3)
    assert len(sample) == 5 and sample == ranked_buys(decisions, 5, seed=3) and set(map(id, sample)) <= set(map(id, buys))


def test_each_option_changes_only_the_deciders_side(arena_db) -> None:
    """After every option the step is complete (the next event is chance or a later phase) and the
    other players' holdings and Steps are the same whichever option the decider took."""
    for decision in ranked_buys(list(stored_decisions(arena_db)), 12, seed=1):
        pos, seat = decision.position, decision.seat
        afters = [after_option(pos, a) for a in pos.legal_actions()]
        for after in afters:
            assert after.is_chance() or after.phase != phases.BUY
        for other in range(pos.players):
            if other != seat:
                assert len({(a.bags[other], a.steps[other]) for a in afters}) == 1
        assert len({a.bags[seat] for a in afters}) == len(afters)  # each option its own bag


def test_a_toy_evaluator_that_likes_owning_buys_and_agrees_with_greedy(arena_db) -> None:
    buys = ranked_buys(list(stored_decisions(arena_db)))
    for decision in buys:
        assert best_option(decision.position, OwnsMore()) != PASS
        assert best_option(decision.position, OwnsMore()) in BUY
    choices = reference_choices(buys, greedy_bot())
    assert all(c != PASS for c in choices)  # greedy buys whenever it can
    agreement = ranking_agreement(buys, choices, OwnsMore())
    assert agreement.decisions == len(buys) and 0 <= agreement.same <= agreement.decisions
    assert ranking_agreement(buys, [PASS] * len(buys), OwnsMore()).same == 0
    shipped = ranking_agreement(buys, choices, LearnedEvaluator())
    assert shipped.decisions == len(buys) and 0 <= shipped.share <= 1


def test_the_script_prints_a_row_per_evaluator_and_refuses_bad_input(tmp_path, arena_db) -> None:
    result = subprocess.run([sys.executable, str(SCRIPT), "--db", arena_db, "--reference", "greedy",
                             "--decisions", "6"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "6 buy decisions" in result.stdout
    for row in ("shipped model", "HeuristicEvaluator", "the stored choices of h", "the stored choices of g"):
        assert row in result.stdout
    for argv, message in ((["--db", str(tmp_path / "none.sqlite")], "no such arena database"),
                          (["--db", arena_db, "--reference", "ismcts:colour=red"], "colour"),
                          (["--db", arena_db, "--model", str(tmp_path / "m.json")], "m.json")):
        bad = subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
        assert bad.stderr.startswith("evaluator_ranking.py: ") and message in bad.stderr
