"""Tune the heuristic continuation by its value error against exact values (issue 12, item 3).

1. ``generate``: plays seeded 2-4 player games (every route, bots of varied aggression with a
   little randomness) and keeps decisions of the last walk with a single walker that the exact
   solver finishes within a node budget: every decision kind. The seeds (from 100,000 on) are not
   those of the benchmark positions, so tuning does not fit the benchmark.
2. ``score``: for each kept position and each option, plays the option and then `rollouts`
   continuations with a heuristic policy, and compares the mean win share with the exact value.
   The mean |error| over options is the continuation's bias (plus a little noise, the same for
   every parameter set: common random numbers).
3. ``tune``: a seeded grid over the last walk's parameters, best first.
4. ``tune_search`` (``--search-grid``): the value-accuracy harness on the same positions for a grid
   of progressive widening × UCT constant below the root (the search's use of the continuation).

The committed sets: benchmarks/data/continuation_tuning.json (``--games 700 --per-game 2``) and
continuation_heldout.json (the same with ``--seed-base 200000``, never tuned on).

Usage: .venv/bin/python -m lab.scripts.tune_continuation [--positions FILE] [--rollouts 200]
           [--search-grid] [--seed 0] [--out /tmp/tuning.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any, Sequence


from advisor.analysis.best_move import DEFAULT_ITERATIONS
from lab.value_accuracy import Case, ExactOption, measure, summarize
from lab.endgames import BUY_STYLES, NoisyPlayer
from advisor.players.bots import HeuristicPolicy
from advisor.players.games import GameLoop
from positions.kernel.heuristics import DEFAULT_ROLLOUT
from positions import ROUTES as ALL_ROUTES, Position, RULES_VERSION, parse_action
from positions.kernel import phases
from search.errors import SolverLimitError
from search.request import SearchRequest
from search.solver import solve

ROUTES = tuple(ALL_ROUTES)
TUNING_SET = Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "continuation_tuning.json"
SEED_BASE = 100_000


def candidates(seed: int, max_nodes: int, per_game: int, seed_base: int = SEED_BASE,
               ) -> list[dict[str, Any]]:
    """Solvable single-walker decisions of the last walk of game `seed` (at most `per_game`),
    played through the library's game loop (deal seed ``seed_base + seed``)."""
    rng = random.Random(seed_base + seed)
    players = 2 + seed % 3
    route = ROUTES[(seed // 3) % 3]
    seats = [NoisyPlayer(HeuristicPolicy(rng.uniform(0.6, 2.2), rng.choice(BUY_STYLES)), 0.1)
             for _ in range(players)]
    game = GameLoop(seats, route, seed_base + seed)
    found: list[dict[str, Any]] = []
    while not game.position.is_terminal() and len(found) < per_game:
        pos = game.position
        if (not pos.is_chance() and pos.walk == pos.ruleset.walks - 1 and sum(pos.walking) == 1
                and len(pos.legal_actions()) > 1 and pos.phase != phases.RETURN_DISCARD
                and rng.random() < 0.5):
            try:
                result = solve(pos, max_nodes=max_nodes)
            except SolverLimitError:
                result = None
            wins = [o.win for o in result.options] if result is not None else [0.0]
            if max(wins) > 1e-9 and min(wins) < 1 - 1e-9:  # not decided whatever is played
                found.append({"players": players, "route": route, "seed": seed_base + seed,
                              "actions": [str(a) for a in game.recorder.events],
                              "decision": phases.NAMES[pos.phase],
                              "exact": [{"action": str(o.action), "win": float(o.win), "score": float(o.score)}
                                        for o in result.options]})  # type: ignore[union-attr]
        game.step()
    return found


def generate(games: int, max_nodes: int, per_game: int, seed_base: int = SEED_BASE,
             ) -> list[dict[str, Any]]:
    """Candidates from `games` seeded games."""
    found: list[dict[str, Any]] = []
    for seed in range(games):
        found.extend(candidates(seed, max_nodes, per_game, seed_base))
    return found


def replay(entry: dict[str, Any]) -> Position:
    """The position of a stored entry."""
    pos = Position.new_game(entry["players"], entry["route"])
    for text in entry["actions"]:
        pos.apply(parse_action(text))
    return pos


def continuation_errors(entries: Sequence[dict[str, Any]], policy: HeuristicPolicy, rollouts: int,
                        seed: int) -> list[float]:
    """|mean rollout win share - exact win| for every option of every entry."""
    errors = []
    for index, entry in enumerate(entries):
        root = replay(entry)
        player = root.current_player()
        for option_index, option in enumerate(entry["exact"]):
            rng = random.Random(seed * 1_000_003 + index * 97 + option_index)
            total = 0.0
            for _ in range(rollouts):
                state = root.determinize(player, rng)
                state.apply(parse_action(option["action"]))
                state.playout(rng, policy)
                total += state.returns()[player]
            errors.append(abs(total / rollouts - option["win"]))
    return errors


def describe(errors: Sequence[float]) -> dict[str, float]:
    """Mean, median and 95th percentile of the errors."""
    ordered = sorted(errors)
    return {"mean": statistics.fmean(ordered), "median": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]}


GRID = {
    "tie_draw": (0.8, 1.0, 1.25),
    "behind": (0.1, 0.3, 0.5),
}
"""The last-walk parameters searched by ``tune`` (see HeuristicPolicy): in these positions the
walker is alone, so only its endgame rules act."""


def tune(entries: Sequence[dict[str, Any]], rollouts: int, seed: int) -> list[dict[str, Any]]:
    """Every grid point's continuation error, best (lowest mean error) first."""
    rows = []
    names = list(GRID)
    for values in itertools.product(*(GRID[n] for n in names)):
        params = dict(zip(names, values))
        policy = HeuristicPolicy(1.8, "max_value", **params)  # type: ignore[arg-type]
        stats = describe(continuation_errors(entries, policy, rollouts, seed))
        rows.append({**params, **stats})
        print(params, {k: round(v, 4) for k, v in stats.items()}, flush=True)
    return sorted(rows, key=lambda r: r["mean"])


SEARCH_GRID = {
    "widening": (0.0, 0.1, 0.25, 0.5),
    "exploration_below": (None, 0.2, 0.3, 0.5),
}
"""The search settings tried by ``tune_search``."""


def tune_search(entries: Sequence[dict[str, Any]], iterations: int, seed: int) -> list[dict[str, Any]]:
    """The harness's figures for every search setting of the grid (positions searched as by
    best-move with the default rollout), best first: coverage of 90% or more, then p95 error."""
    cases = [Case(f"#{i}", replay(e), tuple(ExactOption(int(parse_action(o["action"])), o["win"], o["score"])
                                           for o in e["exact"])) for i, e in enumerate(entries)]
    rows = []
    for widening, below in itertools.product(*SEARCH_GRID.values()):
        request = SearchRequest.of(iterations=iterations, seed=seed, rollout=DEFAULT_ROLLOUT,
                                widening=widening, exploration_below=below)  # type: ignore[arg-type]
        summary = summarize(measure(cases, request)).to_data()
        rows.append({"widening": widening, "exploration_below": below, **summary})
        print(rows[-1], flush=True)
    return sorted(rows, key=lambda r: (r["coverage"] < 0.9, r["p95_error"], -r["optimal"]))


def main() -> None:
    """Generate (or load) the tuning positions, score the default rollout, then tune."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--per-game", type=int, default=3)
    parser.add_argument("--max-nodes", type=int, default=30_000)
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seed-base", type=int, default=SEED_BASE,
                        help="first game seed (another base gives a held-out set)")
    parser.add_argument("--positions", type=Path, default=TUNING_SET,
                        help="generated positions: read if the file exists, else generated and written")
    parser.add_argument("--no-grid", action="store_true", help="only score the default rollout")
    parser.add_argument("--search-grid", action="store_true",
                        help="also run the value-accuracy harness for each search setting")
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    start = time.perf_counter()
    if args.positions and args.positions.exists():
        entries = json.loads(args.positions.read_text())["positions"]
    else:
        entries = generate(args.games, args.max_nodes, args.per_game, args.seed_base)
        if args.positions:
            args.positions.write_text(json.dumps({"rules_version": RULES_VERSION, "positions": entries}))
    kinds = statistics.multimode([e["decision"] for e in entries])
    print(f"{len(entries)} positions ({sum(len(e['exact']) for e in entries)} options; most common "
          f"decision {kinds}) in {time.perf_counter() - start:.0f} s", flush=True)
    default = describe(continuation_errors(entries, DEFAULT_ROLLOUT, args.rollouts, args.seed))
    print("default rollout:", {k: round(v, 4) for k, v in default.items()}, flush=True)
    rows = [] if args.no_grid else tune(entries, args.rollouts, args.seed)
    search_rows = tune_search(entries, args.iterations, args.seed) if args.search_grid else []
    if args.out:
        args.out.write_text(json.dumps({"default": default, "grid": rows, "search_grid": search_rows},
                                       indent=1) + "\n")
    for row in search_rows[:3]:
        print("best search setting:", row)
    for row in rows[:5]:
        print("best:", row)


if __name__ == "__main__":
    main()
