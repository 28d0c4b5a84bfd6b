"""The learned evaluator on the games of an arena database (issue 27): does a model fitted to bot
games forecast the strong agents' own games, and would fitting it to them do better?

Every decision of every stored game without a fault (its record replayed, chance events left out)
becomes a :class:`~lab.training.Sample` labelled with the game's stored result, exactly
as the evaluator's training labels bot games. :func:`evaluator_report` measures the shipped model
and the HeuristicEvaluator on them (log loss, accuracy, calibration, by walk), and fits the same
model to the first games to measure it on the last ones (split by game, never by position).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from lab.decisions import stored_decisions
from advisor.players.bots import HeuristicEvaluator
from advisor.players.learned import Model
from lab.training import (
    LABEL, Sample, accuracy, fit, held_out_games, labelled_sample, learned_predictions, log_loss, reliability,
)


@dataclass(frozen=True)
class StoredSample:
    """A decision of a stored game: the sample, and the walk it was made in (0-based)."""

    sample: Sample
    walk: int


def stored_samples(db: str, mix: bool = False) -> list[StoredSample]:
    """Every decision of every stored game of `db` without a fault, labelled with the game's result
    (with `mix`, the rows carry the mix features too).

    Raises:
        StoreError: not an arena database, or a stored record that does not replay.
    """
    heuristic = HeuristicEvaluator()
    return [StoredSample(labelled_sample(d.game, d.position, d.returns, d.scores, heuristic,
                                         "mix" if mix else "summary"),
                         d.position.walk)
            for d in stored_decisions(db)]


@dataclass(frozen=True)
class Forecast:
    """How one model forecasts a set of decisions' results."""

    decisions: int
    log_loss: float
    accuracy: float
    ece: float


def forecast(shares: Sequence[Sequence[float]], samples: Sequence[Sample]) -> Forecast:
    """Log loss, accuracy and calibration error of `shares` against the samples' results."""
    labels = [s.returns for s in samples]
    return Forecast(len(samples), log_loss(shares, labels), accuracy(shares, labels),
                    reliability(shares, labels)[1])


@dataclass(frozen=True)
class EvaluatorReport:
    """The shipped model and the HeuristicEvaluator on every decision, by walk, and a refit."""

    games: int
    shipped: Forecast
    heuristic: Forecast
    by_walk: dict[int, Forecast]
    """The shipped model per walk (1-based)."""
    held_out_games: int
    shipped_held_out: Forecast
    refit_held_out: Forecast
    """The same model fitted to the other games, on the held-out ones."""
    refit: Model
    """That refitted model (its ``training`` says which games)."""


def evaluator_report(found: Sequence[StoredSample], model: Model, held_out: float = 0.25,
                     mix: bool = False, source: str = "") -> EvaluatorReport:
    """Measure `model` on the decisions; refit it (with `mix`: a model with the mix features, the
    samples' rows carrying them) on the first games and compare on the last `held_out` share (at
    least one game, never all); `source` names the games in the refit's ``training``.

    Raises:
        ValueError: fewer than two games, or a share outside (0, 1).
    """
    samples = [f.sample for f in found]
    games = sorted({s.game for s in samples})
    if len(games) < 2:
        raise ValueError("the evaluator report needs at least two stored games")
    shares = learned_predictions(model, samples)[0]
    by_walk = {}
    for walk in sorted({f.walk for f in found}):
        chosen = [i for i, f in enumerate(found) if f.walk == walk]
        by_walk[walk + 1] = forecast([shares[i] for i in chosen], [samples[i] for i in chosen])
    if not 0 < held_out < 1:
        raise ValueError(f"the held-out share must be in (0, 1), got {held_out!r}")
    kept_back = set(held_out_games(games, held_out))
    train = [s for s in samples if s.game not in kept_back]
    test = [s for s in samples if s.game in kept_back]
    training = {"source": source, "games": len(games), "training_games": len(games) - len(kept_back),
                "held_out_games": len(kept_back), "label": LABEL,
                "samples": {"training": len(train), "held_out": len(test)}}
    refit = fit(train, training=training, layout="mix" if mix else "summary")
    return EvaluatorReport(len(games), forecast(shares, samples), forecast([s.heuristic for s in samples], samples),
                           by_walk, len({s.game for s in test}),
                           forecast(learned_predictions(model, test)[0], test),
                           forecast(learned_predictions(refit, test)[0], test), refit)
