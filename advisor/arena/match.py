"""`refuge arena`: agents play paired deals, results go to SQLite as they finish, Elo and SPRT at the end.

The schedule is a fixed list of games by index: for every deal (seeded chance streams), every table
(a set of agents, one per seat) and every distinct seat rotation. A run resumes by skipping the
indices already stored. See docs/arena.md.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import time
from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Iterable, Iterator, Sequence

from advisor.players.specs import AgentSpec, parse_agent_spec
from advisor.players.agents import BOT_KINDS, make_agent
from advisor.arena.executors import Runner, parse_executor, run_tasks
from advisor.arena.play import (
    Entrant, GameJob, GameOutcome, play_batch, stop_engines,
)
from advisor.arena.report import PairStats, Played, SprtWatch, pair_stats, summary_line
from advisor.arena.sprt import SprtSettings, check_reachable
from advisor.arena.revisions import describe_checkout, prepare
from advisor.arena.store import ArenaStore
from advisor.players.games import deal_seed, record_file
from advisor.players.engine import EngineClient, EngineError, package_version
from positions.errors import RefugeError
from positions.files import write_atomically
from positions.kernel.position import Position
from positions.record import dump_record, read_record_text

NAME = re.compile(r"[A-Za-z0-9_.@+-]+")
DEFAULT_MOVE_TIMEOUT = 60.0
"""Seconds per decision for agents with no time budget of their own (external engines)."""


class ArenaError(RefugeError):
    """Arena settings that cannot be used together, or a run that cannot go on."""


# --- the schedule ------------------------------------------------------------------------------------

def make_tables(entrants: int, players: int) -> list[tuple[int, ...]]:
    """Who plays together: every set of `players` agents, or all agents cycled over the seats."""
    if entrants >= players:
        return list(combinations(range(entrants), players))
    return [tuple(seat % entrants for seat in range(players))]


def rotations(table: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The distinct cyclic rotations of a table's seats (every agent meets every seat's luck)."""
    found: list[tuple[int, ...]] = []
    for shift in range(len(table)):
        rotated = table[shift:] + table[:shift]
        if rotated not in found:
            found.append(rotated)
    return found


@dataclass(frozen=True)
class Schedule:
    """The games of a run, by index: deal-major, so any prefix of deals is complete."""

    players: int
    route: str
    seed: int
    tables: tuple[tuple[tuple[int, ...], ...], ...]
    """Each table's distinct seat rotations."""
    deals: int

    @classmethod
    def build(cls, entrants: int, players: int, route: str, seed: int, games: int) -> "Schedule":
        """The schedule giving each table at least `games` games, in whole deals."""
        tables = tuple(tuple(rotations(t)) for t in make_tables(entrants, players))
        per_deal = len(tables[0])
        return cls(players, route, seed, tables, max(1, math.ceil(games / per_deal)))

    @property
    def per_deal(self) -> int:
        """Games per deal over all tables."""
        return sum(len(t) for t in self.tables)

    @property
    def total(self) -> int:
        """Games in the whole schedule."""
        return self.deals * self.per_deal

    def rotations_per_table(self) -> list[int]:
        """How many games make a complete deal at each table."""
        return [len(t) for t in self.tables]

    def jobs(self) -> Iterator[GameJob]:
        """Every game, in index order, made as it is asked for (a run may hold a billion games)."""
        index = 0
        for deal in range(self.deals):
            seed = deal_seed(self.seed, deal)
            for table, seatings in enumerate(self.tables):
                for rotation, seats in enumerate(seatings):
                    yield GameJob(index, table, deal, rotation, self.players, self.route, seed, seats)
                    index += 1


INSTANT_KINDS = frozenset(BOT_KINDS)
"""Agents that decide in microseconds: their games are batched."""


def batches(jobs: Iterable[GameJob], deals_per_batch: int) -> Iterator[list[GameJob]]:
    """The jobs grouped by whole deals, `deals_per_batch` deals (of one table or several) per task."""
    batch: list[GameJob] = []
    groups = 0
    for job in jobs:
        if not batch or (batch[-1].deal, batch[-1].table) != (job.deal, job.table):
            if groups == deals_per_batch:
                yield batch
                batch, groups = [], 0
            groups += 1
        batch.append(job)
    if batch:
        yield batch


# --- agents ----------------------------------------------------------------------------------------------

def parse_named_agent(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` (or a bare SPEC, named by itself) as (name, spec text).

    Raises:
        ArenaError: an empty name or spec.
    """
    head, equals, rest = text.partition("=")
    if equals and ":" not in head:
        name, spec = head.strip(), rest.strip()
        if not NAME.fullmatch(name):
            raise ArenaError(f"--agent {text!r}: agent names use letters, digits and _.@+- only")
        if not spec:
            raise ArenaError(f"--agent {text!r}: expected NAME=SPEC")
        return name, spec
    return text.strip(), text.strip()


def _seconds_budget(spec: AgentSpec) -> float | None:
    seconds = spec.params.get("seconds")
    return float(seconds) if isinstance(seconds, (int, float)) else None


def _timeout(spec: AgentSpec, move_timeout: float | None, external: bool) -> float | None:
    """A generous per-decision budget: 5 times the agent's own plus 5 s, or the default for engines."""
    if move_timeout is not None:
        return move_timeout
    seconds = _seconds_budget(spec)
    if seconds is not None:
        return 5 * seconds + 5
    return DEFAULT_MOVE_TIMEOUT if external else None


def make_entrant(name: str, text: str, move_timeout: float | None = None) -> Entrant:
    """Check an agent and find the code it plays: in-process, ``cmd:`` or ``rev:`` (built, then asked
    to identify itself, so a broken engine stops the run before it starts).

    Raises:
        RefugeError: a bad spec, an unknown revision, or an engine that does not start.
    """
    spec = parse_agent_spec(text)
    if spec.kind == "cmd":
        try:
            argv = tuple(shlex.split(spec.command))
        except ValueError as error:  # an unterminated quote
            raise ArenaError(f"agent {name}: cmd:{spec.command}: {error}") from None
        if not argv:
            raise ArenaError(f"agent {name}: cmd: needs a command")
        identity = _identify(name, argv, None)
        revision = f"{identity.get('name', '?')} {identity.get('version', '?')}"
        return Entrant(name, spec.text, revision, argv, None, _timeout(spec, move_timeout, True))
    if spec.kind == "rev":
        assert spec.inner is not None
        if spec.inner.kind in ("cmd", "rev"):
            raise ArenaError(f"agent {name}: rev: runs an in-process spec, not {spec.inner.text!r}")
        make_agent(spec.inner)  # a bad spec is refused before the revision is built
        built = prepare(spec.revision)
        argv = tuple(built.argv(spec.inner.text))
        _identify(name, argv, built.tree)
        return Entrant(name, spec.text, built.describe, argv, built.tree,
                       _timeout(spec.inner, move_timeout, True))
    make_agent(spec)  # check the parameters now, not in a worker
    revision = describe_checkout() or package_version()
    return Entrant(name, spec.text, revision, (), None, _timeout(spec, move_timeout, False))


def _identify(name: str, argv: Sequence[str], cwd: str | None) -> dict[str, object]:
    try:
        client = EngineClient(argv, f"agent {name}", cwd)
    except EngineError as error:
        raise ArenaError(f"{error} (is it an engine speaking refuge-engine/1?)") from None
    identity = client.identity
    client.close()
    return identity


# --- a run ------------------------------------------------------------------------------------------------

@dataclass
class ArenaSettings:
    """Everything `refuge arena` was asked to do."""

    agents: list[tuple[str, str]]
    games: int
    players: int = 2
    route: str = "meadows"
    seed: int = 0
    db: str = "arena.sqlite"
    workers: int = 1
    sprt: SprtSettings | None = None
    executor: str = "local"
    resume: bool = False
    move_timeout: float | None = None
    worker_timeout: float | None = None
    """Dask: give up once no worker has been connected for this many seconds (``None``: wait)."""
    records: str | None = None
    """A folder for each game's ``refuge-game/1`` record (``game-00001.json``, ...), or ``None``."""

    def identity(self) -> dict[str, object]:
        """What fixes the game list (and so identifies the run in the store)."""
        return {"agents": [list(a) for a in self.agents], "players": self.players,
                "route": self.route, "seed": self.seed}


def _quiet(*_: object) -> None:
    """Reports nothing."""


@dataclass(frozen=True)
class ArenaReports:
    """How a run reports as it goes, as the search's progress hook does: the command decides how to
    show it (``refuge arena``: a bar on a terminal, lines otherwise); every hook is optional."""

    line: Callable[[str], None] = _quiet
    """A summary line (every tenth of the run or every minute, and at the end of the games)."""
    played: Callable[[int, int], None] = _quiet
    """Games finished so far and games in the whole schedule, after each finished task."""
    waiting: Callable[[str], None] = _quiet
    """A line while the executor waits for workers (Dask)."""


@dataclass
class ArenaTally:
    """What has been played so far, and when a summary line is due."""

    names: list[str]
    schedule: Schedule
    sprt: SprtWatch | None = None
    played: list[Played] = field(default_factory=list)
    last_line: float = field(default_factory=time.monotonic)
    last_count: int = 0
    reports: ArenaReports = ArenaReports()

    def rows(self) -> list[PairStats]:
        """The pair statistics so far."""
        return pair_stats(len(self.names), self.schedule.players, self.played,
                          self.schedule.rotations_per_table())

    def add(self, job: GameJob, outcome: GameOutcome) -> None:
        """Count one finished game."""
        fault = (job.seats[outcome.fault.seat], outcome.fault.kind) if outcome.fault else None
        self.add_played(Played(job.table, job.deal, job.seats, outcome.returns, outcome.scores, fault))

    def add_played(self, game: Played) -> None:
        """Count one finished game (played now or stored), in the order games finish."""
        self.played.append(game)
        if self.sprt is not None:
            self.sprt.add(game)

    def decided(self) -> bool:
        """Whether the SPRT has reached a decision (the run then schedules no more games)."""
        return self.sprt is not None and self.sprt.stopped is not None

    def report(self, force: bool = False) -> None:
        """A summary line every tenth of the run or every minute (and when `force`)."""
        done, total = len(self.played), self.schedule.total
        step = max(1, total // 10)
        if not force and done - self.last_count < step and time.monotonic() - self.last_line < 60:
            return
        self.last_line, self.last_count = time.monotonic(), done
        rows = self.rows()
        self.reports.line(summary_line(self.names, rows, done, total,
                                       None if self.sprt is None else self.sprt.current))


def run_arena(settings: ArenaSettings, reports: ArenaReports = ArenaReports()) -> ArenaTally:
    """Play (the rest of) a run, storing each game as it finishes; the tally of the whole run.
    How it goes is told to `reports`.

    Raises:
        RefugeError: bad agents or settings, a clashing run in the store, an unusable executor.
    """
    address = parse_executor(settings.executor)
    if len(settings.agents) < 2:
        raise ArenaError("the arena needs at least two --agent")
    names = [name for name, _ in settings.agents]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise ArenaError(f"two agents are named {duplicate!r}: give each its own NAME=SPEC")
    if settings.sprt is not None and len(names) != 2:
        raise ArenaError("--sprt compares exactly two agents (the first against the second)")
    if settings.sprt is not None:
        _check_sprt_grid(settings.sprt, settings.players)
    Position.new_game(settings.players, settings.route)  # checks the route and player count
    entrants = [make_entrant(name, spec, settings.move_timeout) for name, spec in settings.agents]
    schedule = Schedule.build(len(entrants), settings.players, settings.route, settings.seed,
                              settings.games)
    store = ArenaStore(settings.db)
    try:
        run = _open_run(store, settings)
        try:
            watch = None if settings.sprt is None else SprtWatch(settings.sprt,
                                                                 schedule.rotations_per_table())
            progress = ArenaTally(names, schedule, watch, reports=reports)
            done = store.finished(run)
            if settings.records is not None:
                os.makedirs(settings.records, exist_ok=True)
                for index in sorted(done):  # a resumed run: the records of earlier sessions too
                    if not os.path.exists(record_file(settings.records, index)):
                        write_record(settings.records, index, store.record(run, index) or "")
            _add_stored(progress, store, run, settings.db)
            left = schedule.total - len(done)
            if left > 0 and not progress.decided():
                remaining = (job for job in schedule.jobs() if job.index not in done)
                _play(settings, address, store, run, entrants, remaining, left, progress)
            return progress
        finally:
            store.release(run)
    finally:
        store.close()


def write_record(directory: str, index: int, record: str) -> None:
    """Write a game's record (compact JSON as the arena keeps it) to its file, atomically.

    Raises:
        FileWriteError: the file cannot be written.
    """
    path = record_file(directory, index)
    write_atomically(path, dump_record(read_record_text(record, path)))


def _seat_index(names: list[str], name: str, db: str) -> int:
    if name not in names:
        raise ArenaError(f"{db}: a stored game of this run seats {name!r}, not one of its agents")
    return names.index(name)


def _check_sprt_grid(sprt: SprtSettings, players: int) -> None:
    """The SPRT's hypotheses must be reachable on the grid of two agents' deal scores."""
    seatings = rotations(make_tables(2, players)[0])
    meetings = sum(seats.count(0) * seats.count(1) for seats in seatings)
    try:
        check_reachable(sprt, 2 * meetings + 1)
    except ValueError as error:
        raise ArenaError(f"--sprt with {players} players: {error}") from None


def _add_stored(progress: ArenaTally, store: ArenaStore, run: int, db: str) -> None:
    """Count the run's stored games into `progress`, in index order (the SPRT replays the stored deals)."""
    for game in store.games(run):
        seats = tuple(_seat_index(progress.names, name, db) for name, _, _ in game.seats)
        info = game.fault or {}
        seat = info.get("seat")
        fault = (seats[seat], str(info.get("kind"))) if isinstance(seat, int) else None
        progress.add_played(Played(game.table, game.deal, seats, game.returns, game.scores, fault))


def stored_tally(settings: ArenaSettings) -> ArenaTally:
    """The tally of what the store holds of a run, playing nothing and claiming nothing, so it can
    be read while another arena plays the run (a run never started has no games).

    Raises:
        RefugeError: no such database, or one that cannot be read.
    """
    if not os.path.isfile(settings.db):
        raise ArenaError(f"{settings.db}: no such arena database")
    names = [name for name, _ in settings.agents]
    schedule = Schedule.build(len(names), settings.players, settings.route, settings.seed,
                              settings.games)
    progress = ArenaTally(names, schedule)
    store = ArenaStore(settings.db)
    try:
        run = store.find_run(settings.identity())
        if run is not None:
            _add_stored(progress, store, run, settings.db)
    finally:
        store.close()
    return progress


def _open_run(store: ArenaStore, settings: ArenaSettings) -> int:
    """The run's id, claimed by this arena (one arena plays a run at a time).

    Raises:
        ArenaError: nothing to resume, a run stored without --resume, or another arena playing it.
    """
    config = settings.identity()
    run = store.find_run(config)
    if run is None and settings.resume:
        raise ArenaError(f"{settings.db}: no run with these agents, players, route and seed "
                         "to resume")
    run = store.claim_run(config)
    stored = store.count(run)
    if stored and not settings.resume:
        store.release(run)
        raise ArenaError(f"{settings.db} already holds this run ({stored} games): add --resume to "
                         "continue it, or choose another --seed or --db")
    return run


def _play(settings: ArenaSettings, address: str | None, store: ArenaStore, run: int,
          entrants: list[Entrant], remaining: Iterable[GameJob], left: int,
          progress: ArenaTally) -> None:
    runner = Runner(min(settings.workers, left), address, worker_timeout=settings.worker_timeout,
                    on_wait=progress.reports.waiting)
    groups = left * len(progress.schedule.tables) // progress.schedule.per_deal  # deals x tables
    # Batches save per-task overhead for the instant bots; a searching agent takes seconds to
    # minutes a game, so each deal is its own task and is stored as soon as it is played.
    instant = all(parse_agent_spec(e.spec).kind in INSTANT_KINDS for e in entrants)
    per_task = (1 if settings.sprt is not None or not instant
                else max(1, min(8, groups // (4 * runner.workers))))
    def finished(task: Sequence[GameJob], outcomes: list[GameOutcome]) -> bool:
        for job, outcome in zip(task, outcomes):
            if settings.records is not None:  # before the store: a stored game has its record
                write_record(settings.records, job.index, outcome.record)
            store.add(run, job, entrants, outcome)
            progress.add(job, outcome)
        progress.reports.played(len(progress.played), progress.schedule.total)
        progress.report()
        return progress.decided()

    try:
        run_tasks(runner, play_batch, batches(remaining, per_task), (entrants,), finished)
    except BaseException:
        runner.abort()  # Ctrl-C or an error: stored games stay stored, nothing else is awaited
        raise
    else:
        runner.shutdown()
    finally:
        stop_engines()
