"""Fuzzing the readers: no input gives anything but a RefugeError; what loads round-trips."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from positions import RefugeError
from positions.examples import example_names, example_text
from positions.record import parse_record, read_record_text, replay
from positions.saved import parse_position, position_to_data, read_position_text

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=True) | st.text(max_size=12)
           | st.sampled_from(["bear", "storm", "draw", "choose", "meadows", "home", "2", ""]))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)
EXAMPLES = [json.loads(example_text(name)) for name in example_names()]


def _accepts_or_refuses(data: object) -> None:
    try:
        saved = parse_position(data)
    except RefugeError:
        return
    again = position_to_data(saved.position, saved.names, saved.title, saved.story)
    reloaded = parse_position(json.loads(json.dumps(again)))
    assert position_to_data(reloaded.position, reloaded.names, reloaded.title,
                            reloaded.story) == again


def _paths(value: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, prefix + (key,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, prefix + (index,)))
    return found


def _replace(document: object, path: tuple, new: object) -> object:
    if not path:
        return new
    copy = json.loads(json.dumps(document))
    target = copy
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return copy


@FUZZ
@given(json_values)
def test_random_json_is_refused_cleanly(data: object) -> None:
    _accepts_or_refuses(data)
    try:
        replay(parse_record(data))
    except RefugeError:
        pass


@FUZZ
@given(st.sampled_from(range(len(EXAMPLES))), st.data(), json_values)
def test_mutated_examples_are_refused_or_round_trip(index: int, data: st.DataObject,
                                                    new: object) -> None:
    """Wrong types, huge numbers, unicode and unknown names anywhere in a valid file."""
    document = EXAMPLES[index]
    path = data.draw(st.sampled_from(_paths(document)))
    _accepts_or_refuses(_replace(document, path, new))


@FUZZ
@given(st.sampled_from(range(len(EXAMPLES))), st.data(),
       st.integers(min_value=-3, max_value=60) | st.sampled_from([10**30, -(10**30)]))
def test_numbers_changed_in_examples_are_refused_or_round_trip(index: int, data: st.DataObject,
                                                               number: int) -> None:
    """Plausible but wrong counts exercise the semantic checks, not just the type checks."""
    document = EXAMPLES[index]
    paths = [p for p in _paths(document) if isinstance(_get(document, p), int)
             and not isinstance(_get(document, p), bool)]
    path = data.draw(st.sampled_from(paths))
    _accepts_or_refuses(_replace(document, path, number))


def _get(document: object, path: tuple) -> object:
    for part in path:
        document = document[part]  # type: ignore[index]
    return document


@FUZZ
@given(st.sampled_from(range(len(EXAMPLES))), st.integers(min_value=0, max_value=4000))
def test_truncated_files_are_refused(index: int, cut: int) -> None:
    text = json.dumps(EXAMPLES[index], indent=2)
    cut = min(cut, len(text) - 1)
    try:
        read_position_text(text[:cut])
    except RefugeError:
        return
    raise AssertionError("a truncated file was accepted")


@FUZZ
@given(st.lists(st.text(max_size=20) | st.sampled_from(["draw", "return", "drawn sign fox",
                                                         "weather sun", "play sign", "buy bear"]),
                max_size=12))
def test_random_events_are_refused_cleanly(events: list[str]) -> None:
    document = {"format": "refuge-game/1", "players": 2, "route": "meadows", "events": events}
    try:
        replay(parse_record(document))
    except RefugeError:
        pass


def test_deep_nesting_is_refused_cleanly() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000):
        for reader in (read_position_text, read_record_text):
            try:
                reader(text)
            except RefugeError:
                continue
            raise AssertionError("deep nesting was accepted")


def test_huge_integer_text_is_refused_cleanly() -> None:
    """Python refuses to read ints of more than 4300 digits; that is malformed input, not a crash."""
    for reader in (read_position_text, read_record_text):
        try:
            reader('{"walk": ' + "9" * 5000 + "}")
        except RefugeError:
            continue
        raise AssertionError("accepted")
