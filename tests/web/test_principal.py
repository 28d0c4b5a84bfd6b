"""The board's line (advisor/web/principal.py): the recommendation, every player's replies and the
chance events, a line that can be played on the position as shown."""

from __future__ import annotations

from advisor.analysis.best_move import advise
from advisor.web.principal import MIN_VISITS, OWN_DECISIONS, line_with_replies
from advisor.web.worker import analysis_request
from positions.examples import load_example
from positions.kernel.actions import action_from_code, parse_action


def test_the_line_holds_every_players_replies_and_chance_events_and_can_be_played() -> None:
    position = load_example("storm-one-away").position
    advice = advise(position, analysis_request(800, 3))
    assert advice.result.tree is not None
    line = line_with_replies(position, advice.result.tree, advice.line[0])
    best = advice.result.recommendation.action
    assert line[0] == {"player": 0, "action": str(action_from_code(best)), "visits": None}
    players = {entry["player"] for entry in line}
    assert {0, 1, None} <= players  # both players' decisions and at least one chance event
    state = position.copy()
    for entry in line:  # the line is legal, in order, from the position shown
        action = parse_action(str(entry["action"]))
        if entry["player"] is None:
            odds = dict(state.chance_outcomes())
            assert abs(odds[action] - float(entry["probability"])) < 1e-4  # type: ignore[arg-type]
        else:
            assert state.current_player() == entry["player"] and action in state.legal_actions()
            assert entry is line[0] or int(entry["visits"]) >= MIN_VISITS  # type: ignore[call-overload]
        state.apply(action)
    assert sum(entry["player"] == 0 for entry in line) <= OWN_DECISIONS
