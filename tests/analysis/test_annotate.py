"""`refuge annotate`: labels, noise, accuracy, the chart and the errors."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import dataclasses

from advisor.analysis.annotate import (
    SCORE_THRESHOLDS, Annotation, is_saturated, label_for, move_accuracy, win_curves,
)
from advisor.cli import cli

BLUNDER_GAME = "tests/data/blunder-game.json"


def _blunder_event() -> int:
    with open(BLUNDER_GAME, encoding="utf-8") as handle:
        story = json.load(handle)["story"]
    return int(re.match(r"event (\d+):", story).group(1))


def _annotate(*args: str):
    return CliRunner().invoke(cli, ["annotate", *args])


def test_the_deliberate_blunder_is_labelled_and_the_engines_moves_are_not() -> None:
    """Seat 0 (ISMCTS, 1500 iterations) draws again one Storm from the threshold with a rich path."""
    result = _annotate(BLUNDER_GAME, "--players", "0", "--from-event", "100", "--json",
                       "--workers", "1")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    by_event = {d["event"]: d for d in doc["decisions"]}
    blunder = by_event[_blunder_event()]
    assert (blunder["played"], blunder["best"]) == ("draw", "return")
    assert blunder["label"] == "blunder" and blunder["loss"] > blunder["noise"]
    others = [d for e, d in by_event.items() if e != _blunder_event()]
    assert len(others) >= 5
    assert all(d["label"] == "" for d in others), [d for d in others if d["label"]]
    assert all(d["player"] == 0 and d["event"] >= 100 for d in doc["decisions"])
    summary = doc["players"][0]
    assert summary["blunders"] == 1 and 0 < summary["accuracy"] < 100


def test_every_players_curve_comes_from_one_search_and_they_sum_to_100() -> None:
    """C18: the players' win shares at each annotated decision sum to 1, so the chart's curves do."""
    doc = json.loads(_annotate(BLUNDER_GAME, "--from-event", "120", "--iterations", "200",
                               "--json", "--workers", "1").stdout)
    assert doc["decisions"]
    for decision in doc["decisions"]:
        assert len(decision["chances"]) == 2 and sum(decision["chances"]) == pytest.approx(1.0)
        assert decision["situation"].startswith("hand ")
    annotations = [Annotation(**{k: tuple(v) if k in ("chances", "scores") else v
                                 for k, v in d.items()}) for d in doc["decisions"]]
    curves = win_curves(annotations)
    assert sorted(curves) == [0, 1]
    for (event0, w0), (event1, w1) in zip(curves[0], curves[1]):
        assert event0 == event1 and w0 + w1 == pytest.approx(1.0)


def _annotation(**changes) -> Annotation:
    base = Annotation(event=1, walk=5, turn=3, player=0, decision="decide", situation="hand -",
                      played="draw", best="return", played_win=0.01, best_win=0.02,
                      played_score=14.0, best_score=22.0, loss=0.01, score_loss=8.0,
                      measure="score", noise=2.0, label="mistake", played_visits=600,
                      best_visits=600, chances=(0.01, 0.99), scores=(14.0, 40.0))
    return dataclasses.replace(base, **changes)


def test_a_lost_game_still_shows_its_mistakes_in_expected_score() -> None:
    """Both win chances below 3%: the loss is measured in VP (3 / 6 / 10), and costs accuracy."""
    assert is_saturated(0.01, 0.02) and is_saturated(0.98, 0.99)
    assert not is_saturated(0.01, 0.2) and not is_saturated(0.5, 0.5)
    assert label_for(8.0, 2.0, SCORE_THRESHOLDS) == "mistake"
    assert label_for(11.0, 2.0, SCORE_THRESHOLDS) == "blunder"
    assert label_for(4.0, 5.0, SCORE_THRESHOLDS) == ""
    lost_by_a_lot = _annotation()
    assert lost_by_a_lot.accuracy < 90 < _annotation(score_loss=0.5).accuracy
    assert _annotation(measure="win", loss=0.0).accuracy == pytest.approx(100.0, abs=0.01)


def test_annotation_does_not_depend_on_the_worker_count() -> None:
    args = (BLUNDER_GAME, "--players", "0", "--from-event", "130", "--json", "--iterations", "60")
    one = json.loads(_annotate(*args, "--workers", "1").stdout)["decisions"]
    two = json.loads(_annotate(*args, "--workers", "2").stdout)["decisions"]
    assert one == two


def test_text_report_and_chart(tmp_path) -> None:
    chart = tmp_path / "wins.png"
    result = _annotate(BLUNDER_GAME, "--from-event", "125", "--iterations", "60",
                       "--plot", str(chart), "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "accuracy" in result.output and "Costliest decisions" in result.output
    costly = result.output.split("Costliest decisions:")[1]
    assert " pp" in costly or " VP" in costly  # losses in percentage points (or VP), not "points"
    assert "mean loss (pp)" in result.output
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_single_option_decisions_are_skipped() -> None:
    doc = json.loads(_annotate(BLUNDER_GAME, "--from-event", "120", "--iterations", "30", "--json",
                               "--workers", "1").stdout)
    assert doc["decisions"]
    assert all(d["best_visits"] + d["played_visits"] > 0 for d in doc["decisions"])


@pytest.mark.parametrize("loss, noise, label", [
    (0.16, 0.05, "blunder"), (0.12, 0.05, "mistake"), (0.06, 0.02, "inaccuracy"),
    (0.04, 0.01, ""), (0.30, 0.31, ""),
])
def test_labels_follow_lichess_thresholds_unless_within_noise(loss, noise, label) -> None:
    assert label_for(loss, noise) == label


def test_move_accuracy_is_100_without_loss_and_falls_with_it() -> None:
    assert move_accuracy(0.0) == pytest.approx(100.0, abs=0.01)
    assert move_accuracy(0.05) > move_accuracy(0.15) > move_accuracy(0.5) >= 0


@pytest.mark.parametrize("args, code, message", [
    (("no-such-game.json",), 1, "no-such-game.json"),
    ((BLUNDER_GAME, "--players", "7"), 2, "--players"),
    ((BLUNDER_GAME, "--iterations", "5", "--seconds-per-decision", "1"), 2, "not both"),
    ((BLUNDER_GAME, "--from-event", "139", "--iterations", "5", "--plot", "x.gif"), 1, ".png"),
])
def test_errors_are_one_line(args, code, message) -> None:
    result = _annotate(*args)
    assert result.exit_code == code
    assert message in result.output and "Traceback" not in result.output
