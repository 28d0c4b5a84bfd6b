"""SPSA tuning of an agent's numeric search options at one budget, as fishtest tunes engines (issue 27).

Iteration k perturbs every parameter at once by ±c_k (the signs drawn from the seed), plays a pair of
games on one deal with the seats swapped, θ+ against θ−, and moves θ by
``a_k · result / (2 c_k) · sign`` (Spall's gradient estimate; `result` is θ+'s points minus θ−'s over
the pair, −2 … 2), kept within each parameter's bounds. The gains are the standard sequences
``a_k = a / (A + k + 1)^0.602`` and ``c_k = c / (k + 1)^0.101``, set from each parameter's ``c_end``
and ``r_end`` as fishtest sets them: ``c = c_end · N^0.101``, ``a = r_end · c_end² · (A + N)^0.602``,
``A = 0.1 · N`` for N iterations. With ``batch`` B > 1, B iterations are perturbed from the θ at
their batch's start and played together (on the arena's executor), then applied in order. Every
iteration is appended to a JSON-lines log as it is applied; a run resumes from the log (a batch
stopped half-way replays only its unlogged games), and the same seed and batch give the same
trajectory however often it was stopped and on however many workers.
"""

from __future__ import annotations

import json
import math
import os
import random
from dataclasses import asdict, dataclass
from typing import Callable, Iterator, Sequence

from advisor.arena.executors import Runner, parse_executor, run_tasks
from advisor.arena.report import Played, deal_points
from advisor.players.agents import make_agent
from advisor.players.games import deal_seed, play_game
from advisor.players.specs import parse_agent_spec
from positions.errors import RefugeError
from search.seeds import derive_seed

ALPHA = 0.602
GAMMA = 0.101
A_RATIO = 0.1
"""fishtest's A: this share of the iterations."""
TUNABLE = {"exploration": float, "prior_weight": float, "cutoff": int}
"""The ``ismcts:`` options SPSA may tune (an ``int`` option plays θ rounded)."""
LOG_VERSION = 1
"""The ``spsa`` field of a log's header line."""


@dataclass(frozen=True)
class Parameter:
    """One tuned option: where it starts, its bounds, the perturbation and learning rate at the end."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float = 0.002

    def clip(self, value: float) -> float:
        """`value` within the bounds."""
        return min(self.high, max(self.low, value))


class SpsaError(RefugeError):
    """SPSA settings or a log that cannot be used."""


def parse_parameter(text: str) -> Parameter:
    """``NAME=START,MIN,MAX,C_END[,R_END]`` (fishtest's columns).

    Raises:
        SpsaError: an unknown option, a malformed line, or bounds that do not hold the start.
    """
    name, equals, rest = text.partition("=")
    name = name.strip()
    if name not in TUNABLE:
        raise SpsaError(f"--param {text!r}: SPSA tunes {', '.join(TUNABLE)}, not {name!r}")
    try:
        numbers = [float(part) for part in rest.split(",")] if equals else []
    except ValueError:
        numbers = []
    if len(numbers) not in (4, 5) or not all(math.isfinite(n) for n in numbers):
        raise SpsaError(f"--param {text!r}: expected {name}=START,MIN,MAX,C_END[,R_END]")
    parameter = Parameter(name, *numbers)
    if not parameter.low <= parameter.start <= parameter.high or parameter.low == parameter.high:
        raise SpsaError(f"--param {text!r}: expected MIN <= START <= MAX with MIN < MAX")
    if parameter.c_end <= 0 or parameter.r_end <= 0:
        raise SpsaError(f"--param {text!r}: C_END and R_END must be > 0")
    return parameter


@dataclass(frozen=True)
class SpsaSettings:
    """A tuning run: the parameters, how many iterations, and the seed of every sign and deal."""

    parameters: Sequence[Parameter]
    iterations: int
    seed: int = 0
    batch: int = 1
    """Iterations whose games are played together, all perturbed from θ at the batch's start and
    applied in order after it (fishtest's workers play ahead of the update likewise); 1: classic
    SPSA. The trajectory depends on it, never on the worker count."""

    def __post_init__(self) -> None:
        names = [p.name for p in self.parameters]
        if not names:
            raise SpsaError("SPSA needs at least one --param")
        if len(set(names)) != len(names):
            raise SpsaError(f"a parameter is given twice: {', '.join(names)}")
        if self.iterations < 1:
            raise SpsaError(f"--iterations must be >= 1, got {self.iterations}")
        if self.batch < 1:
            raise SpsaError(f"--batch must be >= 1, got {self.batch}")

    def gains(self, k: int) -> tuple[list[float], list[float]]:
        """a_k and c_k of each parameter at iteration k (from 0)."""
        n = self.iterations
        big_a = A_RATIO * n
        c_k = [p.c_end * n ** GAMMA / (k + 1) ** GAMMA for p in self.parameters]
        a_k = [p.r_end * p.c_end ** 2 * (big_a + n) ** ALPHA / (big_a + k + 1) ** ALPHA
               for p in self.parameters]
        return a_k, c_k

    def signs(self, k: int) -> list[int]:
        """Iteration k's perturbation directions, ±1 each, from the seed."""
        rng = random.Random(derive_seed(self.seed, "spsa", k))
        return [rng.choice((-1, 1)) for _ in self.parameters]

    def identity(self) -> dict[str, object]:
        """What fixes the trajectory (with the match): checked when a log is resumed."""
        return {"parameters": [asdict(p) for p in self.parameters], "iterations": self.iterations,
                "seed": self.seed, "batch": self.batch}


@dataclass(frozen=True)
class Trial:
    """Iteration k's two sides: θ+ and θ−."""

    k: int
    plus: dict[str, float]
    minus: dict[str, float]


Match = Callable[[Sequence[Trial]], list[float]]
"""The results of trials, in order: θ+'s points minus θ−'s in each, −2 … 2 (a pair of games)."""


@dataclass(frozen=True)
class Step:
    """One iteration as logged: the directions, both sides, the result and θ after the update."""

    k: int
    signs: list[int]
    plus: dict[str, float]
    minus: dict[str, float]
    result: float
    theta: dict[str, float]


def trial(settings: SpsaSettings, k: int, theta: dict[str, float]) -> Trial:
    """Iteration k's sides: θ moved by ±c_k along its directions, within the bounds."""
    _, c_k = settings.gains(k)
    signs = settings.signs(k)
    return Trial(k, {p.name: p.clip(theta[p.name] + c * s) for p, c, s in zip(settings.parameters, c_k, signs)},
                 {p.name: p.clip(theta[p.name] - c * s) for p, c, s in zip(settings.parameters, c_k, signs)})


def update(settings: SpsaSettings, played: Trial, result: float, theta: dict[str, float]) -> Step:
    """θ after iteration `played.k` scored `result`: a_k · result / (2 c_k) · sign, within the bounds."""
    a_k, c_k = settings.gains(played.k)
    signs = settings.signs(played.k)
    updated = {p.name: p.clip(theta[p.name] + a * result / (2 * c) * s)
               for p, a, c, s in zip(settings.parameters, a_k, c_k, signs)}
    return Step(played.k, signs, played.plus, played.minus, result, updated)


def _read_log(path: str, settings: SpsaSettings, tail: str) -> list[Step]:
    """The logged steps, checked against `settings`; a torn last line (a crash mid-write) is cut off."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise SpsaError(f"{path}: cannot read the SPSA log ({error})") from None
    lines = text.split("\n")
    whole, torn = lines[:-1], lines[-1]
    expected = {"spsa": LOG_VERSION, "settings": settings.identity(), "match": tail}
    if not whole and not json.dumps(expected).startswith(torn):
        raise SpsaError(f"{path}: not an SPSA log as `refuge spsa` writes it")
    try:
        header = json.loads(whole[0]) if whole else expected
        rows = [json.loads(line) for line in whole[1:]]
        steps = [Step(int(r["k"]), list(r["signs"]), dict(r["plus"]), dict(r["minus"]),
                      float(r["result"]), dict(r["theta"])) for r in rows]
    except (ValueError, KeyError, TypeError):
        raise SpsaError(f"{path}: not an SPSA log as `refuge spsa` writes it") from None
    if header != expected:
        raise SpsaError(f"{path}: the log is of another tuning run (agent, parameters, iterations, "
                        "seed or batch differ): choose another --log")
    if [s.k for s in steps] != list(range(len(steps))):
        raise SpsaError(f"{path}: iterations are missing or repeated in the log")
    if torn:  # a log of this run whose last write never finished (a crash): cut that line off
        with open(path, "r+", encoding="utf-8") as file:
            file.truncate(len(text.encode()) - len(torn.encode()))
    return steps


def run_spsa(settings: SpsaSettings, match: Match, log: str, match_identity: str = "",
             resume: bool = False) -> Iterator[Step]:
    """Run (the rest of) the tuning, appending each iteration to `log` as it ends; yields every step,
    the logged ones first. `match_identity` names the match in the log's header (the agent spec).

    Raises:
        SpsaError: a log exists without `resume`, or it is of another run.
    """
    exists = os.path.exists(log) and os.path.getsize(log) > 0
    if exists and not resume:
        raise SpsaError(f"{log} already holds a tuning run: add --resume to continue it, or choose "
                        "another --log")
    steps = _read_log(log, settings, match_identity) if exists else []
    yield from steps
    start = {p.name: p.start for p in settings.parameters}
    theta = dict(steps[-1].theta) if steps else start
    try:
        out = open(log, "a", encoding="utf-8")
    except OSError as error:
        raise SpsaError(f"{log}: cannot write the SPSA log ({error.strerror})") from None
    with out:
        if not steps and out.tell() == 0:
            out.write(json.dumps({"spsa": LOG_VERSION, "settings": settings.identity(),
                                  "match": match_identity}) + "\n")
            out.flush()
        k = len(steps)
        while k < settings.iterations:
            first = k // settings.batch * settings.batch  # a resumed batch keeps its θ at the start
            base = steps[first - 1].theta if first else start
            trials = [trial(settings, j, base)
                      for j in range(k, min(first + settings.batch, settings.iterations))]
            for played, result in zip(trials, match(trials), strict=True):
                done = update(settings, played, result, theta)
                out.write(json.dumps(asdict(done)) + "\n")
                out.flush()
                os.fsync(out.fileno())
                steps.append(done)
                theta = done.theta
                yield done
            k += len(trials)


def tuned_spec(base: str, values: dict[str, float]) -> str:
    """The base spec with each tuned option set (an ``int`` option rounded)."""
    options = ",".join(f"{name}={round(value) if TUNABLE[name] is int else repr(float(value))}"
                       for name, value in values.items())
    text = base.strip().rstrip(":,")
    return f"{text}{',' if ':' in text else ':'}{options}"


def check_base(base: str, parameters: Sequence[Parameter]) -> None:
    """Refuse a base spec that is not ``ismcts`` or sets a tuned option, or whose θ is not an agent.

    Raises:
        RefugeError: any of those.
    """
    spec = parse_agent_spec(base)
    if spec.kind != "ismcts":
        raise SpsaError(f"--agent {base!r}: SPSA tunes an ismcts agent")
    clash = sorted(set(spec.params) & {p.name for p in parameters})
    if clash:
        raise SpsaError(f"--agent {base!r} sets {clash[0]}, which is being tuned")
    for corner in ("low", "high", "start"):
        make_agent(tuned_spec(base, {p.name: getattr(p, corner) for p in parameters}))


def play_side_game(task: tuple[int, tuple[int, int], str, str], route: str, seed: int
                   ) -> tuple[int, tuple[int, int], tuple[float, ...], tuple[int, ...]]:
    """One game of a trial on deal k: `task` is (k, seats, θ+'s spec, θ−'s spec), ``seats`` which
    side sits where (0: θ+); its returns and scores."""
    k, seats, plus, minus = task
    final = play_game([make_agent(plus if side == 0 else minus) for side in seats], route,
                      deal_seed(seed, k)).position
    return k, seats, tuple(final.returns()), tuple(final.scores())


class GameMatch:
    """θ+ against θ− on deal k of `seed`, once in each seat order (2 players), every game of a batch
    on the arena's executor (a process pool or Dask): θ+'s points minus θ−'s, a game won by the
    larger share of the win, then the larger score (the arena's scoring)."""

    def __init__(self, base: str, route: str = "meadows", seed: int = 0, workers: int = 1,
                 executor: str = "local") -> None:
        """A match of `base` with the tuned options set; the executor starts at the first batch.

        Raises:
            ExecutorError: an unusable executor.
        """
        self.base, self.route, self.seed = base, route, seed
        self.workers, self.address = workers, parse_executor(executor)
        self.runner: Runner | None = None

    def __call__(self, trials: Sequence[Trial]) -> list[float]:
        """Each trial's result, in order."""
        if self.runner is None:
            self.runner = Runner(self.workers, self.address)
        tasks = [(t.k, seats, tuned_spec(self.base, t.plus), tuned_spec(self.base, t.minus))
                 for t in trials for seats in ((0, 1), (1, 0))]
        games: dict[int, list[Played]] = {t.k: [] for t in trials}

        def finished(_: object, game: tuple[int, tuple[int, int], tuple[float, ...], tuple[int, ...]]
                     ) -> bool:
            k, seats, returns, scores = game
            games[k].append(Played(0, k, seats, returns, scores))
            return False

        try:
            run_tasks(self.runner, play_side_game, tasks, (self.route, self.seed), finished)
        except BaseException:
            self.close(abort=True)
            raise
        results = []
        for t in trials:
            points = deal_points(sorted(games[t.k], key=lambda g: g.seats), 0, 1)
            assert points is not None
            half_points, met = points
            results.append((half_points - met) * 2 / met)  # θ+'s − θ−'s points, as over a pair
        return results

    def close(self, abort: bool = False) -> None:
        """Stop the executor."""
        if self.runner is not None:
            self.runner.abort() if abort else self.runner.shutdown()
            self.runner = None
