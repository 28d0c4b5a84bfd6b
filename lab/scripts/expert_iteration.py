"""Expert iteration for the learned evaluator (issue 27, item 2): generation by generation, the current
agent's self-play labelled by deeper searches, and the next evaluator fitted to it.

Generation k (1..N) plays `--games` self-play games of `--agent` judging its cut-offs with
generation k-1's model (generation 0: the shipped one), labels `--per-game` decisions of each with
the game's result, a `--label-iterations` search's root value and its visits
(lab.expert), fits the evaluator to the mix `--weight` x search + (1 - weight) x
outcome on all but the last `--held-out` share of the games, and measures it there against the
shipped model and generation k-1's (lab.expert_fit). It writes

    OUT/gen-k/data.jsonl      the labelled decisions (resumable: a stopped run continues it)
    OUT/gen-k/evaluator.json  the model, in the shipped format: ismcts:model=OUT/gen-k/evaluator.json
    OUT/gen-k/policy.json     the policy prior fitted to the visits: prior=learned,prior_model=...
    OUT/gen-k/report.md       held-out log loss, calibration, and the arena command (written last)

A generation with its report is not redone, so the same command continues a stopped run, and the
same arguments give the same files whatever `--workers`. It prints, per generation, the
`refuge arena ... --sprt 0,10` command that compares generation k with k-1 at equal time; the SPRT
is not run here. With `--policy-prior` each generation's agent also takes generation k-1's policy
as its prior. docs/evaluator.md, "Expert iteration: how to run".
"""

from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # one core: small matrices, and the same sums every run

import argparse
import json
import sys
import time
from typing import NoReturn

from lab.expert import KEPT, DataSettings, ExpertDataError, generate_data
from lab.expert_fit import DEFAULT_WEIGHT, policy_report_lines, report_lines, train_generation
from lab.expert_rank import ranking_report_lines, train_ranking_generation
from advisor.players.games import derive_seed
from advisor.players.learned import Model, load_model, shipped_model
from lab.learned_prior import load_policy
from advisor.players.specs import parse_agent_spec
from positions.errors import RefugeError
from positions.files import write_atomically


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


class OneLineParser(argparse.ArgumentParser):
    """A parser whose errors are one line (no usage block): ``expert_iteration.py: --x: ...``."""

    def error(self, message: str) -> NoReturn:
        """Say what is wrong in one line and exit with status 2."""
        self.exit(2, f"expert_iteration.py: {message}\n")


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--generations", type=_positive, required=True, help="generations to make (N)")
    p.add_argument("--games", type=_positive, required=True, help="self-play games per generation (>= 2)")
    p.add_argument("--label-iterations", type=_positive, required=True,
                   help="iterations of the deeper search that labels a kept decision")
    p.add_argument("--seed", type=int, required=True, help="every random choice flows from it")
    p.add_argument("--out", required=True, help="the run's folder (gen-1, gen-2, ... inside)")
    p.add_argument("--agent", default="ismcts:iterations=200",
                   help="the ismcts: spec that plays the games (an iterations budget; no model=)")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--per-game", type=_positive, default=8, help="decisions kept per game")
    p.add_argument("--kept", choices=KEPT, default="any",
                   help="which decisions may be kept: any, or buys (a buy with a choice before the last walk)")
    p.add_argument("--target", choices=("value", "ranking"), default="value",
                   help="value: fit the win shares to the mix of search value and outcome (--weight, --l2); "
                        "ranking: refit the parent's win weights so the positions a decision's options lead "
                        "to are spaced as the deeper search spaces the options (lab.expert_rank)")
    p.add_argument("--weight", type=_share, default=DEFAULT_WEIGHT,
                   help="lambda: the search label's share in the mix (the rest: the outcome)")
    p.add_argument("--held-out", type=float, default=0.2, help="share of the games kept for measuring")
    p.add_argument("--l2", type=float, default=1e-3, help="L2 penalty on standardized weights")
    p.add_argument("--workers", type=_positive, default=1, help="games played at once (same files)")
    p.add_argument("--arena-seconds", type=float, default=0.2, help="time per decision in the printed SPRT")
    p.add_argument("--policy-prior", action="store_true",
                   help="generation k's agent also takes its prior from generation k-1's policy.json "
                        "(prior=learned; generation 1 keeps the agent's own prior)")
    return p


def generation_spec(agent: str, args: argparse.Namespace, k: int, seconds: float | None = None) -> str:
    """`agent` as generation k plays it: judging with generation k-1's model (generation 0: the
    shipped one), with ``--policy-prior`` its prior from generation k-1's policy; with `seconds`,
    that time per decision instead of its iteration budget (an equal-time match)."""
    params = dict(parse_agent_spec(agent).params)
    if seconds is not None:
        params = {key: v for key, v in params.items() if key not in ("iterations", "seconds")}
        params["seconds"] = seconds
    if k >= 1:
        params["model"] = os.path.join(args.out, f"gen-{k}", "evaluator.json")
        if args.policy_prior:
            params.update(prior="learned", prior_model=os.path.join(args.out, f"gen-{k}", "policy.json"))
    return "ismcts:" + ",".join(f"{key}={value}" for key, value in params.items())


def arena_command(args: argparse.Namespace, k: int) -> str:
    """The SPRT of generation k against k-1 at equal time (not run here)."""
    return (f"refuge arena --agent gen-{k}={generation_spec(args.agent, args, k, args.arena_seconds)} "
            f"--agent gen-{k - 1}={generation_spec(args.agent, args, k - 1, args.arena_seconds)} "
            f"--players {args.players} --games 4000 --seed {derive_seed(args.seed, 'sprt', k) % 10**6} "
            f"--workers 2 --sprt 0,10 --db {os.path.join(args.out, f'gen-{k}', 'sprt.sqlite')}")


def check(args: argparse.Namespace) -> None:
    """Refuse arguments that cannot make a run (a one-line message)."""
    if args.games < 2:
        raise ExpertDataError(f"--games: need at least 2 games (some are held out), got {args.games}")
    if not 0 < args.held_out < 1:
        raise ExpertDataError(f"--held-out: expected a share in (0, 1), got {args.held_out}")
    if args.seed < 0:
        raise ExpertDataError(f"--seed: expected a whole number >= 0, got {args.seed}")
    given = parse_agent_spec(args.agent).params
    if "model" in given or (args.policy_prior and ({"prior", "prior_model"} & set(given))):
        raise ExpertDataError(f"--agent {args.agent!r}: no model= (each generation sets its own; with "
                              "--policy-prior, its prior too)")
    if not args.arena_seconds > 0:
        raise ExpertDataError(f"--arena-seconds: expected a positive number, got {args.arena_seconds}")
    if args.target == "ranking" and args.policy_prior:
        raise ExpertDataError("--policy-prior: the ranking target fits no policy; give --target value")
    DataSettings(agent=args.agent, label_iterations=args.label_iterations, games=args.games,
                 players=args.players, per_game=args.per_game, seed=args.seed, kept=args.kept).check()
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise ExpertDataError(f"--out {args.out}: not a folder")


def generation(args: argparse.Namespace, k: int, command: str) -> None:
    """Make generation k (its data continued if stopped, its model fitted, its report written last)."""
    folder = os.path.join(args.out, f"gen-{k}")
    model_path, report = os.path.join(folder, "evaluator.json"), os.path.join(folder, "report.md")
    policy_path = os.path.join(folder, "policy.json")
    if os.path.exists(report):
        load_model(model_path)  # a finished generation must still hold its model
        if args.policy_prior:
            load_policy(policy_path)
        print(f"gen-{k}: done already ({report})", file=sys.stderr)
        return
    os.makedirs(folder, exist_ok=True)
    parent = os.path.join(args.out, f"gen-{k - 1}", "evaluator.json") if k > 1 else None
    spec = generation_spec(args.agent, args, k - 1)
    settings = DataSettings(agent=spec, label_iterations=args.label_iterations, games=args.games,
                            players=args.players, per_game=args.per_game,
                            seed=derive_seed(args.seed, "expert-iteration", k), kept=args.kept)
    data = os.path.join(folder, "data.jsonl")
    start = time.perf_counter()
    generate_data(data, settings, args.workers,
                  on_game=lambda g: print(f"gen-{k}: game {g + 1}/{args.games}", file=sys.stderr))
    baselines: dict[str, Model] = {"shipped": shipped_model()}
    if parent is not None:
        baselines[f"gen-{k - 1}"] = load_model(parent)
    if args.target == "ranking":
        base = baselines[f"gen-{k - 1}"] if parent is not None else baselines["shipped"]
        model, measured, policy, policy_measured = train_ranking_generation(
            data, base, baselines, args.held_out, f"{command} (generation {k})")
    else:
        model, measured, policy, policy_measured = train_generation(
            data, baselines, args.weight, args.held_out, args.l2, f"{command} (generation {k})")
    write_atomically(model_path, json.dumps(model.to_json(), indent=1) + "\n")
    if policy is not None:
        write_atomically(policy_path, json.dumps(policy.to_json(), indent=1) + "\n")
    elif args.policy_prior:
        raise ExpertDataError(f"{data}: no held-out decision with two actions to fit the policy prior; "
                              "give more --games or --per-game")
    sprt = arena_command(args, k)
    t = model.training
    notes = [f"Made by `{command}`, generation {k}: {args.games} games of `{spec}` "
             f"({args.players} players, data seed {settings.seed}), {args.per_game} decisions kept per "
             f"game, each labelled by a {args.label_iterations}-iteration search.",
             "",
             (f"Label: {args.weight} x the search's root value + {1 - args.weight:g} x the game's result. "
              if args.target == "value" else f"Label: {model.training['label']} (penalty {model.training['l2']:g}). ")
             + f"Fitted on {t['samples']['training']} decisions, measured on {t['samples']['held_out']} "
             f"decisions of the last {t['held_out_games']} games (held out whole).",
             "",
             f"Against generation {k - 1} at equal time (not run here):", "", f"    {sprt}"]
    lines = report_lines(f"Expert iteration, generation {k}", measured, notes)
    lines += policy_report_lines(policy_measured) if policy_measured is not None else []
    lines += ranking_report_lines(measured) if args.target == "ranking" else []
    write_atomically(report, "\n".join(lines) + "\n")
    print(f"gen-{k}: {model_path}; held-out log loss (outcome) new {measured['new']['log_loss_outcome']}, "
          f"shipped {measured['shipped']['log_loss_outcome']}; {time.perf_counter() - start:.0f} s",
          file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    words = []
    for key, value in vars(args).items():
        flag = "--" + key.replace("_", "-")
        if key != "workers" and value is not False:  # --workers changes no file
            words.append(flag if value is True else f"{flag} {value}")
    command = "lab/scripts/expert_iteration.py " + " ".join(words)
    try:
        check(args)
        for k in range(1, args.generations + 1):
            generation(args, k, command)
    except (RefugeError, OSError) as error:
        print(f"expert_iteration.py: {error}", file=sys.stderr)
        return 2
    for k in range(1, args.generations + 1):
        print(arena_command(args, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
