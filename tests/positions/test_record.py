"""Game records (refuge-game/1): recording, writing, reading and replaying with precise errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from positions import IllegalActionError, MalformedFileError, Position, parse_action
from positions.kernel import phases
from positions.record import (
    GameRecorder, dump_record, find_decision, load_record, parse_record, read_record_text, replay,
)
from positions.saved import parse_position, position_to_data


def _self_play(players: int, route: str, seed: int) -> GameRecorder:
    rng = random.Random(seed)
    recorder = GameRecorder.new(players, route, [f"P{i}" for i in range(players)], seed)
    pos = recorder.position
    while not pos.is_terminal():
        if pos.is_chance():
            recorder.apply(pos.sample_chance(rng))
        else:
            legal = pos.legal_actions()
            recorder.apply(legal[int(rng.random() * len(legal))])
    return recorder


@pytest.mark.parametrize("players,route", [(2, "meadows"), (3, "forest"), (4, "mountains"),
                                           (2, "forest"), (3, "mountains"), (4, "meadows")])
def test_self_played_records_round_trip_and_replay(players: int, route: str) -> None:
    recorder = _self_play(players, route, seed=players * 10 + len(route))
    text = recorder.to_json()
    record = read_record_text(text)
    assert dump_record(record) == text
    game = replay(record)
    assert game.final.scores() == recorder.position.scores()
    assert game.final.is_terminal()
    assert record.result == tuple(recorder.position.scores())
    # Every position along the way saves and loads as the player to decide sees it.
    for step in game.steps[::7]:
        data = position_to_data(step.position, record.names)
        assert position_to_data(parse_position(data).position, record.names) == data


def test_record_lists_chance_outcomes_and_real_decisions_only() -> None:
    """Auto-applied single-option decisions are not events; every event was a real stop."""
    recorder = _self_play(2, "meadows", seed=3)
    game = replay(recorder.record())
    for step in game.steps:
        pos = step.position
        assert pos.is_chance() or len(pos.legal_actions()) >= 2
    assert str(game.steps[0].action) in ("draw", "return")


def test_replay_names_the_first_illegal_event_with_walk_and_turn() -> None:
    recorder = _self_play(2, "meadows", seed=4)
    data = recorder.to_data()
    events = data["events"]
    index = next(i for i, e in enumerate(events) if e.startswith("buy "))
    events[index] = "buy magnificent_tree"
    record = parse_record(data)
    with pytest.raises(IllegalActionError) as caught:
        replay(record, "game.json")
    message = str(caught.value)
    assert message.startswith(f"game.json: events[{index}]: walk ")
    assert "buy magnificent_tree is not legal for player" in message


def test_replay_rejects_an_impossible_draw() -> None:
    """C1: the start bag has no Fox, so it cannot be drawn on the first turn."""
    record = parse_record({"format": "refuge-game/1", "players": 2, "route": "meadows",
                           "events": ["draw", "draw", "drawn fox sign"]})
    with pytest.raises(IllegalActionError, match=r"events\[2\]: walk 1, turn 1: drawn sign fox is "
                                                 r"not legal for chance at deal"):
        replay(record)


def test_misspelt_event_suggests_the_notation() -> None:
    with pytest.raises(MalformedFileError, match=r"events\[1\]: .*did you mean 'draw'"):
        parse_record({"format": "refuge-game/1", "players": 2, "route": "meadows",
                      "events": ["draw", "drw"]})


def test_stated_result_is_checked() -> None:
    data = _self_play(2, "forest", seed=6).to_data()
    data["result"] = {"scores": [999, 0]}
    with pytest.raises(IllegalActionError, match=r"result.scores: the record says \[999, 0\]"):
        replay(parse_record(data))


def test_event_objects_may_name_the_player() -> None:
    data = {"format": "refuge-game/1", "players": 2, "route": "meadows",
            "events": [{"action": "draw", "player": 0, "note": "Ann pushes"},
                       {"action": "draw", "player": 0}]}
    with pytest.raises(IllegalActionError, match=r"events\[1\].player: .*player 1's event"):
        replay(parse_record(data))


def test_recorder_refuses_illegal_actions_without_recording() -> None:
    recorder = GameRecorder.new(2, "meadows")
    with pytest.raises(IllegalActionError):
        recorder.apply(parse_action("buy bear"))
    assert recorder.events == []


def test_recorder_writes_incrementally(tmp_path) -> None:
    """A record can be rewritten after each event and read back at any point."""
    path = str(tmp_path / "game.json")
    rng = random.Random(1)
    recorder = GameRecorder.new(2, "meadows", ["Ann", "Ben"], seed=1)
    for _ in range(30):
        pos = recorder.position
        action = pos.sample_chance(rng) if pos.is_chance() else pos.legal_actions()[-1]
        recorder.apply(action)
        recorder.write(path)
        record = load_record(path)
        assert len(record.events) == len(recorder.events)
    assert replay(record).final.history == recorder.position.history


def test_find_decision_by_walk_turn_and_player() -> None:
    record = _self_play(3, "meadows", seed=8).record()
    game = replay(record)
    index = find_decision(record, 1, 2, 1, game)
    step = game.steps[index]
    assert (step.position.walk, step.position.turn, step.player) == (0, 1, 1)
    with pytest.raises(IllegalActionError, match="no decision in walk 9"):
        find_decision(record, 9, 1, 0, game)


def test_hand_written_record_in_docs_replays() -> None:
    """docs/formats.md holds a complete hand-written record; it must stay valid."""
    record = read_record_text(_doc_block("example-game"))
    game = replay(record)
    assert game.final.is_terminal()


def test_commented_position_in_docs_loads() -> None:
    saved = parse_position(json.loads(_doc_block("example-position")))
    assert saved.title == "Thinning with a Hiker"


def _doc_block(marker: str) -> str:
    text = (Path(__file__).parent.parent.parent / "docs" / "formats.md").read_text(encoding="utf-8")
    after = text.split(f"<!-- {marker} -->", 1)[1]
    return after.split("```json", 1)[1].split("```", 1)[0]


def test_custom_route_record_round_trips() -> None:
    recorder = GameRecorder.new(2, "compass,backpack,hiker,map,fox,deer,big_lake,bear")
    record = read_record_text(recorder.to_json())
    assert record.route.kinds == recorder.position.route.kinds
    assert json.loads(recorder.to_json())["route"][0] == "compass"
    assert replay(record).final.phase == phases.DECIDE
    assert isinstance(record.start(), Position)
