"""Iterations per second of each issue-16 search option, and of another commit's search, A/B.

One tree, heuristic rollouts, at player 1's return-or-draw decision after player 0's hidden one
(``hidden_choice_position`` of benchmarks/bench_search.py), in one process: the
variants alternate round by round and each keeps its best round, so the load of other programs hits
them all alike. ``--base REV`` adds ``search/ismcts.py`` of that commit (``git show``) as a variant
and checks that this checkout's default search gives the same statistics.

Usage: .venv/bin/python -m lab.scripts.option_speed [--rounds 10] [--iterations 400] [--base c0e835c]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent

from advisor.players.bots import DEFAULT_ROLLOUT, SearchedBelief, TrustedPolicy
from benchmarks.bench_search import hidden_choice_position
from search import ismcts
from search.request import SearchRequest

OPTIONS: dict[str, Callable[[], dict[str, Any]]] = {
    "default": lambda: {},
    "belief=heuristic": lambda: {"belief": TrustedPolicy(DEFAULT_ROLLOUT)},
    "prior=heuristic": lambda: {"prior": DEFAULT_ROLLOUT},
    "belief=heuristic,prior=heuristic": lambda: {"belief": TrustedPolicy(DEFAULT_ROLLOUT),
                                                 "prior": DEFAULT_ROLLOUT},
    "belief=search": lambda: {"belief": SearchedBelief()},
}
"""Request fields per option, built afresh each round (a ``SearchedBelief`` starts cold, as it
does once per decision in a game)."""


def base_module(revision: str) -> ModuleType:
    """``search/ismcts.py`` as it was at `revision`, loaded as a module of its own."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:search/ismcts.py"],
                            check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "ismcts_base.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("ismcts_base", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ismcts_base"] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Print iterations/s per variant (best round) and its time relative to the first."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=400)
    parser.add_argument("--base", default=None, help="a git revision whose search is timed too")
    args = parser.parse_args()
    pos = hidden_choice_position()

    def request(option: str) -> SearchRequest:
        return SearchRequest(iterations=args.iterations, seed=1, rollout=DEFAULT_ROLLOUT, **OPTIONS[option]())

    variants: dict[str, Callable[[], Any]] = {}
    if args.base:
        base = base_module(args.base)
        variants[f"base {args.base}"] = lambda: base.run_tree(pos, request("default"), 7, args.iterations)
        same = (base.run_tree(pos, request("default"), 7, args.iterations).sums
                == ismcts.run_tree(pos, request("default"), 7, args.iterations).sums)
        print(f"default search: the same statistics as {args.base}: {same}")
    def timed(option: str) -> Callable[[], Any]:
        return lambda: ismcts.run_tree(pos, request(option), 7, args.iterations)

    for option in OPTIONS:
        variants[option] = timed(option)
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(args.rounds):
        for name, run in variants.items():
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    first = next(iter(best.values()))
    for name, seconds in best.items():
        print(f"{name:34s} {args.iterations / seconds:7.0f} it/s   time x{seconds / first:.3f}")


if __name__ == "__main__":
    main()
