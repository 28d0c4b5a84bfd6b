"""Does more time change the search's mind? (issue 27): the same decisions searched at rising budgets.

Decisions come from seeded self-play games of a cheap agent (every seat the same, each on its
seat's view through :func:`~advisor.players.games.play_game`). ``per_game`` of each game's
decisions with a choice are kept, and each family's agent searches each kept view ``repeats``
times at every budget, each search from its own seed and a fresh tree (no reuse: one decision, not
a game). A family is an ``ismcts`` spec without a budget, as in :mod:`advisor.arena.scaling`.

Read per family and budget (:func:`summarize`):

- **self-agreement**: how often two searches of the same budget choose the same action; it rises
  towards 1 as the search settles on one answer;
- **agreement with the top budget**: how often a search at this budget chooses what one at the
  largest budget chooses;
- **regret**: the decider's win chance the chosen action gives up in the eyes of an independent
  top-budget search (the best action's mean there minus the chosen one's), so the top budget's own
  row is graded by another repeat's values and is not biased to zero.

A search that still gains with time keeps changing its choice between budgets and its regret keeps
falling; one that has settled agrees with itself at every budget and its regret stops falling, which
points at what it judges by (the evaluator, the prior, the rollout policy), not at its budget.

The output is JSON lines: a header with the settings, then one line per game, written as the game
finishes (in any order), so a stopped run continues with the games it lacks and the summary (sorted
by game) is the same whatever the worker count.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import random
import statistics
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from advisor.arena.executors import Runner, parse_executor, run_tasks
from advisor.arena.scaling import budget_spec
from advisor.players.agents import SearchAgent, make_agent
from advisor.players.games import RecordingAgent, deal_seed, play_game
from positions.kernel import phases
from positions.errors import RefugeError
from positions.kernel.position import Position
from search.ismcts import search
from search.seeds import derive_seed

PROBE_KIND = "refuge-convergence"
PROBE_VERSION = 1


class ConvergenceError(RefugeError, ValueError):
    """Settings no probe can run with, or an output file of another probe."""


@dataclass(frozen=True)
class ConvergenceSettings:
    """What a probe is made of; its output's header, so a resumed run checks it continues the same probe."""

    seed: int
    families: tuple[tuple[str, str], ...] = (("default", "ismcts"),)
    """(name, ``ismcts`` spec without a budget) of each agent probed."""
    budgets: tuple[int, ...] = (250, 1_000, 4_000, 16_000)
    """Rising iterations per search; the last is the top budget the others are compared with."""
    repeats: int = 2
    """Independent searches per (decision, family, budget); at least 2, to read self-agreement."""
    games: int = 20
    per_game: int = 4
    """Decisions with a choice kept per game (all of them if fewer), drawn by the game's seed."""
    players: int = 2
    route: str = "meadows"
    play: str = "ismcts:iterations=200"
    """The agent in every seat of the games the decisions come from."""

    def check(self) -> None:
        """Refuse settings that cannot make a probe.

        Raises:
            ConvergenceError: a bad number, rising budgets missing, or an unusable spec.
        """
        for name, low in (("seed", 0), ("repeats", 2), ("games", 1), ("per_game", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ConvergenceError(f"convergence: {name} must be a whole number >= {low}, got {value!r}")
        if self.players not in (2, 3, 4):
            raise ConvergenceError(f"convergence: players must be 2, 3 or 4, got {self.players!r}")
        if len(self.budgets) < 2 or any(b < 1 for b in self.budgets) or list(self.budgets) != sorted(set(self.budgets)):
            raise ConvergenceError(f"convergence: budgets must be two or more rising iterations, got "
                                   f"{','.join(map(str, self.budgets))}")
        names = [name for name, _ in self.families]
        if not names or len(set(names)) != len(names):
            raise ConvergenceError("convergence: give each family once, by a name of its own")
        try:
            agents = [make_agent(budget_spec(spec, self.budgets[0])) for _, spec in self.families]
            agents.append(make_agent(self.play))
        except RefugeError as error:
            raise ConvergenceError(f"convergence: {error}") from None
        if any(not isinstance(a, SearchAgent) or a.template.limit.workers != 1 for a in agents[:-1]):
            raise ConvergenceError("convergence: each family must be an ismcts spec with one search worker")

    def header(self) -> dict[str, Any]:
        """The output's first line: every setting but the number of games (a longer run continues)."""
        settings = dataclasses.asdict(self)
        del settings["games"]
        return {"kind": PROBE_KIND, "version": PROBE_VERSION, "settings": settings}


def _searches(view: Position, seat: int, spec: str, seeds: Sequence[int]) -> list[dict[str, Any]]:
    """Each seed's search of `view` by `spec`: its choice and, per root action, visits and the seat's mean win."""
    agent = make_agent(spec)
    assert isinstance(agent, SearchAgent)
    found = []
    for seed in seeds:
        result = search(view, agent.request(seed))
        found.append({"chosen": result.chosen,
                      "actions": [[s.action, s.visits, round(s.wins[seat], 6)] for s in result.actions
                                  if s.wins]})
    return found


def kept_views(game: int, settings: ConvergenceSettings) -> list[tuple[int, int, Position]]:
    """Play game `game` of the probe and keep ``per_game`` of its decisions with a choice, drawn by
    the game's seed: (index in the game, seat, the seat's view) of each, in order."""
    log: list[tuple[int, Position]] = []
    seats = [RecordingAgent(make_agent(settings.play), seat, log) for seat in range(settings.players)]
    play_game(seats, settings.route, deal_seed(derive_seed(settings.seed, "convergence"), game))
    rng = random.Random(derive_seed(settings.seed, "convergence", game, "kept"))
    kept = sorted(rng.sample(range(len(log)), min(settings.per_game, len(log))))
    return [(index, *log[index]) for index in kept]


def probe_game(game: int, settings: ConvergenceSettings) -> dict[str, Any]:
    """Play game `game` and search its kept decisions: the game's output line."""
    decisions = []
    for index, seat, view in kept_views(game, settings):
        searched: dict[str, dict[str, Any]] = {}
        for family, spec in settings.families:
            searched[family] = {
                str(budget): _searches(view, seat, budget_spec(spec, budget), [
                    derive_seed(settings.seed, "convergence", game, index, family, budget, r)
                    for r in range(settings.repeats)])
                for budget in settings.budgets}
        decisions.append({"decision": index, "player": seat, "walk": view.walk, "turn": view.turn,
                          "phase": view.phase, "legal": len(view.legal_actions()), "searches": searched})
    return {"game": game, "decisions": decisions}


def _probe_task(task: Sequence[int], settings: ConvergenceSettings) -> dict[str, Any]:
    return probe_game(task[0], settings)


def _header_line(settings: ConvergenceSettings) -> str:
    return json.dumps(settings.header(), separators=(",", ":"), sort_keys=True) + "\n"


def read_probe(path: str, settings: ConvergenceSettings | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the header's settings, the whole game lines by game) of the output at `path`; a torn last
    line (a crash mid-write) is left out.

    Raises:
        ConvergenceError: not a probe's output, or (with `settings`) one made with other settings.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except OSError as error:
        raise ConvergenceError(f"{path}: cannot read the file ({error.strerror or error})") from None
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("kind") != PROBE_KIND or header.get("version") != PROBE_VERSION:
        raise ConvergenceError(f"{path}: not a convergence probe's output (version {PROBE_VERSION})")
    if settings is not None and lines[0] + "\n" != _header_line(settings):
        raise ConvergenceError(f"{path}: made with other settings; give another --out or the same options")
    games: dict[int, dict[str, Any]] = {}
    for number, line in enumerate(lines[1:-1], 2):  # the text after the last newline is torn or empty
        try:
            row = json.loads(line)
        except ValueError:
            raise ConvergenceError(f"{path}: line {number} is not JSON") from None
        if not isinstance(row, dict) or not isinstance(row.get("game"), int) or "decisions" not in row:
            raise ConvergenceError(f"{path}: line {number} is not a game's line")
        games[row["game"]] = row
    return header["settings"], [games[g] for g in sorted(games)]


def run_probe(path: str, settings: ConvergenceSettings, workers: int = 1, executor: str = "local",
              resume: bool = False, on_game: Callable[[int], None] | None = None) -> int:
    """Write (with `resume`: continue) the probe's output at `path` up to ``settings.games`` games;
    the games played now.

    Raises:
        ConvergenceError: bad settings, an output already there without `resume`, or one made with
            other settings.
        ExecutorError: an unusable executor.
    """
    settings.check()
    done: set[int] = set()
    exists = os.path.exists(path) and os.path.getsize(path) > 0
    if exists and not resume:
        raise ConvergenceError(f"{path}: already holds a probe; give --resume to continue it or another --out")
    if exists:
        _, rows = read_probe(path, settings)
        done = {row["game"] for row in rows}
        with open(path, "r+b") as torn:  # cut a torn last line off
            torn.truncate(torn.read().rfind(b"\n") + 1)
    else:
        with open(path, "w", encoding="utf-8") as fresh:
            fresh.write(_header_line(settings))
    todo = [(game,) for game in range(settings.games) if game not in done]
    runner = Runner(workers, parse_executor(executor))
    with open(path, "a", encoding="utf-8") as out:

        def finished(task: Sequence[int], row: dict[str, Any]) -> bool:
            out.write(json.dumps(row, separators=(",", ":")) + "\n")
            out.flush()
            os.fsync(out.fileno())
            if on_game is not None:
                on_game(task[0])
            return False

        try:
            run_tasks(runner, _probe_task, todo, (settings,), finished)
        except BaseException:
            runner.abort()
            raise
        runner.shutdown()
    return len(todo)


@dataclass(frozen=True)
class BudgetRow:
    """One family at one budget, over the probe's decisions."""

    family: str
    budget: int
    decisions: int
    self_agreement: float
    """Share of pairs of this budget's searches of one decision that choose the same action."""
    top_agreement: float
    """Share of (this budget's search, a top-budget search) pairs that choose the same action."""
    regret: float
    """Mean win chance the choice gives up in an independent top-budget search's eyes."""
    regret_error: float
    """The standard error of that mean (decisions as the unit)."""


def _pairs_agree(first: Sequence[int], second: Sequence[int] | None = None) -> float:
    if second is None:
        pairs = [(a, b) for i, a in enumerate(first) for b in first[i + 1:]]
    else:
        pairs = [(a, b) for a in first for b in second]
    return sum(a == b for a, b in pairs) / len(pairs)


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _regret(chosen: int, grader: dict[str, Any]) -> float:
    """What choosing `chosen` gives up by the means of the grading search (an unvisited choice: its worst)."""
    means = {action: win for action, visits, win in grader["actions"] if visits}
    return max(means.values()) - means.get(chosen, min(means.values()))


def summarize(rows: Sequence[dict[str, Any]], families: Sequence[str], budgets: Sequence[int]) -> list[BudgetRow]:
    """Self-agreement, agreement with the top budget and regret per family and budget."""
    top = str(budgets[-1])
    table = []
    for family in families:
        for budget in map(str, budgets):
            selves, tops, regrets = [], [], []
            for row in rows:
                for decision in row["decisions"]:
                    runs, graders = decision["searches"][family][budget], decision["searches"][family][top]
                    choices = [run["chosen"] for run in runs]
                    selves.append(_pairs_agree(choices))
                    tops.append(_pairs_agree(choices) if budget == top else
                                _pairs_agree(choices, [g["chosen"] for g in graders]))
                    # repeat r is graded by top repeat r+1: never by its own search
                    regrets.append(sum(_regret(c, graders[(r + 1) % len(graders)])
                                       for r, c in enumerate(choices)) / len(choices))
            n = len(regrets)
            error = statistics.stdev(regrets) / math.sqrt(n) if n > 1 else 0.0
            table.append(BudgetRow(family, int(budget), n, _mean(selves), _mean(tops), _mean(regrets), error))
    return table


@dataclass(frozen=True)
class KindRow:
    """One family's decisions of one kind (the phase they were made in)."""

    family: str
    kind: str
    decisions: int
    unsettled: int
    """Decisions where the family's searches (any budget, any repeat) did not all choose one action."""
    median_gap: float
    """The median, over the decisions, of the best minus the second-best mean of the first
    top-budget search: how close the call was."""


def by_kind(rows: Sequence[dict[str, Any]], families: Sequence[str], budgets: Sequence[int]) -> list[KindRow]:
    """Per family and decision kind: how many decisions, how many the budgets did not settle, how close they were."""
    top = str(budgets[-1])
    table = []
    for family in families:
        kinds: dict[str, list[tuple[bool, float]]] = {}
        for row in rows:
            for decision in row["decisions"]:
                runs = decision["searches"][family]
                choices = {run["chosen"] for budget in map(str, budgets) for run in runs[budget]}
                means = sorted((win for _, visits, win in runs[top][0]["actions"] if visits), reverse=True)
                gap = means[0] - means[1] if len(means) > 1 else 0.0
                kinds.setdefault(phases.NAMES[decision["phase"]], []).append((len(choices) > 1, gap))
        for kind, found in sorted(kinds.items(), key=lambda item: -len(item[1])):
            table.append(KindRow(family, kind, len(found), sum(u for u, _ in found),
                                 statistics.median(gap for _, gap in found)))
    return table


def family_agreement(rows: Sequence[dict[str, Any]], first: str, second: str, budget: int) -> float:
    """Share of (a `first` search, a `second` search) pairs of one decision at `budget` that choose
    the same action, over the decisions (`rows` may join two probes' lines of the same games)."""
    return _mean([_pairs_agree([run["chosen"] for run in decision["searches"][first][str(budget)]],
                               [run["chosen"] for run in decision["searches"][second][str(budget)]])
                  for row in rows for decision in row["decisions"]])


def joined(first: Sequence[dict[str, Any]], second: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games two probes of the same decisions (same seed, player agent, route and counts) both
    hold, each decision with both probes' searches.

    Raises:
        ConvergenceError: a game whose decisions differ between the two (not the same decisions).
    """
    other = {row["game"]: row for row in second}
    rows = []
    for row in first:
        if row["game"] not in other:
            continue
        pairs = list(zip(row["decisions"], other[row["game"]]["decisions"]))
        if len(row["decisions"]) != len(other[row["game"]]["decisions"]) or any(
                a["decision"] != b["decision"] or a["player"] != b["player"] for a, b in pairs):
            raise ConvergenceError(f"game {row['game']}: the two probes searched other decisions")
        rows.append({"game": row["game"], "decisions": [
            {**a, "searches": {**a["searches"], **b["searches"]}} for a, b in pairs]})
    return rows
