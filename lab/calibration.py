"""Seat consistency and outcome calibration of the advisor's win chances (issue 22, item 4).

Seeded self-played games are annotated (:func:`advisor.analysis.annotate.annotate_game`); every
annotated decision gives a prediction — the decider's own win chance after the move played —
and the game's result its outcome (the decider's share of the win, C18). From them: the
reliability table per step kind and seat (mean chance against the observed win share, with a
standard error over games), the expected calibration error, the Brier score and its skill
against the uninformed forecast (1/players), and the seat consistency: within one simultaneous
step, a later seat's own chance against the earlier seats' view of that same player. Standard
errors treat games as the independent units (the predictions of one game share its outcome).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from advisor.analysis.annotate import Annotation, annotate_game
from advisor.players.agents import make_agent
from advisor.players.games import derive_seed, play_game
from lab.training import reliability as binned_reliability
from positions.record import replay
from search.request import SearchRequest

SIMULTANEOUS_KINDS = ("decide", "choose", "buy")
"""The step kinds whose seats choose at once, unseen (C6, C8, C12): where seat consistency is read."""


@dataclass(frozen=True)
class Prediction:
    """One annotated decision of a self-played game, with what happened."""

    game: int
    walk: int
    turn: int
    kind: str
    """The decision's step kind (``decide``, ``choose``, ...)."""
    player: int
    chances: tuple[float, ...]
    """Every player's win chance after the move played, from the decision's search."""
    outcome: float
    """The decider's share of the win at the end (C18: 1/k for k tied winners)."""
    players: int
    recommended: bool | None = None
    """Whether the move played was the annotating search's recommendation (``None``: not recorded)."""

    @property
    def chance(self) -> float:
        """The decider's own win chance."""
        return self.chances[self.player]


def game_predictions(game: int, agent: str, players: int, route: str, seed: int, iterations: int,
                     request: SearchRequest | None = None, by_step: bool = True) -> list[Prediction]:
    """Self-play game `game` (every seat `agent`, seeded from (seed, game)), annotate every decision
    at `iterations` (with `request` instead of the advisor's, if given; `by_step` as
    :func:`~advisor.analysis.annotate.annotate_game`): its predictions."""
    recorder = play_game([make_agent(agent) for _ in range(players)], route,
                         derive_seed(seed, "calibration", game))
    played = replay(recorder.record())
    annotations = annotate_game(played, None, iterations, None, derive_seed(seed, "annotate", game), 1,
                                request=request, by_step=by_step)
    returns = played.final.returns()
    return [_prediction(game, a, returns) for a in annotations]


def _prediction(game: int, annotation: Annotation, returns: Sequence[float]) -> Prediction:
    return Prediction(game, annotation.walk, annotation.turn, annotation.decision, annotation.player,
                      annotation.chances, returns[annotation.player], len(returns),
                      annotation.played == annotation.best)


@dataclass(frozen=True)
class Mean:
    """A mean over predictions with its standard error over games."""

    value: float
    se: float
    count: int
    games: int


def clustered_mean(values: Iterable[tuple[int, float]]) -> Mean:
    """The mean of (game, value) pairs and its cluster-robust standard error (games independent,
    the values within a game not): sqrt(G/(G-1) * sum_g (S_g - n_g mean)^2) / N."""
    sums: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for game, value in values:
        sums[game][0] += value
        sums[game][1] += 1
    count = sum(n for _, n in sums.values())
    if not count:
        return Mean(math.nan, math.nan, 0, 0)
    mean = sum(s for s, _ in sums.values()) / count
    games = len(sums)
    if games < 2:
        return Mean(mean, math.nan, int(count), games)
    spread = sum((s - n * mean) ** 2 for s, n in sums.values())
    return Mean(mean, math.sqrt(games / (games - 1) * spread) / count, int(count), games)


@dataclass(frozen=True)
class ReliabilityRow:
    """One (step kind, seat) group: its mean own chance against the observed win share."""

    kind: str
    seat: int
    predicted: Mean
    observed: Mean
    difference: Mean
    """Mean of (chance - outcome): positive when the chances are too high."""


def reliability(predictions: Sequence[Prediction]) -> list[ReliabilityRow]:
    """The reliability table: per step kind and seat (and ``all``), chance against outcome."""
    groups: dict[tuple[str, int], list[Prediction]] = defaultdict(list)
    for p in predictions:
        groups[(p.kind, p.player)].append(p)
        groups[("all", -1)].append(p)
    rows = []
    for (kind, seat), members in sorted(groups.items(), key=lambda kv: (kv[0][0] == "all", kv[0])):
        rows.append(ReliabilityRow(kind, seat, clustered_mean((p.game, p.chance) for p in members),
                                   clustered_mean((p.game, p.outcome) for p in members),
                                   clustered_mean((p.game, p.chance - p.outcome) for p in members)))
    return rows


def chance_bins(predictions: Sequence[Prediction], bins: int = 10) -> tuple[list[dict[str, float]], float]:
    """The deciders' own chances in `bins` equal-width bins (count, mean chance, observed share of
    each non-empty bin) and the ECE, by the evaluator's own :func:`~lab.training.reliability`."""
    return binned_reliability([[p.chance] for p in predictions], [[p.outcome] for p in predictions], bins)


def expected_calibration_error(predictions: Sequence[Prediction], bins: int = 10) -> float:
    """ECE: the prediction-weighted mean |mean chance - observed share| over equal-width bins."""
    return chance_bins(predictions, bins)[1] if predictions else math.nan


@dataclass(frozen=True)
class Brier:
    """The Brier score of the chances and its skill against the uninformed 1/players forecast."""

    score: Mean
    reference: float
    skill: float
    """1 - score / reference: 0 no better than 1/players, 1 perfect, negative worse."""


def brier(predictions: Sequence[Prediction]) -> Brier:
    """Mean squared error of the decider's chance against the outcome, and its skill."""
    score = clustered_mean((p.game, (p.chance - p.outcome) ** 2) for p in predictions)
    reference = (sum((1.0 / p.players - p.outcome) ** 2 for p in predictions) / len(predictions)
                 if predictions else math.nan)
    return Brier(score, reference, 1.0 - score.value / reference if reference else math.nan)


@dataclass(frozen=True)
class ConsistencyRow:
    """A later seat's own chance against the earlier seats' view of it, in one step kind."""

    kind: str
    seat: int
    difference: Mean
    """Mean over steps of (own chance - the earlier seats' mean estimate of this seat's chance)."""
    recommended: Mean
    """The same over the steps where this seat played the search's recommendation: what is left
    once the cost of its own move (which the earlier seats' view cannot know) is taken out."""


def seat_consistency(predictions: Sequence[Prediction]) -> list[ConsistencyRow]:
    """Per simultaneous step kind and later seat: in every step (walk, turn, kind) where it and an
    earlier seat both decided, its own chance minus the earlier seats' mean view of its chance."""
    steps: dict[tuple[int, int, int, str], list[Prediction]] = defaultdict(list)
    for p in predictions:
        if p.kind in SIMULTANEOUS_KINDS:
            steps[(p.game, p.walk, p.turn, p.kind)].append(p)
    differences: dict[tuple[str, int], list[tuple[int, float]]] = defaultdict(list)
    as_recommended: dict[tuple[str, int], list[tuple[int, float]]] = defaultdict(list)
    for (game, _, _, kind), members in steps.items():
        members.sort(key=lambda p: p.player)
        for index, later in enumerate(members):
            earlier = members[:index]
            if earlier:
                view = sum(p.chances[later.player] for p in earlier) / len(earlier)
                differences[(kind, later.player)].append((game, later.chance - view))
                if later.recommended:
                    as_recommended[(kind, later.player)].append((game, later.chance - view))
    return [ConsistencyRow(kind, seat, clustered_mean(values), clustered_mean(as_recommended[(kind, seat)]))
            for (kind, seat), values in sorted(differences.items())]


def _cell(mean: Mean, digits: int = 3) -> str:
    return f"{mean.value:+.{digits}f} ({mean.se:.{digits}f})"


def report_markdown(predictions: Sequence[Prediction]) -> str:
    """The tables as markdown: reliability, ECE and Brier, seat consistency."""
    lines = ["| step | seat | predictions | games | mean chance | observed share | chance − observed (SE) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for row in reliability(predictions):
        seat = "all" if row.seat < 0 else str(row.seat)
        lines.append(f"| {row.kind} | {seat} | {row.predicted.count:,} | {row.predicted.games} | "
                     f"{row.predicted.value:.3f} | {row.observed.value:.3f} | {_cell(row.difference)} |")
    score = brier(predictions)
    lines += ["", f"ECE (10 bins): {expected_calibration_error(predictions):.3f}; Brier "
              f"{score.score.value:.4f} (SE {score.score.se:.4f}), uninformed {score.reference:.4f}, "
              f"skill {score.skill:.3f}", "",
              "| chance bin | predictions | mean chance | observed share |", "|---|---:|---:|---:|"]
    for cell in chance_bins(predictions)[0]:
        lines.append(f"| {cell['low']:.1f}–{cell['high']:.1f} | {int(cell['count']):,} | {cell['forecast']:.3f} "
                     f"| {cell['observed']:.3f} |")
    lines += ["",
              "| step | later seat | steps | own chance − earlier seats' view (SE over games) "
              "| steps it played the recommendation | the same on those steps |",
              "|---|---:|---:|---|---:|---|"]
    for c in seat_consistency(predictions):
        lines.append(f"| {c.kind} | {c.seat} | {c.difference.count:,} | {_cell(c.difference)} "
                     f"| {c.recommended.count:,} | {_cell(c.recommended)} |")
    return "\n".join(lines) + "\n"

