"""Search speed with cut-off rollouts: full heuristic rollouts against ``cutoff=K`` with the learned
evaluator (and the HeuristicEvaluator), at a mid-game 2-player decision; and the cost of one
``evaluate`` in pure Python against the same arithmetic in NumPy (docs/evaluator.md).

One process, one tree per search; the variants alternate round by round and each keeps its best
round, so the load of other programs hits them all alike.

Usage: nice -n 19 .venv/bin/python -m lab.scripts.evaluator_speed [--rounds 3] [--iterations 1000] [--model PATH]

``--model PATH`` adds the learned evaluator with the model in that file (a mix model, say) beside the
shipped one.
"""

from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import argparse
import random
import time
from typing import Any, Callable


import numpy as np

from advisor.players.bots import DEFAULT_ROLLOUT, HeuristicEvaluator
from advisor.players.learned import LearnedEvaluator, feature_rows, load_model, walks_left
from positions import Position
from search.ismcts import search
from search.request import SearchRequest


def mid_game(seed: int = 3, walk: int = 2) -> Position:
    """A 2-player decision with two or more options, in walk `walk` (0-based) of a heuristic game."""
    rng = random.Random(seed)
    pos = Position.new_game(2, "meadows")
    while True:
        if pos.is_chance():
            pos.apply(pos.sample_chance(rng))
            continue
        if pos.walk >= walk and pos.turn >= 1 and len(pos.legal_actions()) > 1:
            return pos
        pos.apply(DEFAULT_ROLLOUT.choose(pos, rng))


class NumpyLearnedEvaluator(LearnedEvaluator):
    """The same model with the arithmetic in NumPy (for the comparison only)."""

    def evaluate(self, state: Position) -> tuple[list[float], list[float]]:
        rows = np.array(feature_rows(state))
        logits = rows @ np.array(self._win)
        shares = np.exp(logits - logits.max())
        scores = rows @ np.array(self._score[:-2]) + self._score[-2] * walks_left(state) + self._score[-1]
        return list(shares / shares.sum()), list(scores)


def per_call(evaluate: Callable[[Position], Any], states: list[Position], repeat: int = 20) -> float:
    """Microseconds per call (best of `repeat` passes over `states`)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for state in states:
            evaluate(state)
        best = min(best, time.perf_counter() - start)
    return best / len(states) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--model", default=None, help="a model file to measure beside the shipped one")
    args = parser.parse_args()
    pos = mid_game()
    print(f"position: {pos!r}, vp {pos.vp}, legal {len(pos.legal_actions())}")
    learned, heuristic = LearnedEvaluator(), HeuristicEvaluator()
    other = LearnedEvaluator(load_model(args.model)) if args.model else None
    variants: dict[str, dict[str, Any]] = {"full rollouts": {}}
    for cutoff in (4, 8, 16):
        variants[f"cutoff={cutoff} learned"] = {"rollout_cutoff": cutoff, "evaluator": learned}
        variants[f"cutoff={cutoff} heuristic"] = {"rollout_cutoff": cutoff, "evaluator": heuristic}
        if other is not None:
            variants[f"cutoff={cutoff} --model"] = {"rollout_cutoff": cutoff, "evaluator": other}
    best = {name: float("inf") for name in variants}
    for _ in range(args.rounds):
        for name, fields in variants.items():
            request = SearchRequest.of(iterations=args.iterations, seed=1, rollout=DEFAULT_ROLLOUT, **fields)
            start = time.perf_counter()
            search(pos, request)
            best[name] = min(best[name], time.perf_counter() - start)
    base = best["full rollouts"]
    for name, seconds in best.items():
        print(f"{name:24} {args.iterations / seconds:8.0f} iterations/s  ({base / seconds:.2f}x)")
    rng = random.Random(2)
    states = []
    for _ in range(200):
        state = pos.determinize(pos.current_player(), rng)
        for _ in range(rng.randrange(12)):
            if state.is_terminal():
                break
            state.apply(state.sample_chance(rng) if state.is_chance() else DEFAULT_ROLLOUT.choose(state, rng))
        if not state.is_terminal():
            states.append(state)
    numpy_learned = NumpyLearnedEvaluator(learned.model)
    calls: list[tuple[str, Callable[[Position], Any]]] = [
        ("learned evaluate (Python)", learned.evaluate), ("learned evaluate (NumPy)", numpy_learned.evaluate),
        ("features only", feature_rows), ("heuristic evaluate", heuristic.evaluate)]
    if other is not None:
        calls.append(("--model evaluate (Python)", other.evaluate))
    for name, evaluate in calls:
        print(f"{name:26} {per_call(evaluate, states):6.1f} us per call")


if __name__ == "__main__":
    main()
