"""Expert iteration on the native core (issue 54, item 3): self-play, fit, gate, generation by generation.

Per generation k = 1 .. N:

1. self-play: `--games` 2-player games (every route) of the default agent at `--iterations` a
   decision, its cut-offs judged by generation k − 1's evaluator (generation 0: the shipped model);
   every asked decision's position rows, the move's own search's root value per seat and the
   game's result go to OUT/selfplay.sqlite as each game finishes (lab.expert_selfplay,
   lab.expert_store);
2. fit: a position-reading network (the network layout, docs/evaluator.md) fitted with NumPy to
   `--weight` x search value + (1 - weight) x result on all but the last `--held-out` share of the
   games, measured there walk by walk against generation k − 1 (log loss, ECE), written to
   OUT/gen-k/evaluator.json (``LearnedEvaluator(load_model(PATH))``; lab.expert_fit);
3. with `--gate-games M`: generation k against k − 1 at 0.2 s a decision, fishtest's SPRT [0, 10],
   at most M games, stored in OUT/gen-k/gate.sqlite (lab.expert_gate).

The same seed gives the same store content and the same model files whatever `--workers`; a run
stopped anywhere continues with `--resume` (finished games, models and gate games are kept)::

    nice -n 10 .venv/bin/python -m lab.scripts.expert_iteration --generations 3 --games 10000 \\
        --seed 1 --out ei-native --workers 2 --gate-games 4000
"""

from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # one core: small matrices, and the same sums every run

import argparse
import json
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Iterator, NoReturn

from advisor.arena.executors import start_worker
from advisor.arena.report import format_table, sprt_lines
from advisor.players.learned import Model, load_model, shipped_model
from lab.expert_fit import DEFAULT_HELD_OUT, DEFAULT_HIDDEN, DEFAULT_WEIGHT, fit_generation, report_lines
from lab.expert_gate import cached_model, model_path, run_gate
from lab.expert_selfplay import PLAYERS, PlayedGame, play_selfplay_game
from lab.expert_store import ExpertStore
from positions.errors import RefugeError
from positions.files import write_atomically
from positions.kernel.routes import ROUTES
from search.seeds import derive_seed

DEFAULT_ITERATIONS = 1000
"""The default agent's iterations a decision (``ismcts`` with no limit)."""
STORE_NAME = "selfplay.sqlite"


class OneLineParser(argparse.ArgumentParser):
    """A parser whose errors are one line: ``expert_iteration: --x: ...``."""

    def error(self, message: str) -> NoReturn:
        """Say what is wrong in one line and exit with status 2."""
        self.exit(2, f"expert_iteration: {message}\n")


def _at_least(low: int) -> Callable[[str], int]:
    """An argument type: a whole number >= `low`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {text!r}")
        return value
    return parse


def _share(text: str) -> float:
    """An argument type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = OneLineParser(prog="expert_iteration", description=__doc__.splitlines()[0])
    p.add_argument("--generations", type=_at_least(1), required=True, help="generations to make (N)")
    p.add_argument("--games", type=_at_least(2), required=True, help="self-play games per generation")
    p.add_argument("--seed", type=_at_least(0), required=True, help="every random choice flows from it")
    p.add_argument("--out", required=True, help="the run's folder (selfplay.sqlite, gen-1, gen-2, ...)")
    p.add_argument("--workers", type=_at_least(1), default=1, help="games played at once (same data)")
    p.add_argument("--resume", action="store_true", help="continue the run stored in --out")
    p.add_argument("--iterations", type=_at_least(1), default=DEFAULT_ITERATIONS,
                   help="the self-play agent's iterations a decision (the default agent's: 1000)")
    p.add_argument("--weight", type=_share, default=DEFAULT_WEIGHT,
                   help="the search value's share of a label, the rest the game's result (lab.expert_fit)")
    p.add_argument("--held-out", type=float, default=DEFAULT_HELD_OUT,
                   help="share of a generation's games never fitted (measured on)")
    p.add_argument("--hidden", type=_at_least(1), default=DEFAULT_HIDDEN, help="the network's tanh units")
    p.add_argument("--gate-games", type=_at_least(0), default=0,
                   help="play generation k against k-1 at 0.2 s a decision, SPRT [0, 10], at most this many "
                        "games (0: no gate)")
    return p


def run_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What fixes the run's data and models (the store refuses a resume with others)."""
    return {"seed": args.seed, "games": args.games, "iterations": args.iterations, "players": PLAYERS,
            "routes": sorted(ROUTES), "weight": args.weight, "held_out": args.held_out, "hidden": args.hidden}


def command_text(args: argparse.Namespace) -> str:
    """The command as a model file records it: the options that fix the models (not the folder,
    the workers, the generations asked for or the gate)."""
    return (f"python -m lab.scripts.expert_iteration --games {args.games} --seed {args.seed} "
            f"--iterations {args.iterations} --weight {args.weight:g} --held-out {args.held_out:g} "
            f"--hidden {args.hidden}")


def say(text: str) -> None:
    """A progress line on stderr."""
    print(text, file=sys.stderr, flush=True)


def _play(seed: int, generation: int, game: int, parent: str | None, iterations: int) -> PlayedGame:
    """One self-play game in a worker (the parent model read once per process)."""
    return play_selfplay_game(seed, generation, game, None if parent is None else cached_model(parent), iterations)


def played_games(args: argparse.Namespace, generation: int, games: list[int], parent: str | None,
                 ) -> Iterator[PlayedGame]:
    """The games played, in the order they finish (`--workers` at a time in forked processes)."""
    if args.workers == 1 or len(games) < 2:
        for game in games:
            yield _play(args.seed, generation, game, parent, args.iterations)
        return
    pool = ProcessPoolExecutor(max_workers=min(args.workers, len(games)), initializer=start_worker,
                               initargs=(os.getpid(),))
    todo = iter(games)
    running: set[Future[PlayedGame]] = set()
    try:
        while True:
            while len(running) < 2 * args.workers:
                queued = next(todo, None)
                if queued is None:
                    break
                running.add(pool.submit(_play, args.seed, generation, queued, parent, args.iterations))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def selfplay(args: argparse.Namespace, store: ExpertStore, generation: int, parent: str | None) -> None:
    """Play the generation's games the store does not hold, storing each as it finishes."""
    todo = [g for g in range(args.games) if g not in store.finished(generation)]
    started = time.perf_counter()
    step = max(1, args.games // 10)
    for count, played in enumerate(played_games(args, generation, todo, parent), 1):
        store.add(generation, played)
        if count % step == 0 or count == len(todo):
            say(f"gen-{generation}: self-play {args.games - len(todo) + count}/{args.games} games "
                f"({time.perf_counter() - started:.0f} s)")
    games, decisions, seconds = store.cost(generation)
    say(f"gen-{generation}: {games} games, {decisions} positions, {seconds:.1f} CPU-s of self-play: "
        f"{decisions / max(seconds, 1e-9):.1f} positions per CPU-second, "
        f"{seconds / max(games, 1):.2f} CPU-s a game")


def fitted(args: argparse.Namespace, store: ExpertStore, generation: int, parent: Model, parent_name: str,
           ) -> Model:
    """Generation k's model: read back if written before, else fitted, reported and written."""
    path = model_path(args.out, generation)
    if os.path.exists(path):
        say(f"gen-{generation}: {path} made already")
        return load_model(path)
    started = time.process_time()
    record = {"command": command_text(args), "seed": args.seed, "generation": generation, "parent": parent_name,
              "selfplay": {"agent": "the default agent (advisor.players.presets.agent_config), its cut-offs "
                                    f"judged by {parent_name}", "iterations": args.iterations,
                           "players": PLAYERS, "routes": sorted(ROUTES), "games": args.games}}
    model = fit_generation(store.decisions(generation), parent, parent_name, weight=args.weight,
                           held_out=args.held_out, hidden=args.hidden,
                           seed=derive_seed(args.seed, "expert-iteration", generation, "fit"), record=record)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(path, json.dumps(model.to_json(), indent=1) + "\n")
    say(f"gen-{generation}: {path} ({time.process_time() - started:.1f} CPU-s to fit); held out, "
        f"{model.training['samples']['held_out']} positions of {model.training['games']['held_out']} games:")
    for line in report_lines(model, parent_name):
        print(f"gen-{generation}: {line}", flush=True)
    return model


def gate(args: argparse.Namespace, generation: int) -> None:
    """Generation k against k - 1 at equal time; prints the Elo with its interval and the SPRT."""
    tally = run_gate(args.out, generation, args.gate_games, args.seed, args.workers,
                     lambda text: say(f"gen-{generation} gate: {text}"))
    for line in format_table(tally.names, tally.rows()).splitlines():
        print(f"gen-{generation} gate: {line}", flush=True)
    for line in sprt_lines(tally.sprt) if tally.sprt is not None else []:
        print(f"gen-{generation} gate: {line}", flush=True)


def run(args: argparse.Namespace) -> None:
    """Every generation asked for, continuing what the store and folders already hold."""
    path = os.path.join(args.out, STORE_NAME)
    if os.path.exists(path) and not args.resume:
        raise RefugeError(f"{path} holds a run already: add --resume to continue it, or give another --out")
    if args.resume and not os.path.exists(path):
        raise RefugeError(f"{path}: no run to resume")
    if not 0 < args.held_out < 1:
        raise RefugeError(f"--held-out: expected a share in (0, 1), got {args.held_out}")
    os.makedirs(args.out, exist_ok=True)
    store = ExpertStore(path, run_settings(args))
    try:
        parent, parent_name, parent_path = shipped_model(), "gen-0", None
        for generation in range(1, args.generations + 1):
            selfplay(args, store, generation, parent_path)
            parent = fitted(args, store, generation, parent, parent_name)
            parent_name, parent_path = f"gen-{generation}", os.path.abspath(model_path(args.out, generation))
            if args.gate_games:
                gate(args, generation)
    finally:
        store.close()


def main(argv: list[str] | None = None) -> int:
    """Run the command; 0 when done, 2 (one line on stderr) when it cannot go on."""
    args = parser().parse_args(argv)
    try:
        run(args)
    except (RefugeError, OSError, ValueError) as error:
        print(f"expert_iteration: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
