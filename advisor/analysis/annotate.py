"""Annotating a finished game: each decision's loss against the engine's best, labelled like chess."""

from __future__ import annotations

import dataclasses
import math
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from advisor.players.tablebase import ExactEndgames
from advisor.players.bots import advisor_request
from advisor.players.games import derive_seed
from positions.kernel import phases
from positions.kernel.actions import action_from_code
from positions.kernel.position import Position
from positions.record import GameRecord, Replay
from positions.render import tile_list
from positions.kernel.rules import paw_total
from search.ismcts import StepSearch, search, search_step
from search.request import ActionStats, SearchRequest, SearchResult

DEFAULT_ITERATIONS = 1200
"""Iterations per decision by default: each option of a typical two-option decision gets 600, so
its win chance is known to about ±4 points and a 10-point loss is labelled outside the noise; a
self-played 2-player game annotates in under a minute on 2 cores (docs/performance.md)."""
THRESHOLDS = ((0.15, "blunder"), (0.10, "mistake"), (0.05, "inaccuracy"))
"""Win-probability losses that earn a label (lichess's thresholds)."""
SCORE_THRESHOLDS = ((10.0, "blunder"), (6.0, "mistake"), (3.0, "inaccuracy"))
"""Losses in expected final score (VP) that earn a label where win chances are saturated."""
SATURATED = 0.03
"""Win chances below this or above 1 minus this are saturated: the game is decided either way,
and the loss is measured in expected final score instead."""
POINTS_PER_VP = 0.05 / 3
"""Win-probability points one VP of score loss counts as in the accuracy (3 VP ≙ 5 points)."""


@dataclass(frozen=True)
class Annotation:
    """One decision: what was played, what the engine prefers, and what the difference cost."""

    event: int
    walk: int
    turn: int
    player: int
    decision: str
    situation: str
    """The player's hand and path, e.g. ``hand compass, sign; path signpost (paw 0)``."""
    played: str
    best: str
    played_win: float | None
    """Estimated win probability after the move played; ``None`` if the search never tried it."""
    best_win: float
    played_score: float | None
    best_score: float
    loss: float
    """The loss in win probability (0 when the played move is the best)."""
    score_loss: float
    """The loss in expected final score (VP)."""
    measure: str
    """``"win"``: labelled by win-probability loss; ``"score"``: both win chances saturated,
    labelled by expected-score loss."""
    noise: float
    """The 95% margin of the difference between the two estimates, in the unit of ``measure``."""
    label: str
    played_visits: int
    best_visits: int
    chances: tuple[float, ...]
    """Every player's win chance after the move played (they sum to 1, C18); at a step several
    seats decided, the others playing as the step's search would have them (its recommendation
    to each, or its mean strategy), not its exploration of their other options."""
    scores: tuple[float, ...]
    """Every player's expected final score after the move played."""
    exact: bool = False
    """Both values compared are exact (a solved endgame), not estimates."""

    @property
    def accuracy(self) -> float:
        """Lichess-style move accuracy (0–100) from the loss (VP count ``POINTS_PER_VP`` each)."""
        if self.measure == "score":
            return move_accuracy(self.score_loss * POINTS_PER_VP)
        return move_accuracy(self.loss)


def move_accuracy(loss: float) -> float:
    """100 for no loss, falling off exponentially with the loss (lichess's formula, in % points)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * 100 * loss) - 3.1669))


def label_for(loss: float, noise: float, thresholds: Sequence[tuple[float, str]] = THRESHOLDS,
              unit: float = 100.0) -> str:
    """The label of a loss, or ``""`` when it is small or within the Monte Carlo noise; the loss
    meets the thresholds as printed, to 0.1 of its unit (win points: a 0.1499 loss shows as 15.0,
    so it is a blunder; VP: unit 1)."""
    if loss <= noise:
        return ""
    for threshold, label in thresholds:
        if float(f"{loss * unit:.1f}") >= float(f"{threshold * unit:.1f}"):
            return label
    return ""


def is_saturated(first: float, second: float) -> bool:
    """Both win chances below ``SATURATED`` or both above 1 minus it."""
    return max(first, second) < SATURATED or min(first, second) > 1 - SATURATED


def situation(position: Position, player: int) -> str:
    """A one-line summary of what the player holds: hand and path with its paw total."""
    path = position.paths[player]
    return (f"hand {tile_list(position.hands[player])}; path {tile_list(path)} "
            f"(paw {paw_total(path)})")


def _measured_at_least(mine: ActionStats, best: ActionStats) -> bool:
    """`mine` is at least as good as `best` in the measure their loss would use (no loss)."""
    measure, win_loss, score_loss, _ = _loss(best, mine)
    return (score_loss if measure == "score" else win_loss) == 0.0


def _loss(best: ActionStats, mine: ActionStats) -> tuple[str, float, float, float]:
    """(measure, win loss, score loss, noise in the measure's unit) of playing `mine` for `best`."""
    win_loss = max(0.0, best.win - mine.win)
    score_loss = max(0.0, best.score - mine.score)
    if is_saturated(best.win, mine.win):
        return "score", win_loss, score_loss, math.hypot(best.score_noise, mine.score_noise)
    return "win", win_loss, score_loss, math.hypot(best.half_width, mine.half_width)


def annotate_decision(position: Position, played: int, event: int, request: SearchRequest) -> Annotation:
    """Search one decision and compare the move played with the engine's recommendation."""
    return annotation_from(position, played, event, search(position, request))


VERIFIED_SHARE = 0.25
"""Where a step's rows leave the search's recommended line (a seat played something else than the
step's search recommends), or rest on fewer than this share of its iterations, a fresh search with
those moves pinned, of this share of the iterations, measures them. The step's search is adaptive:
UCT stops sampling a move whose first results were poor, and a move is "not recommended" partly
because its estimate came out low, so such a move's mean is biased low (adaptively collected means
are: Shin, Ramdas & Rinaldo 2019). Before this, the chances after moves the search did not
recommend came out 0.03-0.05 below the outcomes (docs/advisor.md)."""


def annotate_step(positions: Sequence[Position], played: Sequence[int], events: Sequence[int],
                  request: SearchRequest) -> list[Annotation]:
    """Several seats' decisions of one simultaneous step (in seat order) from one search grown at
    the step's start: every row's chances share one viewpoint, so the rows of a step differ only by
    the move each played. A row's chances are after the moves played so far in seat order (the
    record shows them; the later seats as the search would have them play), so from one row to the
    next only that seat's move is new. A seat that played something else than recommended has both
    options measured against the other seats' play (see :class:`StepReader`), so its loss is not
    inflated by the adaptive search. With two or more seats every node selects as the request says
    below the root (a round robin at one seat would have the others valued against a uniformly
    random choice), so ``root_selection`` is UCT's there."""
    if len(positions) > 1:
        request = dataclasses.replace(request, root_selection="uct")
    step = search_step(positions, request)
    if len(positions) == 1:
        return [annotation_from(positions[0], played[0], events[0], step.results[0])]
    reader = StepReader(positions, played, request, step)
    rows = []
    for index, (position, action, event, result) in enumerate(zip(positions, played, events, step.results)):
        rows.append(annotation_from(position, action, event, result, reader.row_chances(index),
                                    reader.options(index)))
    return rows


Line = tuple[tuple[int, int], ...]
"""Pinned moves of a step: (seat index, action) pairs in seat order."""


def _pins(known: Sequence[Mapping[int, float]]) -> dict[int, int]:
    """The seats whose play is one action, pinned to it."""
    return {seat: next(iter(choice)) for seat, choice in enumerate(known) if len(choice) == 1}


class StepReader:
    """The rows of one simultaneous step read from its search, with a fresh verification search
    (``VERIFIED_SHARE`` of the iterations, the moves pinned) wherever the rows leave the search's
    recommended line or the search sampled them too rarely."""

    def __init__(self, positions: Sequence[Position], played: Sequence[int], request: SearchRequest,
                 step: StepSearch) -> None:
        self.positions, self.played, self.request, self.step = positions, played, request, step
        self.recommended = [r.recommendation.action for r in step.results]
        self.policies = [policy(r) for r in step.results]
        iterations = sum(option.visits for option in step.results[0].actions)
        self.needed = max(1, round(VERIFIED_SHARE * iterations))
        """The iterations a row's numbers must rest on, and those of a verification."""
        self.verifications: dict[Line, StepSearch] = {}

    def verified(self, pins: dict[int, int]) -> StepSearch:
        """The verification search of one pinned line (searched once per step)."""
        line = tuple(sorted(pins.items()))
        found = self.verifications.get(line)
        if found is None:
            request = dataclasses.replace(self.request, iterations=self.needed, seconds=None,
                                          workers=min(self.request.workers, self.needed),
                                          seed=derive_seed(self.request.seed, "verify", line))
            found = self.verifications[line] = search_step(self.positions, request, pins)
        return found

    def row_chances(self, index: int) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
        """Every player's chances and scores after seat `index`'s move, the seats before it as
        played and those after it as their policies."""
        action = self.played[index]
        known = [{self.played[seat]: 1.0} if seat < index else self.policies[seat]
                 for seat in range(len(self.positions))]
        step = self.step
        on_line = all(self.played[seat] == self.recommended[seat] for seat in range(index + 1))
        if on_line and step.support(index, action, known) >= self.needed:
            return step.chances_after(index, action, known)
        pins = _pins(known)
        pins[index] = action
        return (self.verified(pins).chances_after(index, action, known)
                or step.chances_after(index, action, known)
                or step.chances_after(index, action, self.policies))

    def options(self, index: int) -> tuple[ActionStats, ActionStats] | None:
        """Seat `index`'s recommended option and the one it played, each from a verification with
        every other seat playing its policy, where it played something else (``None``: it played
        the recommendation, or the options' values are exact)."""
        result = self.step.results[index]
        action, best = self.played[index], self.recommended[index]
        if action == best or (result.stats(best).exact and result.stats(action).exact):
            return None
        pins = _pins([{} if seat == index else choice for seat, choice in enumerate(self.policies)])
        return (self.verified({**pins, index: best}).results[index].stats(best),
                self.verified({**pins, index: action}).results[index].stats(action))


def policy(result: SearchResult) -> dict[int, float]:
    """How the search would have a seat play: its mean strategy (regret matching, Exp3), else its
    recommendation."""
    shares = {s.action: s.share for s in result.actions if s.share is not None}
    return shares if shares else {result.recommendation.action: 1.0}


def annotation_from(position: Position, played: int, event: int, result: SearchResult,
                    after: tuple[tuple[float, ...], tuple[float, ...]] | None = None,
                    options: tuple[ActionStats, ActionStats] | None = None) -> Annotation:
    """The annotation of a decision from a search's result there: the move played against the
    recommendation. `after` (every player's chances and scores after the move played, the other
    seats of its step playing as the search would have them) replaces the option's own means,
    which include the search's exploration of the others' options; `options` (the recommended
    option's and the played one's statistics from verification searches) replaces theirs."""
    chosen = result.recommendation.action
    best, mine = options if options is not None else (result.stats(chosen), result.stats(played))
    seen = mine.visits > 0
    if seen and played != chosen and _measured_at_least(mine, best):
        # as good as the recommendation in the measure shown (the search may recommend another move
        # within noise, by expected score): the move played is best, never a move scoring below it
        chosen, best = played, mine
    measure, loss, score_loss, noise = "win", 0.0, 0.0, 0.0
    if seen and played != chosen:
        measure, loss, score_loss, noise = _loss(best, mine)
    label = ""
    if seen:
        label = (label_for(score_loss, noise, SCORE_THRESHOLDS, unit=1.0) if measure == "score"
                 else label_for(loss, noise))
    chances = mine if seen else best
    return Annotation(
        event=event, walk=position.walk + 1, turn=position.turn + 1, player=result.player,
        decision=phases.NAMES[position.phase], situation=situation(position, result.player),
        played=str(action_from_code(played)), best=str(action_from_code(chosen)),
        played_win=mine.win if seen else None, best_win=best.win,
        played_score=mine.score if seen else None, best_score=best.score,
        loss=loss, score_loss=score_loss, measure=measure,
        noise=noise if math.isfinite(noise) else (100.0 if measure == "score" else 1.0),
        label=label, played_visits=mine.visits, best_visits=best.visits,
        chances=chances.wins if after is None or chances.exact else after[0],
        scores=chances.scores if after is None or chances.exact else after[1],
        exact=best.exact and chances.exact)


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


Job = tuple[list[Position], list[int], list[int], SearchRequest]
"""One search's work: the decisions of one step (one, or several seats of a simultaneous step),
the moves played, their events, the request."""


def _job(args: Job) -> list[Annotation]:
    return annotate_step(*args)


def step_groups(game: Replay, chosen: Sequence[int]) -> list[list[int]]:
    """The chosen replay steps grouped by search: the seats' decisions of one simultaneous step
    (C6, C8, C12: same walk, turn and step) together, every other decision alone."""
    groups: list[list[int]] = []
    last: tuple[int, int, int] | None = None
    for i in chosen:
        pos = game.steps[i].position
        step = (pos.walk, pos.turn, pos.phase) if pos.phase in phases.SIMULTANEOUS else None
        if step is not None and step == last:
            groups[-1].append(i)
        else:
            groups.append([i])
        last = step
    return groups


def annotate_game(game: Replay, players: Sequence[int] | None, iterations: int | None,
                  seconds: float | None, seed: int, workers: int, events: range | None = None,
                  on_done: Callable[[Annotation], None] | None = None,
                  request: SearchRequest | None = None, by_step: bool = True) -> list[Annotation]:
    """Annotate every chosen decision; the seats' decisions of one simultaneous step from one search
    grown at the step's start (:func:`annotate_step`), every other decision from its own. Each
    search is seeded from (seed, its first event), so the result does not depend on the worker
    count. `request` (optional) replaces the advisor's request, the limits and seed set here;
    ``by_step=False`` searches every decision on its own (as before issue 22)."""
    jobs: list[Job] = []
    chosen = decisions_to_annotate(game, players, events)
    for group in step_groups(game, chosen) if by_step else [[i] for i in chosen]:
        steps = [game.steps[i] for i in group]
        fields: dict[str, Any] = {"iterations": iterations, "seconds": seconds,
                                  "seed": derive_seed(seed, "annotate", steps[0].event)}
        if request is None:
            searching = advisor_request(root_selection="uniform", oracle=ExactEndgames(), **fields)
        else:
            searching = dataclasses.replace(request, **fields)
        jobs.append(([s.position for s in steps], [int(s.action) for s in steps],
                     [s.event for s in steps], searching))
    results: list[Annotation] = []
    for step_rows in _run(jobs, workers):
        for annotation in step_rows:
            results.append(annotation)
            if on_done is not None:
                on_done(annotation)
    return sorted(results, key=lambda a: a.event)


def _run(jobs: list[Job], workers: int) -> Iterator[list[Annotation]]:
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
    """Mean win-probability loss."""
    mean_score_loss: float
    """Mean expected-score loss (VP)."""


def summarise(annotations: Sequence[Annotation], record: GameRecord) -> list[PlayerSummary]:
    """Per-player accuracy (mean move accuracy) and label counts."""
    summaries = []
    for player in sorted({a.player for a in annotations}):
        mine = [a for a in annotations if a.player == player]
        name = record.names[player] if player < len(record.names) else f"player {player}"
        summaries.append(PlayerSummary(
            player, name, len(mine), sum(a.accuracy for a in mine) / len(mine),
            sum(a.label == "inaccuracy" for a in mine), sum(a.label == "mistake" for a in mine),
            sum(a.label == "blunder" for a in mine), sum(a.loss for a in mine) / len(mine),
            sum(a.score_loss for a in mine) / len(mine)))
    return summaries


def win_curves(annotations: Sequence[Annotation]) -> dict[int, list[tuple[int, float]]]:
    """Every player's estimated win probability after each annotated decision: (event, probability).

    All players' values come from the same search, so at every event the curves sum to 1; the
    seats' decisions of one simultaneous step share one search, grown at the step's start.
    """
    curves: dict[int, list[tuple[int, float]]] = {}
    for a in annotations:
        for player, chance in enumerate(a.chances):
            curves.setdefault(player, []).append((a.event, chance))
    return curves
