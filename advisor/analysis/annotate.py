"""Annotating a finished game: each decision's loss against the engine's best, labelled like chess."""

from __future__ import annotations

import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from advisor.players.bots import advisor_request
from advisor.players.games import derive_seed
from positions import phases
from positions.actions import action_from_code
from positions.position import Position
from positions.record import GameRecord, Replay
from search.ismcts import search
from search.request import ActionStats, SearchRequest

DEFAULT_ITERATIONS = 300
"""Iterations per decision by default: a self-played 2-player game in about a minute on 2 cores."""
THRESHOLDS = ((0.15, "blunder"), (0.10, "mistake"), (0.05, "inaccuracy"))
"""Win-probability losses that earn a label (lichess's thresholds)."""


@dataclass(frozen=True)
class Annotation:
    """One decision: what was played, what the engine prefers, and what the difference cost."""

    event: int
    walk: int
    turn: int
    player: int
    decision: str
    played: str
    best: str
    played_win: float | None
    """Estimated win probability after the move played; ``None`` if the search never tried it."""
    best_win: float
    loss: float
    noise: float
    """The 95% margin of the difference between the two estimates."""
    label: str
    played_visits: int
    best_visits: int

    @property
    def accuracy(self) -> float:
        """Lichess-style move accuracy (0–100) from the win-probability loss in points."""
        return move_accuracy(self.loss)


def move_accuracy(loss: float) -> float:
    """100 for no loss, falling off exponentially with the loss (lichess's formula, in % points)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * 100 * loss) - 3.1669))


def label_for(loss: float, noise: float) -> str:
    """The label of a loss, or ``""`` when it is small or within the Monte Carlo noise."""
    if loss <= noise:
        return ""
    for threshold, label in THRESHOLDS:
        if loss >= threshold:
            return label
    return ""


def _half_width(stats: ActionStats) -> float:
    """Half the width of the estimate's 95% Wilson interval (honest for few visits)."""
    return (stats.ci_high - stats.ci_low) / 2 if stats.visits else math.inf


def annotate_decision(position: Position, played: int, event: int, request: SearchRequest) -> Annotation:
    """Search one decision and compare the move played with the engine's best."""
    result = search(position, request)
    best = result.stats(result.chosen)
    mine = result.stats(played)
    seen = mine.visits > 0
    loss = max(0.0, best.win - mine.win) if seen and played != result.chosen else 0.0
    noise = math.hypot(_half_width(best), _half_width(mine)) if played != result.chosen else 0.0
    return Annotation(
        event=event, walk=position.walk + 1, turn=position.turn + 1, player=result.player,
        decision=phases.NAMES[position.phase], played=str(action_from_code(played)),
        best=str(action_from_code(result.chosen)), played_win=mine.win if seen else None,
        best_win=best.win, loss=loss, noise=noise if math.isfinite(noise) else 1.0,
        label=label_for(loss, noise) if seen else "", played_visits=mine.visits,
        best_visits=best.visits)


def decisions_to_annotate(game: Replay, players: Sequence[int] | None,
                          events: range | None = None) -> list[int]:
    """Indexes of the replay steps worth a look: the chosen players' decisions with two or more
    options, within the chosen event range."""
    chosen = []
    for i, step in enumerate(game.steps):
        if step.player < 0 or (players is not None and step.player not in players):
            continue
        if events is not None and step.event not in events:
            continue
        if len(step.position.legal_actions()) >= 2:
            chosen.append(i)
    return chosen


def _job(args: tuple[Position, int, int, SearchRequest]) -> Annotation:
    return annotate_decision(*args)


def annotate_game(game: Replay, players: Sequence[int] | None, iterations: int | None,
                  seconds: float | None, seed: int, workers: int, events: range | None = None,
                  on_done: Callable[[Annotation], None] | None = None) -> list[Annotation]:
    """Annotate every chosen decision; each search is seeded from (seed, event), so the result does
    not depend on the worker count."""
    jobs = []
    for i in decisions_to_annotate(game, players, events):
        step = game.steps[i]
        request = advisor_request(iterations=iterations, seconds=seconds,
                                  seed=derive_seed(seed, "annotate", step.event), root_selection="uniform")
        jobs.append((step.position, int(step.action), step.event, request))
    results: list[Annotation] = []
    for annotation in _run(jobs, workers):
        results.append(annotation)
        if on_done is not None:
            on_done(annotation)
    return sorted(results, key=lambda a: a.event)


def _run(jobs: list[tuple[Position, int, int, SearchRequest]], workers: int) -> Iterator[Annotation]:
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_job, jobs)
        return
    with ProcessPoolExecutor(max_workers=min(workers, os.cpu_count() or 1)) as pool:
        yield from pool.map(_job, jobs, chunksize=max(1, len(jobs) // (8 * workers)))


@dataclass(frozen=True)
class PlayerSummary:
    """A player's accuracy and label counts over the annotated decisions."""

    player: int
    name: str
    decisions: int
    accuracy: float
    inaccuracies: int
    mistakes: int
    blunders: int
    mean_loss: float


def summarise(annotations: Sequence[Annotation], record: GameRecord) -> list[PlayerSummary]:
    """Per-player accuracy (mean move accuracy) and label counts."""
    summaries = []
    for player in sorted({a.player for a in annotations}):
        mine = [a for a in annotations if a.player == player]
        name = record.names[player] if player < len(record.names) else f"player {player}"
        summaries.append(PlayerSummary(
            player, name, len(mine), sum(a.accuracy for a in mine) / len(mine),
            sum(a.label == "inaccuracy" for a in mine), sum(a.label == "mistake" for a in mine),
            sum(a.label == "blunder" for a in mine), sum(a.loss for a in mine) / len(mine)))
    return summaries


def win_curves(annotations: Sequence[Annotation]) -> dict[int, list[tuple[int, float]]]:
    """Each player's estimated win probability after each of their decisions: (event, probability)."""
    curves: dict[int, list[tuple[int, float]]] = {}
    for a in annotations:
        value = a.played_win if a.played_win is not None else a.best_win
        curves.setdefault(a.player, []).append((a.event, value))
    return curves
