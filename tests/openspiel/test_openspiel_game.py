"""Refuge as an OpenSpiel game: registration, OpenSpiel's own conformance test, clones, information
states that hide simultaneous choices, and resampling driven by our determinize."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from advisor.openspiel.game import (  # noqa: E402
    GAME_NAME, OpenSpielGameError, RefugeState, SamplerRandom, load_game,
)
from positions import Position, parse_action  # noqa: E402
from positions.kernel.phases import SIMULTANEOUS  # noqa: E402


def _play(state: RefugeState, seed: int, stop) -> RefugeState:
    rng = random.Random(seed)
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            state.apply_action(state.position.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
    return state


def _states_in_simultaneous_steps(players: int, seed: int, count: int) -> list[RefugeState]:
    """Snapshots of a seeded random game at decisions of a simultaneous step after its first chooser."""
    found: list[RefugeState] = []

    def stop(state: RefugeState) -> bool:
        pos = state.position
        if (not state.is_chance_node() and pos.phase in SIMULTANEOUS
                and any(c >= 0 for p, c in enumerate(pos.pending) if p != pos.actor)):
            found.append(state.clone())
        return len(found) >= count

    _play(load_game(players).new_initial_state(), seed, stop)
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_passes_openspiels_random_simulation_test(players: int) -> None:
    game = pyspiel.load_game(f"{GAME_NAME}(players={players},route=forest)")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_type_declares_explicit_chance_imperfect_information_sequential() -> None:
    game = load_game(3, "mountains")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_information_state_string
    assert game.num_players() == 3
    assert game.new_initial_state().position.route.name == "mountains"


def test_bad_parameters_name_the_problem() -> None:
    with pytest.raises(OpenSpielGameError, match="5 players"):
        load_game(5)
    with pytest.raises(OpenSpielGameError, match="unknown route 'moon'"):
        load_game(2, "moon")


def test_legal_actions_are_sorted_and_read_as_our_notation() -> None:
    checked = 0

    def check(state: RefugeState) -> bool:
        nonlocal checked
        if not state.is_chance_node():
            legal = state.legal_actions()
            assert legal == sorted(legal) == sorted(state.position.legal_actions())
            assert [parse_action(state.action_to_string(a)) for a in legal] == legal
            checked += 1
        return False

    _play(load_game(4).new_initial_state(), 3, check)
    assert checked > 50


def test_returns_are_win_shares_summing_to_one() -> None:
    state = _play(load_game(3).new_initial_state(), 8, lambda s: False)
    returns = state.returns()
    assert sum(returns) == pytest.approx(1.0)
    assert returns == state.position.returns()


def test_clone_is_independent_and_keeps_the_openspiel_history() -> None:
    state = _play(load_game(2).new_initial_state(), 5, lambda s: len(s.history()) >= 30)
    clone = state.clone()
    assert isinstance(clone, RefugeState)
    assert clone.history() == state.history() and clone.move_number() == state.move_number()
    assert clone.position is not state.position
    assert clone.position.history == state.position.history
    before = str(state)
    _play(clone, 6, lambda s: len(s.history()) >= 40)
    assert str(state) == before and len(state.history()) == 30


def test_state_from_position_rejects_another_games_position() -> None:
    with pytest.raises(OpenSpielGameError, match="does not belong"):
        load_game(2).state_from_position(Position.new_game(3))


def test_python_and_cpp_information_state_strings_agree() -> None:
    for state in _states_in_simultaneous_steps(3, 2, 6):
        for player in range(3):
            assert state.information_state_string(player) == pyspiel.State.information_state_string(
                state, player)
        assert state.information_state_string() == state.information_state_string(state.current_player())


def test_hidden_choice_is_not_in_the_others_information_state() -> None:
    """C6: players decide to return or draw at the same time; player 1 must not see player 0's choice."""
    game = load_game(2)
    drew, returned = game.new_initial_state(), game.new_initial_state()
    drew.apply_action(parse_action("draw"))
    returned.apply_action(parse_action("return"))
    assert drew.current_player() == returned.current_player() == 1
    assert drew.information_state_string(1) == returned.information_state_string(1)
    assert drew.information_state_string(0) != returned.information_state_string(0)


def test_resample_keeps_the_information_state_and_varies_only_hidden_choices() -> None:
    states = _states_in_simultaneous_steps(4, 11, 8)
    assert states
    rng = random.Random(1)
    varied = False
    for state in states:
        player = state.current_player()
        key = state.information_state_string(player)
        original = state.position.pending[:]
        seen = set()
        for _ in range(20):
            sample = state.resample_from_infostate(player, rng.random)
            assert sample.information_state_string(player) == key
            assert sample.position.pending[player] == original[player]
            assert [c >= 0 for c in sample.position.pending] == [c >= 0 for c in original]
            seen.add(tuple(sample.position.pending))
        varied |= len(seen) > 1
        assert state.position.pending == original
    assert varied, "the others' hidden choices were never resampled"


def test_resample_is_determined_by_the_sampler() -> None:
    state = _states_in_simultaneous_steps(4, 11, 1)[0]
    player = state.current_player()
    first = [state.resample_from_infostate(player, random.Random(5).random).position.pending
             for _ in range(2)]
    assert first[0] == first[1]


def test_sampler_random_reads_only_the_sampler() -> None:
    values = iter([0.25, 0.5, 0.75, 0.0])
    rng = SamplerRandom(lambda: next(values))
    assert rng.random() == 0.25
    assert rng.getrandbits(8) == 0x80
    assert rng.getrandbits(40) == (0xC0000000 << 8)


def test_clone_copies_the_position_without_deepcopy(monkeypatch) -> None:
    """OpenSpiel deep-copies each attribute of a Python state; the position must go through copy()."""
    state = _play(load_game(3).new_initial_state(), 9, lambda s: len(s.history()) >= 20)

    def refuse(self, protocol):
        raise AssertionError("Position was deep-copied")

    monkeypatch.setattr(Position, "__reduce_ex__", refuse)
    clone = state.clone()
    assert clone.position.bags == state.position.bags and clone.position.bags is not state.position.bags
