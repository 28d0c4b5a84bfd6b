"""Running a corpus to exactly N games: what is stored is kept, what is missing is played."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from advisor.insights.corpus import Task, TaskRunner, play_corpus_game
from advisor.insights.store import CorpusKey, GameResult, corpus_id, open_store, store_game, stored_games
from advisor.players.agents import make_agent
from positions.kernel.routes import parse_route


@dataclass
class CorpusProgress:
    """How a run went: games already stored when it began, games it played."""

    games: int
    already: int
    played: int = 0
    seconds: float = 0.0
    """Play time summed over the games this run played (CPU seconds of the workers, roughly)."""


def check_key(key: CorpusKey) -> None:
    """Fail early on a bad agent spec or route.

    Raises:
        AgentSpecError, ImpossiblePositionError: what is wrong, in one line.
    """
    make_agent(key.agent)
    parse_route(key.route)


def shares(games: int, parts: int) -> list[int]:
    """`games` split over `parts` corpora as evenly as can be, the first ones taking the remainder."""
    return [games // parts + (part < games % parts) for part in range(parts)]


def play_keyed_game(task: Task, keys: Sequence[CorpusKey]) -> GameResult:
    """Game ``task[1]`` of the corpus ``keys[task[0]]``."""
    return play_corpus_game((task[1],), keys[int(task[0])])


def run_corpus(db: str, key: CorpusKey | Sequence[CorpusKey], games: int, runner: TaskRunner,
               on_game: Callable[[CorpusProgress], Any] | None = None) -> CorpusProgress:
    """Play the games that `db` lacks of the corpus `key` — or of the corpora `key` lists (one per
    route), `games` shared out evenly and played in turn, so that a run stopped early holds as many
    games of each — up to `games` in all, each stored as it ends.

    Raises:
        CorpusStoreError: the file cannot be used.
    """
    keys = [key] if isinstance(key, CorpusKey) else list(key)
    for each in keys:
        check_key(each)
    wanted = shares(games, len(keys))
    with open_store(db) as con:
        corpus = [corpus_id(con, each) for each in keys]
        done = [stored_games(con, c) for c in corpus]
        already = sum(sum(1 for i in held if i < n) for held, n in zip(done, wanted))
        progress = CorpusProgress(games, already)
        tasks = ((k, index) for index in range(max(wanted)) for k in range(len(keys))
                 if index < wanted[k] and index not in done[k])

        def stored(task: Task, result: GameResult) -> bool:
            if store_game(con, corpus[int(task[0])], result):
                progress.played += 1
                progress.seconds += result.seconds
            if on_game is not None:
                on_game(progress)
            return False

        runner(play_keyed_game, tasks, (keys,), stored)
    return progress
