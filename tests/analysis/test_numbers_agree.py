"""Numbers shown side by side never contradict each other (issue 56): "best" is never below the
move played, ranks follow the shown win chances or say why, a difference's interval stays in
[-1, 1], and ``best-move --json`` carries the interval its "clear of #2" verdict rests on."""

from __future__ import annotations

import json
import re

from click.testing import CliRunner

from advisor.analysis.annotate import annotation_from
from advisor.analysis.best_move import Advice, advice_rows, advice_to_data, recommendation_reason
from advisor.analysis.intervals import difference_interval, difference_text
from advisor.cli.main import cli
from positions import Position
from positions.kernel.actions import DRAW, RETURN, action_from_code
from search.request import ActionStats, SearchRequest, SearchResult


def _stats(action: int, visits: int, win: float, half: float, score: float) -> ActionStats:
    return ActionStats(action, visits, win, win - half, win + half, score, (win, 1 - win),
                       (score, 30.0), score_noise=1.0)


def _result(*actions: ActionStats) -> SearchResult:
    return SearchResult(0, tuple(actions), max(actions, key=lambda s: s.visits).action,
                        sum(s.visits for s in actions), 1.0)


def _decide_position() -> Position:
    pos = Position.new_game(2)
    assert set(pos.legal_actions()) == {RETURN, DRAW}
    return pos


# Two options within noise; the lower win chance has the higher expected score, so the search
# recommends it (C18 win shares first, the score breaks a tie within noise).
WITHIN_NOISE = _result(_stats(RETURN, 1000, 0.732, 0.03, 45.0), _stats(DRAW, 900, 0.745, 0.03, 40.0))


def test_annotate_never_calls_best_a_move_below_the_move_played() -> None:
    """The played move scored 74.5 %, the recommendation 73.2 %: it was "best 73.2 %" beside
    "played 74.5 %"; the move played is now the best (no loss), as the numbers shown say."""
    assert WITHIN_NOISE.recommendation.action == RETURN
    row = annotation_from(_decide_position(), DRAW, 0, WITHIN_NOISE)
    assert row.played == "draw" and row.best == "draw"
    assert row.best_win >= row.played_win and row.loss == 0 and row.label == ""
    worse = annotation_from(_decide_position(), RETURN, 0,
                            _result(_stats(RETURN, 1000, 0.30, 0.03, 40.0), _stats(DRAW, 900, 0.745, 0.03, 45.0)))
    assert worse.best == "draw" and worse.best_win > worse.played_win and worse.label == "blunder"


def test_rank_notes_say_why_a_lower_win_chance_is_ranked_first() -> None:
    advice = Advice(_decide_position(), WITHIN_NOISE, SearchRequest.of(iterations=1), None)
    rows = advice_rows(advice)
    assert [row[1] for row in rows] == ["return", "draw"] and rows[0][2] == "73.2%" < rows[1][2]
    assert "first: higher exp. score, win within noise" in rows[0][-1]
    assert rows[1][-1] == ""


def test_rank_notes_explain_a_starved_option_ranked_below_a_lower_win() -> None:
    starved = _result(_stats(RETURN, 1900, 0.50, 0.02, 40.0), _stats(DRAW, 30, 0.60, 0.17, 41.0))
    advice = Advice(_decide_position(), starved, SearchRequest.of(iterations=1), None)
    rows = advice_rows(advice)
    assert [row[1] for row in rows] == ["return", "draw"]
    assert "few visits" in rows[1][-1]


def test_rows_in_win_order_carry_no_rank_note() -> None:
    clear = _result(_stats(RETURN, 1500, 0.30, 0.02, 40.0), _stats(DRAW, 500, 0.70, 0.04, 45.0))
    rows = advice_rows(Advice(_decide_position(), clear, SearchRequest.of(iterations=1), None))
    assert [row[1] for row in rows] == ["draw", "return"] and rows[0][-1] == rows[1][-1] == ""


def test_the_difference_is_in_percentage_points_and_within_minus_one_to_one() -> None:
    wide = (_stats(RETURN, 4, 0.9, 0.6, 40.0), _stats(DRAW, 4, 0.1, 0.6, 30.0))
    difference, low, high = difference_interval(*wide)
    assert difference == 0.8 and -1 <= low < 0 and high == 1.0  # 0.8 + 0.85 would be 1.65
    assert difference_text(*wide) == "+80.0 pp over #2, 95% interval -4.9 to +100.0 pp"


def test_best_move_json_carries_the_difference_interval_of_its_verdict() -> None:
    for result in (WITHIN_NOISE, _result(_stats(RETURN, 1500, 0.30, 0.02, 40.0),
                                         _stats(DRAW, 500, 0.70, 0.04, 45.0))):
        advice = Advice(_decide_position(), result, SearchRequest.of(iterations=1), None)
        data = advice_to_data(advice)
        gap = data["difference_to_second"]
        low, high = gap["ci95"]
        assert data["second"] == str(action_from_code(advice.recommendation.runner_up))
        assert (low <= 0 <= high) == data["within_noise_of_second"]
        shown = re.search(r"([+-]\d+\.\d) pp over #2, 95% interval ([+-]\d+\.\d) to ([+-]\d+\.\d) pp",
                          recommendation_reason(advice))
        assert shown and [float(shown.group(2)), float(shown.group(3))] == [round(100 * low, 1), round(100 * high, 1)]


def test_best_move_names_the_players_where_the_position_names_them() -> None:
    result = CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "40"])
    assert result.exit_code == 0, result.output
    assert "Ann (player 0) decides." in result.output
    assert re.search(r"^P0 Ann: 20 VP", result.output, flags=re.MULTILINE)  # the board, too
    assert re.search(r"^Ann \(P0, you\) +\d", result.output, flags=re.MULTILINE)
    assert re.search(r"^Ben \(P1\) +\d", result.output, flags=re.MULTILINE)
    data = json.loads(CliRunner().invoke(cli, ["best-move", "storm-one-away", "--iterations", "40",
                                               "--json"]).output)
    assert "difference_to_second" in data and data["second"] in ("return", "draw")
