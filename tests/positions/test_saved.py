"""Saved positions (refuge-position/1): round trips, defaults, hidden choices and precise errors."""

from __future__ import annotations

import copy
import json
import random

import pytest

from positions import ROUTES, ImpossiblePositionError, MalformedFileError, Position
from positions.kernel import phases
from positions.examples import example_text
from positions.saved import parse_position, position_to_data, read_position_text
from positions.kernel.rules import fold
from positions.kernel.view import public_fact_ints
from positions.validation import Problems, check_position


def _play_stops(players: int, route: str, seed: int, games: int = 1):
    """Every stop of a few seeded random games, with the action taken there."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position.new_game(players, route)
        while not pos.is_terminal():
            if pos.is_chance():
                action = pos.sample_chance(rng)
            else:
                legal = pos.legal_actions()
                action = legal[int(rng.random() * len(legal))]
            yield pos, action
            pos.apply(action)
        yield pos, None


def _base() -> dict:
    return json.loads(example_text("opening-2p"))


def _errors(data: object) -> list[str]:
    with pytest.raises((MalformedFileError, ImpossiblePositionError)) as caught:
        parse_position(data)
    return str(caught.value).splitlines()


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_every_reached_position_round_trips(players: int, route: str) -> None:
    """Every stop of a real game passes the semantic checks, saves, loads and saves the same."""
    for pos, action in _play_stops(players, route, seed=players * 31 + len(route)):
        problems = Problems()
        check_position(pos, problems)
        assert not problems, problems.lines()
        data = position_to_data(pos)
        loaded = parse_position(json.loads(json.dumps(data))).position
        assert position_to_data(loaded) == data
        assert list(loaded.legal_actions()) == list(pos.legal_actions())
        assert loaded.current_player() == pos.current_player()
        if action is not None and pos.phase not in phases.SIMULTANEOUS:
            # Nothing is hidden outside simultaneous steps: both continue identically.
            mine = pos.copy()
            mine.apply(action)
            loaded.apply(action)
            assert position_to_data(loaded) == position_to_data(mine)


def test_simultaneous_earlier_choices_are_hidden_and_resampled() -> None:
    """C12: buys are simultaneous; the second buyer's file omits the first buyer's choice, and
    loading gives the first buyer a placeholder that determinize resamples."""
    for pos, _ in _play_stops(2, "meadows", seed=5, games=3):
        if pos.phase == phases.BUY and pos.actor == 1 and pos.pending[0] >= 0:
            break
    else:
        pytest.fail("no buy step with an earlier buyer")
    data = position_to_data(pos)
    assert all("choice" not in player for player in data["players"])
    loaded = parse_position(data).position
    options = set(loaded.legal_actions())
    assert loaded.pending[0] >= 0
    seen = {loaded.determinize(1, random.Random(seed)).pending[0] for seed in range(40)}
    assert len(seen) > 1 or len(options) == 1
    assert loaded.information_set_key(1)[2] == -1


def test_history_seed_is_the_same_for_equal_facts() -> None:
    """The history seed is the history hash of the public facts as ints, so equal files give equal keys."""
    first = read_position_text(example_text("opening-2p")).position
    second = read_position_text(example_text("opening-2p")).position
    assert first.history == second.history == fold(0, public_fact_ints(first))
    assert first.information_set_key(0) == second.information_set_key(0)


def test_defaults_derive_deck_market_box_and_turn() -> None:
    """C4: the deck holds what the track does not; the market what nobody holds or boxed."""
    data = _base()
    for key in ("turn",):
        data.pop(key)
    data["weather"] = {"track_suns": 1}
    pos = parse_position(data).position
    assert (pos.deck_suns, pos.deck_storms, pos.reserve, pos.turn) == (3, 4, 5, 1)
    compass = 7
    assert pos.market[compass] == 3


def test_unknown_kind_suggests_the_closest_name() -> None:
    data = _base()
    data["players"][1]["bag"]["bearr"] = 1
    assert "players[1].bag.bearr: unknown tile kind 'bearr' (did you mean 'bear'?)" in _errors(data)


def test_every_structural_error_is_reported_at_once() -> None:
    data = _base()
    data["walk"] = 9
    data["players"][0]["vp"] = "ten"
    data["players"][1]["hand"] = ["butterfly", "foxx"]
    data["decision"]["phse"] = "choose"
    lines = _errors(data)
    assert len(lines) == 4
    assert any(line.startswith("walk: found the number 9") for line in lines)
    assert any(line.startswith("players[0].vp: found the string 'ten'") for line in lines)
    assert any(line.startswith("players[1].hand[1]: unknown tile kind 'foxx'") for line in lines)
    assert any("decision.phse: unknown field (did you mean 'phase'?)" in line for line in lines)


def test_a_fifth_stack_tile_is_impossible() -> None:
    """C3: 8 stacks of 4 identical tiles: a fifth Compass cannot exist."""
    data = _base()
    data["players"][0]["bag"]["compass"] = 1
    data["market"] = {"compass": 3}
    lines = _errors(data)
    assert any(line.startswith("market.compass: 2 held by players + 0 in the box + 3 in the market "
                               "= 5 compass, expected 4") for line in lines), lines


def test_a_tile_outside_the_route_is_impossible() -> None:
    """C3: only the route's 8 kinds can be bought."""
    data = _base()
    data["players"][0]["bag"]["bear"] = 1
    assert any("holds bear, which is neither in the start bag" in line for line in _errors(data))


def test_storm_counts_must_match_the_start_bag() -> None:
    """C1: each player owns exactly the start bag's Storms, in the bag or on the track."""
    data = _base()
    data["players"][1]["storms"] = 1
    assert any(line.startswith("players[1].storms: 2 Storm in the bag + 1 on the track = 3, "
                               "expected 2") for line in _errors(data))


def test_weather_track_must_match_the_turn() -> None:
    """C13: one weather tile is turned at the end of each turn."""
    data = _base()
    data["turn"] = 4
    assert any(line.startswith("turn: found turn 4 with 1 weather tiles") for line in _errors(data))


def test_a_storm_that_should_have_hit_is_impossible() -> None:
    """C5: with 2 players the Storm hits at 6 Storms on the track."""
    data = json.loads(example_text("storm-one-away"))
    data["players"][1]["storms"] = 2
    data["players"][1]["bag"]["storm"] = 0
    assert any("6 Storms on the track at the start of a turn" in line for line in _errors(data))


def test_a_player_at_home_holds_no_path() -> None:
    """C15: a returning player puts the path back in the bag."""
    data = _base()
    data["players"][1]["status"] = "home"
    lines = _errors(data)
    assert any(line.startswith("players[1].path: found 1 tiles for a player at home") for line in lines)


def test_a_decision_with_one_legal_action_is_not_a_stop() -> None:
    """C8: with a priority tile in hand there is no choice, so the engine plays it itself."""
    data = _base()
    data["route"] = "mountains"
    data["players"][0]["hand"] = ["small_orientation_table", "suspension_bridge"]
    lines = _errors(data)
    assert any("single legal action (play suspension_bridge)" in line for line in lines)


def test_wrong_format_and_types_are_malformed() -> None:
    with pytest.raises(MalformedFileError, match="format: found the string 'refuge-game/1'"):
        parse_position({"format": "refuge-game/1"})
    with pytest.raises(MalformedFileError, match=r"^\$: found a list of 0, expected an object"):
        parse_position([])
    with pytest.raises(MalformedFileError, match="not valid JSON"):
        read_position_text('{"format": ')


def test_comment_fields_are_ignored() -> None:
    data = _base()
    data["_comment"] = "JSON has no comments, so keys starting with _ are comments"
    data["players"][0]["_why"] = "Ann bought the Compass on turn 1"
    assert position_to_data(parse_position(data).position) == position_to_data(
        parse_position(_base()).position)


def test_custom_ruleset_round_trips() -> None:
    """C1/C5/C16 are ruleset data: a file may carry a full custom ruleset."""
    data = _base()
    data["ruleset"] = {"name": "house", "penalised_kinds": ["sign"], "walks": 4}
    saved = parse_position(copy.deepcopy(data))
    assert saved.position.ruleset.walks == 4
    again = position_to_data(saved.position)
    assert again["ruleset"]["name"] == "house"
    assert position_to_data(parse_position(again).position) == again


def test_history_seed_is_the_same_in_every_process() -> None:
    """Determinism across processes: the seed hashes no strings (their hash varies per process)."""
    import subprocess
    import sys
    code = ("from positions.examples import load_example;"
            "print(load_example('shepherd-chain').position.history)")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2)}
    assert len(outputs) == 1


def test_a_required_discard_with_one_target_is_not_a_stop() -> None:
    """C11: Cairn's discard with a single target is forced, so the engine makes it."""
    data = json.loads(example_text("thinning-cairn"))
    data["decision"] = {"phase": "discard", "player": 1, "tile": "cairn"}
    data["players"][1]["hand"] = []
    data["players"][1]["path"] = ["butterfly"]
    data["players"][1]["bag"]["sign"] = data["players"][1]["bag"].get("sign", 0) + 2
    lines = _errors(data)
    assert any("a single discard target for a required discard" in line for line in lines), lines


def test_a_path_longer_than_its_turns_and_additional_plays_is_impossible() -> None:
    """C8: one tile is played a turn; C10: Compass (as its option), Shepherd and Map add plays.
    Issue 13: a path of 8 tiles after 3 turns, with no tile giving additional plays, was accepted."""
    data = _base()
    data["turn"] = 4
    data["weather"]["track_suns"] = 3
    ann = data["players"][0]
    ann["path"] = ["signpost", "signpost", "sign", "sign", "butterfly", "butterfly", "hedgehog",
                   "squirrel"]
    ann["bag"] = {"storm": 2}
    assert _errors(data) == ["players[0].path: found 8 tiles after 3 turn(s) of play in this walk "
                             "with 0 additional play(s) from its tiles and the box, expected at most "
                             "3 (one tile a turn, C8, plus additional plays, C10)"]
    ann["path"][0], ann["hand"] = "compass", ["small_orientation_table", "signpost"]
    assert any("expected at most 4 " in line for line in _errors(data))
    ann["path"], ann["bag"] = ann["path"][:4], {"storm": 2, "butterfly": 2, "hedgehog": 1, "squirrel": 1}
    assert parse_position(data).position.paths[0]  # 4 tiles: 3 turns and the Compass's play


def test_files_of_the_rules_before_the_portable_draw_still_load() -> None:
    """RULES_VERSION 1.1.0 changed only how seeds draw (docs/determinism.md), not the rules: a
    position and a game record saved at 1.0.0 load (a record replays its events); another major
    version is refused with one line."""
    from pathlib import Path

    from positions import RULES_VERSION
    from positions.documents import parse_document
    data_dir = Path(__file__).parent.parent / "data"
    assert RULES_VERSION == "1.1.0"
    for name in ("blunder-game.json", "unknown-bags-3p.json", "equal-win-shares.json"):
        data = json.loads((data_dir / name).read_text())
        assert data["rules_version"] == "1.0.0"
        parse_document(data, name)
    data = json.loads(example_text("opening-2p"))
    data["rules_version"] = "2.0.0"
    with pytest.raises(MalformedFileError) as error:
        parse_position(data, "old.json")
    assert "\n" not in str(error.value) and "expected rules version 1.x" in str(error.value)
