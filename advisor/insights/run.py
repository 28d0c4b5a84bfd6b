"""Running a corpus to exactly N games: what is stored is kept, what is missing is played."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from advisor.insights.corpus import TaskRunner, play_corpus_game
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


def run_corpus(db: str, key: CorpusKey, games: int, runner: TaskRunner,
               on_game: Callable[[CorpusProgress], Any] | None = None) -> CorpusProgress:
    """Play the games of the corpus `key` that `db` lacks, up to `games`, each stored as it ends.

    Raises:
        CorpusStoreError: the file cannot be used.
    """
    check_key(key)
    with open_store(db) as con:
        corpus = corpus_id(con, key)
        done = stored_games(con, corpus)
        already = sum(1 for i in done if i < games)
        progress = CorpusProgress(games, already)
        tasks = ((index,) for index in range(games) if index not in done)

        def stored(task: Any, result: GameResult) -> bool:
            if store_game(con, corpus, result):
                progress.played += 1
                progress.seconds += result.seconds
            if on_game is not None:
                on_game(progress)
            return False

        runner(play_corpus_game, tasks, (key,), stored)
    return progress
