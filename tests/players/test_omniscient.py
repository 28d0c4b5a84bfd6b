"""The omniscient agent (advisor.players.omniscient): it searches the deal's true future, the game
loop hands it that future without touching its own streams, and it is the skill ceiling."""

from __future__ import annotations

import random
from typing import Any, Sequence

import pytest
from hypothesis import assume, given, settings, strategies as st

from advisor.players.agents import ChanceStreams, Foresees, make_agent
from advisor.players.games import DealStreams, GameLoop, deal_seed, derive_seed, play_game, rotation
from advisor.players.omniscient import Foreseen, OmniscientAgent
from advisor.players.specs import AgentSpecError
from positions.kernel.actions import Action
from positions.kernel.position import Position
from positions.kernel.view import seat_view
from search.ismcts import Tree, search
from search.request import SearchRequest

TINY = "omniscient:iterations=16"
"""A budget small enough for tests, large enough to beat the default agent at the same budget."""


def _random_line(players: int, route: str, seed: int, decisions: int) -> tuple[Position, DealStreams]:
    """A position `decisions` random decisions into a deal of `seed`, and the deal's streams there."""
    streams = DealStreams(seed, players)
    rng = random.Random(seed)
    pos = Position.new_game(players, route)
    while decisions > 0 and not pos.is_terminal():
        if pos.is_chance():
            pos.apply(streams.sample(pos))
        else:
            legal = pos.legal_actions()
            pos.apply(legal[int(rng.random() * len(legal))])
            decisions -= 1
    while pos.is_chance():
        pos.apply(streams.sample(pos))
    return pos, streams


class _Scripted:
    """An ordinary agent replaying given actions in order (what an omniscient seat chose)."""

    def __init__(self, actions: Sequence[Action]) -> None:
        self.name = "scripted"
        self.actions = list(actions)

    def choose(self, position: Position, rng: random.Random) -> Action:
        return self.actions.pop(0)


class _Watching(OmniscientAgent):
    """The omniscient agent, noting every (position, streams) the loop hands it and its answer."""

    def __init__(self, spec: str) -> None:
        agent = make_agent(spec)
        assert isinstance(agent, OmniscientAgent)
        super().__init__(agent.name, agent.template.limit, agent.template.config, agent.reuse)
        self.handed: list[tuple[Position, ChanceStreams, Action]] = []

    def choose_foreseen(self, position: Position, streams: ChanceStreams, rng: random.Random) -> Action:
        kept = (position.copy(), streams.copy())
        action = super().choose_foreseen(position, streams, rng)
        self.handed.append((*kept, action))
        return action


@pytest.mark.parametrize("turn", [0, 1])
def test_the_loop_hands_the_future_without_drawing_from_its_own_streams(turn: int) -> None:
    """Replaying the omniscient seat's answers with an ordinary agent gives the same game event for
    event (the other agent's decisions and every chance outcome alike), in both rotations."""
    seed = deal_seed(3, 0)
    seats = rotation(turn, 2)
    omniscient = _Watching(TINY)
    agents: list[Any] = [omniscient, make_agent("greedy")]
    foreseen = play_game([agents[a] for a in seats], "meadows", seed)
    replayers: list[Any] = [_Scripted([a for _, _, a in omniscient.handed]), make_agent("greedy")]
    replayed = play_game([replayers[a] for a in seats], "meadows", seed)
    assert omniscient.handed and replayed.events == foreseen.events
    assert [type(p) for p, _, _ in omniscient.handed] == [Position] * len(omniscient.handed)


def test_a_game_between_ordinary_agents_is_the_loop_as_documented() -> None:
    """No agent foresees: chance from the deal's streams, each decision with a choice from the seat's
    agent on its seat view with the seat's own stream, event for event (the hook changes nothing)."""
    seed = deal_seed(6, 3)
    agents: list[Any] = [make_agent("ismcts:iterations=12"), make_agent("greedy"), make_agent("heuristic")]
    played = play_game(agents, "forest", seed).events
    streams = DealStreams(seed, 3)
    rngs = [random.Random(derive_seed(seed, "agent", seat)) for seat in range(3)]
    agents = [make_agent("ismcts:iterations=12"), make_agent("greedy"), make_agent("heuristic")]
    pos = Position.new_game(3, "forest")
    by_hand: list[Action] = []
    while not pos.is_terminal():
        actor = pos.current_player()
        if actor < 0:
            action = streams.sample(pos)
        elif len(pos.legal_actions()) == 1:
            action = pos.legal_actions()[0]
        else:
            action = agents[actor].choose(seat_view(pos, actor, rngs[actor]), rngs[actor])
        by_hand.append(action)
        pos.apply(action)
    assert by_hand == played


def test_the_future_handed_is_the_game_that_follows() -> None:
    """Along the line actually played, the handed streams draw every later chance outcome of the game."""
    omniscient = _Watching(TINY)
    game = GameLoop([make_agent("heuristic"), omniscient], "forest", deal_seed(8, 1))
    events: list[Action] = []
    handed_at: list[int] = []
    while not game.position.is_terminal():
        asked = len(omniscient.handed)
        events.append(game.step().action)
        if len(omniscient.handed) > asked:
            handed_at.append(len(events) - 1)
    for (position, streams, _), at in zip(omniscient.handed, handed_at):
        world = Foreseen.of(position, streams)
        for action in events[at:]:
            if world.is_chance():
                assert world.sample_chance(random.Random(0)) == action
            world.apply(action)
        assert world.is_terminal()


def test_an_ordinary_agent_is_handed_a_seat_view_and_no_future() -> None:
    assert not isinstance(make_agent("ismcts:iterations=10"), Foresees)
    assert isinstance(make_agent(TINY), Foresees)


def test_it_beats_the_default_agent_at_equal_iterations() -> None:
    """Paired games (both rotations of four deals) at a small equal budget: it wins far more."""
    share = 0.0
    for deal in range(4):
        for turn in range(2):
            seats = rotation(turn, 2)
            agents: list[Any] = [make_agent("omniscient:iterations=30"), make_agent("ismcts:iterations=30")]
            final = play_game([agents[a] for a in seats], "meadows", deal_seed(7, deal)).position
            share += final.returns()[seats.index(0)]
    assert share / 8 >= 0.75


def test_every_choice_is_legal_with_three_omniscient_players() -> None:
    """The loop refuses an illegal action (IllegalActionError): a whole game is played."""
    final = play_game([make_agent("omniscient:iterations=8") for _ in range(3)], "forest", deal_seed(4, 2))
    assert final.position.is_terminal()


class _LoggedForeseen(Foreseen):
    """A foreseen position that notes, per line of play from the root, every chance outcome drawn."""

    __slots__ = ("line", "log")

    line: tuple[int, ...]
    log: list[tuple[tuple[int, ...], Action]]

    def copy(self) -> "_LoggedForeseen":
        other = super().copy()
        assert isinstance(other, _LoggedForeseen)
        other.line, other.log = self.line, self.log
        return other

    def determinize(self, player: int, rng: random.Random, belief: Any = None) -> "_LoggedForeseen":
        world = super().determinize(player, rng, belief)
        assert isinstance(world, _LoggedForeseen)
        world.line = (*world.pending, -1)  # the others' hidden choices drawn: part of the line
        return world

    def sample_chance(self, rng: random.Random) -> Action:
        outcome = super().sample_chance(rng)
        self.log.append((self.line, outcome))
        return outcome

    def apply(self, action: int) -> None:
        super().apply(action)
        self.line = self.line + (action,)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**31), decisions=st.integers(0, 40), players=st.sampled_from([2, 3]),
       search_seed=st.integers(0, 2**31))
def test_every_iteration_replays_the_same_chance_along_the_same_line(seed: int, decisions: int, players: int,
                                                                     search_seed: int) -> None:
    """Within one search, two iterations that reach a chance event by the same decisions (the other
    seats' hidden choices included) draw the same outcome, whatever the search's stream."""
    pos, streams = _random_line(players, "meadows", seed, decisions)
    if pos.is_terminal():
        return
    before = streams.states()
    root = _LoggedForeseen.of(pos, streams)
    assert isinstance(root, _LoggedForeseen)
    root.line, root.log = (), []
    tree = Tree(root, SearchRequest.of(iterations=24, oracle=None), search_seed)
    for _ in range(24):
        tree.iterate()
    assume(root.log)  # a last-walk position can have no chance left ahead of it
    drawn: dict[tuple[int, ...], Action] = {}
    for line, outcome in root.log:
        assert drawn.setdefault(line, outcome) == outcome
    # lines met again drew the same; a search whose 24 iterations all went different ways (a wide
    # decision at the root, 3 players) has nothing to compare
    assume(len(root.log) > len(drawn))
    assert streams.states() == before  # the root's own streams untouched
    again = _LoggedForeseen.of(pos, streams)
    assert isinstance(again, _LoggedForeseen)
    again.line, again.log = (), []
    Tree(again, SearchRequest.of(iterations=24, oracle=None), search_seed + 1).iterate()
    for line, outcome in again.log:
        assert drawn.get(line, outcome) == outcome  # another search stream, the same future


def test_a_foreseen_copy_draws_alone() -> None:
    pos, streams = _random_line(2, "meadows", 5, 3)
    world = Foreseen.of(pos, streams)
    before = streams.states()
    twin = world.copy()
    twin.playout(random.Random(1))
    assert streams.states() == before and world.streams.states() == before
    assert not world.is_terminal() and twin.is_terminal()


def test_the_search_is_the_ordinary_one_on_the_foreseen_position(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REFUGE_BACKEND", "python")  # the reference (the native twin: tests/native/)
    pos, streams = _random_line(2, "meadows", 9, 6)
    result = search(Foreseen.of(pos, streams), SearchRequest.of(iterations=40, oracle=None, seed=3))
    assert result.chosen in pos.legal_actions()
    assert result.iterations == 40 and result.backend == "python"


def test_a_position_with_a_hidden_bag_has_no_future_to_foresee() -> None:
    pos, streams = _random_line(2, "meadows", 5, 3)
    pos.hidden_bags = (1,)
    with pytest.raises(ValueError, match="hides a bag"):
        Foreseen.of(pos, streams)


def test_the_spec_takes_the_search_options_but_no_oracle() -> None:
    agent = make_agent("omniscient:iterations=50,cutoff=4")
    assert isinstance(agent, OmniscientAgent)
    assert agent.template.config.oracle is None and agent.template.config.rollout_cutoff == 4
    assert agent.template.limit.iterations == 50
    with pytest.raises(AgentSpecError, match="omniscient: unknown parameter 'exact'"):
        make_agent("omniscient:exact=endgames")


def test_on_a_seat_view_alone_it_refuses_to_play() -> None:
    pos, _ = _random_line(2, "meadows", 5, 3)
    with pytest.raises(AgentSpecError, match="only in the game loop"):
        make_agent(TINY).choose(pos, random.Random(0))


def test_no_engine_serves_it(capsys: pytest.CaptureFixture[str]) -> None:
    """An engine is told only its seat's view: ``refuge engine --agent omniscient:...`` refuses at once."""
    from advisor.players.engine import main

    with pytest.raises(SystemExit) as stopped:
        main(["--agent", TINY])
    assert stopped.value.code == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: {TINY!r} sees the deal's future") and error.count("\n") == 1
