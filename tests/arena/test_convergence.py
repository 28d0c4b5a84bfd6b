"""`refuge convergence` (issue 27): the same self-play decisions searched at rising budgets; agreement
and regret per family and budget, resumable, the same whatever the worker count."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from advisor.arena.convergence import (
    ConvergenceError, ConvergenceSettings, by_kind, family_agreement, joined, probe_game, read_probe, run_probe,
    summarize,
)
from advisor.cli.main import cli
from positions.kernel import phases

TINY = ConvergenceSettings(seed=7, families=(("default", "ismcts"), ("rollout", "ismcts:evaluator=rollout")),
                           budgets=(4, 16), repeats=2, games=3, per_game=2, play="ismcts:iterations=4")


def _search(chosen: int, means: dict[int, float]) -> dict[str, object]:
    return {"chosen": chosen, "actions": [[a, 10, w] for a, w in means.items()]}


def _decision(by_budget: dict[str, list[dict[str, object]]], phase: int = phases.BUY) -> dict[str, object]:
    return {"decisions": [{"phase": phase, "searches": {"f": by_budget}}]}


def test_agreement_and_regret_are_read_from_independent_searches() -> None:
    top = [_search(1, {1: 0.6, 2: 0.5}), _search(2, {1: 0.55, 2: 0.6})]
    rows = [_decision({"10": [_search(1, {}), _search(2, {})], "40": top}),
            _decision({"10": [_search(1, {}), _search(1, {})], "40": [_search(1, {1: 0.7, 2: 0.4})] * 2})]
    low, high = summarize(rows, ["f"], (10, 40))
    assert (low.budget, low.decisions) == (10, 2)
    assert low.self_agreement == pytest.approx((0 + 1) / 2)
    # decision 1: choices (1, 2) against top (1, 2): 2 of 4 pairs agree; decision 2: all 4 agree
    assert low.top_agreement == pytest.approx((0.5 + 1) / 2)
    # repeat r is graded by top repeat r + 1: decision 1 chose 1 (graded by top #1: 0.6 - 0.55) and
    # 2 (graded by top #0: 0.6 - 0.5); decision 2 chose 1 twice, the best
    assert low.regret == pytest.approx(((0.05 + 0.1) / 2 + 0) / 2)
    # the top budget is graded by the other repeat: its own best is not its regret
    assert high.self_agreement == pytest.approx(0.5) and high.top_agreement == high.self_agreement
    assert high.regret == pytest.approx(((0.6 - 0.55) + (0.6 - 0.5)) / 2 / 2)


def test_an_unvisited_choice_costs_the_worst_mean_of_the_grader() -> None:
    grader = {"chosen": 1, "actions": [[1, 30, 0.7], [2, 5, 0.2], [3, 0, 0.9]]}
    rows = [_decision({"10": [_search(3, {}), _search(3, {})], "40": [grader, grader]})]
    assert summarize(rows, ["f"], (10, 40))[0].regret == pytest.approx(0.5)


def test_decisions_are_told_by_kind_with_how_close_the_call_was() -> None:
    settled = {"10": [_search(1, {}), _search(1, {})], "40": [_search(1, {1: 0.8, 2: 0.3})] * 2}
    flipping = {"10": [_search(1, {}), _search(2, {})], "40": [_search(2, {1: 0.50, 2: 0.51})] * 2}
    rows = [_decision(settled, phases.DECIDE), _decision(flipping), _decision(settled, phases.BUY)]
    kinds = by_kind(rows, ["f"], (10, 40))
    assert [(k.kind, k.decisions, k.unsettled) for k in kinds] == [("buy", 2, 1), ("decide", 1, 0)]
    assert kinds[0].median_gap == pytest.approx((0.01 + 0.5) / 2) and kinds[1].median_gap == pytest.approx(0.5)


def test_two_probes_of_the_same_decisions_are_joined_and_compared() -> None:
    def line(game: int, decision: int, family: str, choices: list[int]) -> dict[str, object]:
        return {"game": game, "decisions": [{"decision": decision, "player": 0, "searches": {
            family: {"10": [_search(c, {}) for c in choices]}}}]}

    first = [line(0, 3, "a", [1, 1]), line(1, 5, "a", [1, 2])]
    second = [line(1, 5, "b", [2, 2]), line(0, 3, "b", [1, 2]), line(2, 4, "b", [1, 1])]
    rows = joined(first, second)
    assert [row["game"] for row in rows] == [0, 1]  # the games both hold
    assert family_agreement(rows, "a", "b", 10) == pytest.approx((2 / 4 + 2 / 4) / 2)
    assert family_agreement(rows, "a", "a", 10) == pytest.approx((1 + 2 / 4) / 2)
    with pytest.raises(ConvergenceError, match="game 0: the two probes searched other decisions"):
        joined(first, [line(0, 4, "b", [1, 1])])


def test_a_probe_is_the_same_with_two_workers_and_after_a_crash(tmp_path) -> None:
    serial, parallel = tmp_path / "serial.jsonl", tmp_path / "parallel.jsonl"
    assert run_probe(str(serial), TINY, workers=1) == 3
    assert run_probe(str(parallel), TINY, workers=2) == 3
    _, rows = read_probe(str(serial), TINY)
    assert read_probe(str(parallel), TINY)[1] == rows
    assert [row["game"] for row in rows] == [0, 1, 2]
    for row in rows:
        assert len(row["decisions"]) == 2
        for decision in row["decisions"]:
            assert decision["legal"] > 1
            for family in ("default", "rollout"):
                runs = decision["searches"][family]
                assert sorted(runs) == ["16", "4"] and all(len(r) == 2 for r in runs.values())
                for run in runs["16"]:
                    assert sum(visits for _, visits, _ in run["actions"]) >= 16
                    assert run["chosen"] in {action for action, _, _ in run["actions"]}

    lines = serial.read_text().splitlines(keepends=True)
    serial.write_text("".join(lines[:2]) + lines[2][:40])  # game 1 lost, game 2 torn mid-write
    with pytest.raises(ConvergenceError, match="--resume"):
        run_probe(str(serial), TINY)
    assert run_probe(str(serial), TINY, resume=True) == 2
    assert read_probe(str(serial), TINY)[1] == rows
    assert summarize(rows, ["default", "rollout"], TINY.budgets) == summarize(
        read_probe(str(parallel))[1], ["default", "rollout"], TINY.budgets)


def test_a_game_line_depends_only_on_its_seed() -> None:
    first = probe_game(1, TINY)
    assert probe_game(1, TINY) == first
    assert probe_game(1, dataclasses.replace(TINY, seed=8)) != first


@pytest.mark.parametrize(("changes", "message"), [
    ({"budgets": (16, 4)}, "rising"),
    ({"budgets": (16,)}, "two or more"),
    ({"repeats": 1}, "repeats must be"),
    ({"families": (("a", "greedy"),)}, "ismcts"),
    ({"families": (("a", "ismcts:iterations=5"),)}, "leave out iterations"),
    ({"families": (("a", "ismcts"), ("a", "ismcts:exploration=1"))}, "each family once"),
    ({"play": "nobody"}, "nobody"),
])
def test_bad_settings_are_refused_before_any_game(tmp_path, changes, message) -> None:
    settings = dataclasses.replace(TINY, **changes)
    with pytest.raises(ConvergenceError, match=message):
        run_probe(str(tmp_path / "out.jsonl"), settings)
    assert not (tmp_path / "out.jsonl").exists()


def test_an_output_of_other_settings_or_no_probe_is_refused(tmp_path) -> None:
    out = tmp_path / "out.jsonl"
    run_probe(str(out), dataclasses.replace(TINY, games=1))
    with pytest.raises(ConvergenceError, match="other settings"):
        run_probe(str(out), dataclasses.replace(TINY, games=2, seed=9), resume=True)
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"kind": "something else"}) + "\n")
    with pytest.raises(ConvergenceError, match="not a convergence probe"):
        read_probe(str(other))


def test_the_command_prints_the_table_and_bad_options_are_one_line(tmp_path) -> None:
    out = str(tmp_path / "probe.jsonl")
    args = ["convergence", "--budgets", "3,9", "--games", "1", "--per-game", "2", "--play",
            "ismcts:iterations=3", "--seed", "4", "--workers", "1", "--out", out]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    table = [line.split() for line in result.output.splitlines() if line.startswith("default")]
    assert [row[:3] for row in table[:2]] == [["default", "3", "2"], ["default", "9", "2"]]
    assert all(0 <= float(row[3]) <= 1 and 0 <= float(row[4]) <= 1 for row in table[:2])
    kinds = table[2:]  # the second table: one row per kind of decision met, two decisions in all
    assert kinds and sum(int(row[2]) for row in kinds) == 2 and "unsettled" in result.output

    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 1 and again.output.strip().startswith("error:") and "--resume" in again.output
    assert len(again.output.strip().splitlines()) == 1
    other = str(tmp_path / "other.jsonl")
    joined_run = CliRunner().invoke(cli, [*args[:-1], other, "--family", "rollout=ismcts:evaluator=rollout",
                                          "--join", out])
    assert joined_run.exit_code == 0, joined_run.output
    cross = [line.split() for line in joined_run.output.splitlines() if line.startswith("rollout / default")]
    assert len(cross) == 1 and cross[0][3] == "2" and all(0 <= float(x) <= 1 for x in cross[0][4:])

    bad = CliRunner().invoke(cli, [*args[:2], "9,3", *args[3:-1], str(tmp_path / "b.jsonl")])
    assert bad.exit_code == 1 and "rising" in bad.output and "Traceback" not in bad.output
