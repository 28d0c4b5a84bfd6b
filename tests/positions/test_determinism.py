"""The portable semantics held to written vectors (docs/determinism.md): the history hash, Python's
random() stream, the chance draw, the hidden-bag deal, search seeds and the state encoding.

The vectors were computed once by the reference implementations below, written from the spec and
not from the code (a splitmix64 fold, an MT19937 with CPython's seeding, the draw and the deal), and
are written here literally; the tests hold both the code and the references to them."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from positions import Position, parse_action
from positions.kernel import phases
from positions.kernel.actions import DRAWN_ONE_BASE, DRAWN_TWO_BASE, drawn_pair
from positions.kernel.position import deal_hidden_bags, fisher_yates
from positions.kernel.rules import fold
from positions.kernel.rulesets import DEFAULT_RULESET
from search.seeds import seed_from_stream

ROOT = Path(__file__).parent.parent.parent
MASK = (1 << 64) - 1


# --- the references ------------------------------------------------------------------------------

def reference_fold(history: int, event: tuple[int, ...]) -> int:
    """splitmix64's finalizer over (h ^ x) + golden, for the event's length then each int."""
    for x in (len(event), *event):
        z = ((history ^ (x % 2**64)) + 0x9E3779B97F4A7C15) & MASK
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
        history = z ^ (z >> 31)
    return history


class ReferenceTwister:
    """MT19937 seeded as CPython's random.Random(n) (init_by_array over n's 32-bit words)."""

    def __init__(self, seed: int) -> None:
        mt = [19650218]
        for i in range(1, 624):
            mt.append((1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF)
        key = [(seed >> (32 * w)) & 0xFFFFFFFF for w in range(max(1, (seed.bit_length() + 31) // 32))]
        i, j = 1, 0
        for _ in range(max(624, len(key))):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
            i, j = i + 1, (j + 1) % len(key)
            if i >= 624:
                mt[0], i = mt[623], 1
        for _ in range(623):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
            i += 1
            if i >= 624:
                mt[0], i = mt[623], 1
        mt[0] = 0x80000000
        self.mt, self.index = mt, 624

    def int32(self) -> int:
        """The next tempered 32-bit output."""
        mt = self.mt
        if self.index >= 624:
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def random(self) -> float:
        """(a >> 5, b >> 6) of two outputs as a 53-bit fraction."""
        a, b = self.int32() >> 5, self.int32() >> 6
        return (a * 67108864 + b) / 9007199254740992


def reference_draw(bag: tuple[int, ...], seed: int, one: bool) -> tuple[int, ...]:
    """The spec's draw: the bag in kind order, an index, then a second index skipping the first."""
    stream, tiles = ReferenceTwister(seed), sorted(bag)
    first = int(stream.random() * len(tiles))
    if one:
        return (tiles[first],)
    second = int(stream.random() * (len(tiles) - 1))
    return tuple(sorted((tiles[first], tiles[second + (second >= first)])))


def reference_deal(bags: list[tuple[int, ...]], hidden: tuple[int, ...], seed: int) -> list[tuple[int, ...]]:
    """The spec's deal: the hidden bags' non-Storms in kind order, Fisher-Yates, dealt back by size."""
    stream = ReferenceTwister(seed)
    pool = [k for p in hidden for k in sorted(k for k in bags[p] if k != 0)]
    for i in range(len(pool) - 1, 0, -1):
        j = int(stream.random() * (i + 1))
        pool[i], pool[j] = pool[j], pool[i]
    dealt, start = list(bags), 0
    for p in hidden:
        size = len(bags[p]) - bags[p].count(0)
        dealt[p] = tuple(sorted([0] * bags[p].count(0) + pool[start:start + size]))
        start += size
    return dealt


# --- 1. the history hash -------------------------------------------------------------------------

FOLDS = [
    (0, (), 16294208416658607535),
    (0, (0,), 6791897765849424158),
    (0, (1, 2, 3), 5631902732087738355),
    (0, (-1,), 11917333196513764506),
    (12345, (-11, 0, 1, -1), 17444640402399050918),
    (2**64 - 1, (7, 2**63), 5612523644368354515),
]
NEW_GAME_EVENT = (2, 8, 7, 10, 13, 16, 19, 21, 22, 29,  # players, the route: length, kinds
                  11, 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6,  # the ruleset: start bag
                  3, 2, 6, 3, 7, 4, 9,  # thresholds as (players, Storms) pairs
                  -1,  # every walk tile penalised (penalised_kinds None)
                  5, 2, 4, 4, 5, 4)  # walks, start Steps, deck Suns, deck Storms, reserve, stack size
NEW_GAME_HISTORY = 11190284869970784947
GAME_ACTIONS = ("return, draw, drawn signpost butterfly, play butterfly, pass, weather sun, draw, "
                "drawn sign sign, buy shepherd, weather storm, draw, drawn signpost butterfly, "
                "play signpost, buy compass, weather storm, draw, drawn hedgehog squirrel, play hedgehog, "
                "weather storm, draw, drawn storm sign, weather storm, return, discard path butterfly, "
                "draw, draw, drawn sign squirrel, drawn signpost squirrel, play squirrel, play squirrel")
GAME_HISTORY = 9562204335692805362


@pytest.mark.parametrize(("start", "event", "expected"), FOLDS)
def test_the_history_hash_matches_its_vectors(start: int, event: tuple[int, ...], expected: int) -> None:
    assert fold(start, event) == reference_fold(start, event) == expected


@given(st.integers(0, MASK), st.lists(st.integers(-2**63, 2**63 - 1), max_size=12))
def test_the_history_hash_is_the_reference_fold(start: int, event: list[int]) -> None:
    assert fold(start, event) == reference_fold(start, tuple(event))


def test_a_new_game_starts_from_its_setup_folded() -> None:
    """players, the route's kinds and the ruleset's ints (the encoding's), folded from 0."""
    assert DEFAULT_RULESET.to_ints() == NEW_GAME_EVENT[10:]
    assert reference_fold(0, NEW_GAME_EVENT) == NEW_GAME_HISTORY
    assert Position.new_game(2, "meadows").history == NEW_GAME_HISTORY


def test_a_game_history_matches_its_vector() -> None:
    """Each decision folds (actor, action), each chance outcome (-1, action), the end of a
    simultaneous step (-phase - 1, *pending): 30 actions of a 2-player game on the meadows."""
    pos = Position.new_game(2, "meadows")
    for text in GAME_ACTIONS.split(", "):
        pos.apply(parse_action(text))
    assert pos.history == GAME_HISTORY


def test_a_decision_folds_actor_and_action() -> None:
    pos = Position.new_game(2, "meadows")
    pos.apply(parse_action("return"))  # player 0's choice in a simultaneous step: folded at its end
    assert pos.history == NEW_GAME_HISTORY
    pos.apply(parse_action("draw"))  # the step ends: (-DECIDE - 1, return, draw)
    assert pos.history == reference_fold(NEW_GAME_HISTORY, (-phases.DECIDE - 1, 0, 1))


def test_no_hash_call_in_positions() -> None:
    """CPython's hash() is not part of the game: no positions/ module calls it."""
    calls = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "positions").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"(?<![\w.])hash\(", line)]
    assert calls == []


# --- 2. the random stream -------------------------------------------------------------------------

FIRST_OUTPUTS = {0: [3626764237, 1654615998, 3255389356, 3823568514],
                 1: [577090037, 2444712010, 3639700191, 3445702192],
                 42: [2746317213, 478163327, 107420369, 3184935163],
                 2**40 + 7: [2635837658, 3209733218, 3500038837, 4028389051]}
"""The first four 32-bit outputs of MT19937 seeded as random.Random(seed)."""
RANDOMS = {0: [7605875871743422, 6827046333291546, 3788172029424828, 2332114760278739],
           1: [1210245519433057, 7633004523783416, 6879470178836243, 2297457538547630],
           42: [5759444582531269, 225276855802115, 2477243871446254, 2010503594304263],
           2**40 + 7: [5527752211776145, 7340113465995610, 8511906957418313, 5137622679848822]}
"""The first four random() of random.Random(seed), times 2**53 (exact integers)."""


@pytest.mark.parametrize("seed", sorted(RANDOMS))
def test_the_random_stream_matches_its_vectors(seed: int) -> None:
    reference = ReferenceTwister(seed)
    assert [reference.int32() for _ in range(4)] == FIRST_OUTPUTS[seed]
    assert random.Random(seed).getrandbits(32) == FIRST_OUTPUTS[seed][0]
    stream, reference = random.Random(seed), ReferenceTwister(seed)
    for expected in RANDOMS[seed]:
        value = stream.random()
        assert value == reference.random() and value * 2**53 == expected


def test_a_seed_from_a_stream_is_53_bits_of_one_random() -> None:
    assert seed_from_stream(random.Random(0)) == 7605875871743422 == RANDOMS[0][0]
    assert seed_from_stream(random.Random(5)) == 5610599681987424
    assert seed_from_stream(ReferenceTwister(5)) == 5610599681987424


# --- 3. the chance draw ----------------------------------------------------------------------------

BAG = (19, 0, 1, 4, 0, 2, 7, 1, 29, 5)
"""rabbit, storm, sign, butterfly, storm, signpost, compass, sign, magnificent tree, hedgehog."""
DRAWS = {0: ("drawn hedgehog rabbit", "drawn rabbit"), 1: ("drawn storm rabbit", "drawn storm"),
         2: ("drawn rabbit magnificent_tree", "drawn magnificent_tree"),
         3: ("drawn sign butterfly", "drawn sign")}
"""(two-tile deal, one-tile additional draw) from BAG with random.Random(seed)."""
WEATHER = {0: "weather storm", 1: "weather sun", 2: "weather storm", 3: "weather sun"}
"""The weather tile from a deck of 3 Suns and 2 Storms with random.Random(seed)."""
TIEBREAKS = {0: "tiebreak 3", 1: "tiebreak 2", 2: "tiebreak 3", 3: "tiebreak 2"}
"""The winner of a tie between players (2, 0, 3), in that stored order, with random.Random(seed)."""


def _at(phase: int, bag: tuple[int, ...]) -> Position:
    pos = Position.new_game(4, "meadows")
    pos.phase, pos.actor, pos.bags[1] = phase, 1, bag
    return pos


@pytest.mark.parametrize("seed", sorted(DRAWS))
def test_the_draw_matches_its_vectors_in_any_bag_order(seed: int) -> None:
    two, one = (parse_action(text) for text in DRAWS[seed])
    assert _action_kinds(two) == reference_draw(BAG, seed, one=False)
    assert _action_kinds(one) == reference_draw(BAG, seed, one=True)
    for order in [BAG, tuple(sorted(BAG)), tuple(reversed(BAG))] + [
            tuple(random.Random(k).sample(BAG, len(BAG))) for k in range(20)]:
        assert _at(phases.DEAL, order).sample_chance(random.Random(seed)) == two
        assert _at(phases.EXTRA_DRAW, order).sample_chance(random.Random(seed)) == one


def _action_kinds(action: int) -> tuple[int, ...]:
    return tuple(drawn_pair(action)) if action >= DRAWN_TWO_BASE else (action - DRAWN_ONE_BASE,)


@pytest.mark.parametrize("seed", sorted(WEATHER))
def test_weather_and_tiebreak_match_their_vectors(seed: int) -> None:
    weather = _at(phases.WEATHER, BAG)
    weather.deck_suns, weather.deck_storms = 3, 2
    assert weather.sample_chance(random.Random(seed)) == parse_action(WEATHER[seed])
    assert (ReferenceTwister(seed).random() * 5 < 3) == (WEATHER[seed] == "weather sun")
    tie = _at(phases.TIEBREAK, BAG)
    tie.ties = ((7, (2, 0, 3), 1),)
    assert tie.sample_chance(random.Random(seed)) == parse_action(TIEBREAKS[seed])
    assert TIEBREAKS[seed] == f"tiebreak {(2, 0, 3)[int(ReferenceTwister(seed).random() * 3)]}"


# --- 4. the hidden-bag deal -------------------------------------------------------------------------

HIDDEN_BAGS = [(0, 1, 1, 2, 4), (19, 0, 5, 6, 3, 3), (7, 29, 0, 0, 21, 1, 2)]
DEALS = {0: [(0, 1, 1, 2, 4), (0, 1, 3, 5, 19, 29), (0, 0, 2, 3, 6, 7, 21)],
         1: [(0, 1, 1, 2, 4), (0, 1, 3, 6, 19, 21), (0, 0, 2, 3, 5, 7, 29)]}
"""Players 1 and 2's bags hidden, dealt with random.Random(seed)."""


@pytest.mark.parametrize("seed", sorted(DEALS))
def test_the_hidden_bag_deal_matches_its_vectors(seed: int) -> None:
    assert reference_deal(HIDDEN_BAGS, (1, 2), seed) == DEALS[seed]
    pos = Position.new_game(3, "meadows")
    pos.bags, pos.hidden_bags = list(HIDDEN_BAGS), (1, 2)
    deal_hidden_bags(pos, random.Random(seed))
    assert pos.bags == DEALS[seed]


def test_fisher_yates_uses_one_random_per_swap() -> None:
    items, stream = list(range(6)), random.Random(9)
    fisher_yates(items, stream)
    check = random.Random(9)
    for _ in range(5):
        check.random()
    assert stream.random() == check.random() and sorted(items) == list(range(6))


# --- 5. the state encoding ---------------------------------------------------------------------------

NEW_GAME_INTS = [
    1,  # ENCODING_VERSION
    *NEW_GAME_EVENT[10:],  # the ruleset
    8, 7, 10, 13, 16, 19, 21, 22, 29,  # the route
    2, 6, 0, 0, 0, 0,  # players, threshold, walk, turn, phase (decide), actor
    *[11, 0, 0, 1, 1, 2, 2, 3, 4, 4, 5, 6,  # each player: the bag,
      0, 0, 0,  # hand, path, set aside (empty)
      2, 0, 1, 0, -1] * 2,  # Steps, VP, walking, Storms on the track, pending (none)
    0, 0, 4, 4, 5,  # track Suns and Storms, deck Suns and Storms, reserve
    0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 0, 4, 0, 4, 4, 0, 0, 0, 0, 0, 0, 4, 0,  # market
    0,  # the box
    NEW_GAME_HISTORY - 2**64,  # the history, signed
    -1, 0, 0, 0,  # tile, additional plays, discards left and required
    0,  # ties
    2, 0, 1,  # legal: return, draw
    0,  # hidden bags
]


def test_the_encoding_of_a_new_game_matches_its_vector() -> None:
    pos = Position.new_game(2, "meadows")
    assert pos.to_ints() == NEW_GAME_INTS
    back = Position.from_ints(NEW_GAME_INTS)
    assert back.history == NEW_GAME_HISTORY and back.to_ints() == NEW_GAME_INTS
