"""The one game loop (advisor.players.games): every tool plays the same game for the same deal."""

from __future__ import annotations

import os
import random
from pathlib import Path

from click.testing import CliRunner

from advisor.cli import cli
from advisor.players.agents import make_agent
from advisor.players.games import GameLoop, deal_seed, derive_seed, play_game, record_file
from positions.kernel.position import Position
from positions.kernel.actions import Action
from positions.kernel.view import seat_view


def _records(folder: Path) -> list[str]:
    return [(folder / name).read_text() for name in sorted(os.listdir(folder))]


def _selfplay_and_arena(tmp_path: Path, agents: list[str], seed: int, games: int) -> tuple[list[str], list[str]]:
    runner = CliRunner()
    played = runner.invoke(cli, ["selfplay", "--agents", ",".join(agents), "--games", str(games),
                                 "--seed", str(seed), "--out", str(tmp_path / "selfplay")])
    assert played.exit_code == 0, played.output
    arena = runner.invoke(cli, ["arena", *[f"--agent={a}" for a in agents], "--games", str(games),
                                "--seed", str(seed), "--workers", "1", "--db", str(tmp_path / "a.sqlite"),
                                "--records", str(tmp_path / "arena")])
    assert arena.exit_code == 0, arena.output
    return _records(tmp_path / "selfplay"), _records(tmp_path / "arena")


def test_selfplay_and_the_arena_play_the_same_games_for_the_same_seed(tmp_path: Path) -> None:
    """Deal d of seed S is one deal stream in both tools; game i is deal i // 2 in rotation i % 2."""
    selfplay, arena = _selfplay_and_arena(tmp_path, ["random", "heuristic"], seed=3, games=4)
    assert len(selfplay) == len(arena) == 4
    assert selfplay == arena  # byte for byte: the same events, names, seed and result
    assert selfplay[0] != selfplay[2]  # another deal


def test_a_searching_agent_plays_the_same_game_in_both_tools(tmp_path: Path) -> None:
    """Before the one loop, ``ismcts:iterations=30`` parted between the tools at event 72."""
    selfplay, arena = _selfplay_and_arena(tmp_path, ["ismcts:iterations=12", "random"], seed=1, games=1)
    assert selfplay[:1] == arena[:1]


def test_arena_records_are_written_again_on_resume(tmp_path: Path) -> None:
    """--records is resumable: a stored game whose file is missing gets it from the store."""
    args = ["arena", "--agent=random", "--agent=cautious", "--games", "2", "--seed", "4", "--workers", "1",
            "--db", str(tmp_path / "a.sqlite"), "--records", str(tmp_path / "games")]
    assert CliRunner().invoke(cli, args).exit_code == 0
    first = record_file(str(tmp_path / "games"), 0)
    kept = Path(first).read_text()
    os.remove(first)
    again = CliRunner().invoke(cli, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    assert Path(first).read_text() == kept


class _Spy:
    """An agent that keeps what it is handed and scribbles on it."""

    def __init__(self) -> None:
        self.name = "spy"
        self.seen: list[tuple[Position, Position]] = []
        self.game: GameLoop | None = None

    def choose(self, position: Position, rng: random.Random) -> Action:
        assert self.game is not None
        self.seen.append((position.copy(), self.game.position.copy()))
        action = position.legal_actions()[0]
        position.vp[0] += 100  # the agent's copy only
        return action


def test_agents_are_handed_their_seat_view_never_the_game_itself() -> None:
    spy = _Spy()
    game = GameLoop([spy, make_agent("random"), make_agent("random")], "forest", 11)
    spy.game = game
    for _ in game.events():
        assert game.position.vp[0] < 100
    assert spy.seen
    for view, true in spy.seen:
        seat = true.current_player()
        assert view.information_set_key(seat) == true.information_set_key(seat)
        assert view.legal_actions() == true.legal_actions()


def test_the_view_draws_what_the_seat_cannot_see_from_the_rng() -> None:
    pos = Position.new_game(3, "meadows")
    while not (pos.is_simultaneous() and pos.actor == 2):
        pos.apply(pos.legal_actions()[-1])
    views = {tuple(seat_view(pos, 2, random.Random(s)).pending[:2]) for s in range(30)}
    assert len(views) > 1  # seat 2 does not see the choices of seats 0 and 1
    assert seat_view(pos, 2, random.Random(5)).pending == seat_view(pos, 2, random.Random(5)).pending


def test_play_game_is_reproducible_and_forced_decisions_are_not_asked() -> None:
    asked: list[int] = []

    class Counting:
        name = "counting"

        def choose(self, position: Position, rng: random.Random) -> Action:
            assert len(position.legal_actions()) > 1
            asked.append(1)
            return position.legal_actions()[int(rng.random() * len(position.legal_actions()))]

    one = play_game([Counting(), Counting()], "meadows", deal_seed(2, 0))
    two = play_game([Counting(), Counting()], "meadows", deal_seed(2, 0))
    assert one.events == two.events and asked
    assert deal_seed(2, 0) == derive_seed(2, "deal", 0)
