"""Expert iteration's data (issue 27, item 2): the strong agent's own self-play, labelled by deeper searches.

:func:`generate_data` plays seeded self-play games of one ``ismcts:`` spec (every seat the same
agent, each on its seat's view, through :class:`~advisor.players.games.GameLoop`), keeps
``per_game`` of each game's asked decisions and labels each with (a) the game's result, (b) a
deeper search's value there — every player's win share and final score backed up to the root of a
search of ``label_iterations`` iterations by the same agent (the visit-weighted mean over the root's
actions) — and (c) that search's visit count per root action, a policy target (beside each
action's features, :func:`~lab.learned_prior.action_features`). The features are
the learned evaluator's (:func:`~advisor.players.learned.feature_rows`) of the decider's own view,
the view the agent was handed, and the deeper search runs on that view too, so a row holds nothing
its player could not know.

The file is JSON lines: a header naming the settings, then per game its rows and a closing
``{"game": g, "end": true, "rows": k}`` line, written when the game is labelled. A run stopped
anywhere continues from the last closed game (a torn tail is cut off), and every random choice
flows from the seed by game, so the same settings write the same file whatever the worker count
and however often the run was stopped.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from advisor.players.agents import SearchAgent, make_agent
from advisor.players.bots import HeuristicEvaluator
from advisor.players.games import RecordingAgent, deal_seed, derive_seed, play_game
from advisor.players.learned import feature_rows, walks_left
from lab.learned_prior import action_features
from lab.options import after_option, is_early_buy
from advisor.players.specs import AgentSpecError, parse_agent_spec
from positions.errors import RefugeError
from positions.kernel.position import Position
from positions.kernel.routes import ROUTES
from search.ismcts import search
from search.request import SearchResult

DATA_KIND = "refuge-expert-data"
DATA_VERSION = 1
"""The layout of a data file's rows; changes whenever a row's fields or their meaning change."""


ROW_FIELDS = frozenset({"game", "index", "player", "rows", "walks_left", "heuristic", "heuristic_scores",
                        "search", "policy", "action_features", "returns", "scores"})
"""What every row of a data file holds (training reads these); a row of a newer file also holds
``options``: per root action of the deeper search, [action, visits, the decider's mean win share,
every player's features of the position the action leads to] (:func:`option_rows`)."""
KEPT = ("any", "buys")
"""The choices of :attr:`DataSettings.kept`."""


class ExpertDataError(RefugeError, ValueError):
    """Settings that cannot make data, or a data file that cannot be read or continued."""


@dataclass(frozen=True)
class DataSettings:
    """What a data file is made of; its header, so a resumed run checks it continues the same data."""

    seed: int
    """Every random choice flows from it."""
    agent: str = "ismcts:iterations=200"
    """The ``ismcts:`` spec every seat plays (an iterations budget: a clock is not reproducible)."""
    label_iterations: int = 1000
    """The deeper search's iterations at each kept decision."""
    games: int = 10
    """Games in the file (a longer run continues a shorter one's file)."""
    players: int = 2
    """Seats per game, every one the same agent."""
    per_game: int = 8
    """Asked decisions kept per game (all of them if fewer), drawn by the game's seed."""
    kept: str = "any"
    """Which asked decisions may be kept: ``"any"``, or ``"buys"`` (a buy with a choice before the
    last walk: the decisions whose worth lies beyond the tree, docs/strength.md)."""

    def check(self) -> None:
        """Refuse settings that cannot make reproducible data.

        Raises:
            ExpertDataError: a bad number, or an agent that is not an ``ismcts:`` spec with iterations.
        """
        for name, low in (("label_iterations", 1), ("games", 1), ("per_game", 1), ("seed", 0)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ExpertDataError(f"expert data: {name} must be an int >= {low}, got {value!r}")
        if self.kept not in KEPT:
            raise ExpertDataError(f"expert data: kept must be one of {', '.join(KEPT)}, got {self.kept!r}")
        if self.players not in (2, 3, 4) or isinstance(self.players, bool):
            raise ExpertDataError(f"expert data: players must be 2, 3 or 4, got {self.players!r}")
        try:
            spec = parse_agent_spec(self.agent)
            agent = make_agent(spec)
        except AgentSpecError as error:
            raise ExpertDataError(f"expert data: {error}") from None
        if not isinstance(agent, SearchAgent):
            raise ExpertDataError(f"expert data: the agent must be an ismcts: spec, got {self.agent!r}")
        if "seconds" in spec.params:
            raise ExpertDataError(f"expert data: {self.agent!r} has a clock (seconds=); give iterations= "
                                  "so the same seed makes the same data")
        if agent.template.workers != 1:
            raise ExpertDataError(f"expert data: {self.agent!r}: one search worker (run games in "
                                  "parallel with the run's workers instead)")

    def header(self) -> dict[str, Any]:
        """The file's first line: every setting but the number of games (a longer run of the same
        settings continues the file; its first games are the shorter run's)."""
        settings = dataclasses.asdict(self)
        del settings["games"]
        return {"kind": DATA_KIND, "version": DATA_VERSION, "settings": settings}


def root_value(result: SearchResult) -> tuple[list[float], list[float]]:
    """Every player's (win share, final score) backed up to the root: the visit-weighted mean of
    the root actions' means (an exact option's values count with its visits)."""
    seen = [s for s in result.actions if s.visits and s.wins]
    total = sum(s.visits for s in seen)
    players = len(seen[0].wins)
    wins = [sum(s.visits * s.wins[p] for s in seen) / total for p in range(players)]
    scores = [sum(s.visits * s.scores[p] for s in seen) / total for p in range(players)]
    return wins, scores


def game_route(settings: DataSettings, game: int) -> str:
    """The route of game `game` (drawn by the game's seed among the named routes)."""
    return random.Random(derive_seed(settings.seed, "expert", game, "route")).choice(sorted(ROUTES))


def game_deal(settings: DataSettings, game: int) -> int:
    """The deal seed of game `game` (apart from the arena's deals of the same seed)."""
    return deal_seed(derive_seed(settings.seed, "expert"), game)


def played_views(settings: DataSettings, game: int) -> tuple[list[tuple[int, Position]], Position]:
    """Play game `game`: (seat, the view it was handed) at each asked decision, and the final position."""
    log: list[tuple[int, Position]] = []
    seats = [RecordingAgent(make_agent(settings.agent), seat, log) for seat in range(settings.players)]
    recorder = play_game(seats, game_route(settings, game), game_deal(settings, game))
    return log, recorder.position


def label_game(settings: DataSettings, game: int) -> list[dict[str, Any]]:
    """Play game `game` and label its kept decisions: the game's rows, in decision order."""
    log, final = played_views(settings, game)
    route = game_route(settings, game)
    returns, scores = final.returns(), [float(v) for v in final.scores()]
    rng = random.Random(derive_seed(settings.seed, "expert", game, "kept"))
    asked = [i for i, (_, view) in enumerate(log) if settings.kept == "any" or is_early_buy(view)]
    kept = sorted(rng.sample(asked, min(settings.per_game, len(asked))))
    labeller = make_agent(settings.agent)  # a fresh agent: its endgame probes start empty
    assert isinstance(labeller, SearchAgent)
    request = dataclasses.replace(labeller.template, iterations=settings.label_iterations, seconds=None)
    heuristic = HeuristicEvaluator()
    rows = []
    for index, decision in enumerate(kept):
        seat, view = log[decision]
        result = search(view, dataclasses.replace(request, seed=derive_seed(settings.seed, "expert", game,
                                                                             "label", index)))
        wins, searched = root_value(result)
        shares, projected = heuristic.evaluate(view)
        rows.append({
            "game": game, "index": index, "decision": decision, "route": route, "player": seat,
            "walk": view.walk, "turn": view.turn, "phase": view.phase,
            "rows": feature_rows(view), "walks_left": walks_left(view),
            "heuristic": shares, "heuristic_scores": projected,
            "search": {"iterations": result.iterations, "wins": wins, "scores": searched},
            "policy": [[s.action, s.visits] for s in result.actions],
            "options": option_rows(view, seat, result),
            "action_features": action_features(view, random.Random(derive_seed(
                settings.seed, "expert", game, "prior", index))),
            "returns": list(returns), "scores": scores})
    return rows


def option_rows(view: Position, seat: int, result: SearchResult) -> list[list[Any]]:
    """Per root action of `result` (searched on `view`, the decider `seat`'s view): the action, its
    visits, the decider's mean win share and every player's features of the position it leads to
    (:func:`~lab.options.after_option`): the ranking labels of the decision's options."""
    rows = []
    for stats in result.actions:
        if stats.visits and stats.wins:
            rows.append([stats.action, stats.visits, stats.wins[seat],
                         feature_rows(after_option(view, stats.action))])
    return rows


def _game_lines(settings: DataSettings, game: int) -> str:
    rows = label_game(settings, game)
    lines = [json.dumps(row, separators=(",", ":")) for row in rows]
    lines.append(json.dumps({"game": game, "end": True, "rows": len(rows)}, separators=(",", ":")))
    return "".join(line + "\n" for line in lines)


def _settings_text(settings: DataSettings) -> str:
    return json.dumps(settings.header(), separators=(",", ":"), sort_keys=True) + "\n"


def resume_point(path: str, settings: DataSettings) -> tuple[int, int]:
    """(games already closed in the file at `path`, the byte length they fill): 0 games for a
    missing file; a torn or unclosed tail is not counted.

    Raises:
        ExpertDataError: the file was made with other settings, or its games are out of order.
    """
    if not os.path.exists(path):
        return 0, 0
    with open(path, "rb") as handle:
        data = handle.read()
    header = _settings_text(settings).encode()
    if not data.startswith(header):
        if len(data) < len(header) and header.startswith(data):
            return 0, 0  # a torn header: written again
        raise ExpertDataError(f"{path}: made with other settings (its first line is not "
                              f"{header.decode().strip()}); give another --out")
    games, end, offset = 0, len(header), len(header)
    for line in data[len(header):].splitlines(keepends=True):
        offset += len(line)
        if not line.endswith(b"\n"):
            break
        try:
            row = json.loads(line)
        except ValueError:
            break
        if row.get("game") != games:
            raise ExpertDataError(f"{path}: a row of game {row.get('game')!r} where game {games} was due")
        if row.get("end"):
            games, end = games + 1, offset
    return games, end


def generate_data(path: str, settings: DataSettings, workers: int = 1,
                  on_game: Callable[[int], None] | None = None) -> int:
    """Write (or continue) the data file at `path` up to ``settings.games`` games, `workers` games
    at a time in worker processes, in game order; the number of games it played now.

    Raises:
        ExpertDataError: bad settings, or a file made with other settings.
    """
    settings.check()
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ExpertDataError(f"expert data: workers must be an int >= 1, got {workers!r}")
    done, end = resume_point(path, settings)
    if done == 0:
        with open(path, "w", encoding="utf-8") as out:
            out.write(_settings_text(settings))
    else:
        with open(path, "r+b") as out:
            out.truncate(end)
    todo = list(range(done, settings.games))
    with open(path, "a", encoding="utf-8") as out:
        for game, text in zip(todo, _played(settings, todo, workers)):
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
            if on_game is not None:
                on_game(game)
    return len(todo)


def _played(settings: DataSettings, games: Sequence[int], workers: int) -> Iterator[str]:
    if workers == 1 or len(games) < 2:
        for game in games:
            yield _game_lines(settings, game)
        return
    with ProcessPoolExecutor(min(workers, len(games))) as pool:
        yield from pool.map(_game_lines, [settings] * len(games), games)


def read_data(path: str) -> tuple[DataSettings, list[dict[str, Any]]]:
    """The settings (``games``: how many closed games hold rows) and the rows of the closed games
    of a data file.

    Raises:
        ExpertDataError: not a data file of this version.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            first = handle.readline()
            header = json.loads(first)
            if not isinstance(header, dict) or header.get("kind") != DATA_KIND:
                raise ExpertDataError(f"{path}: not an expert-iteration data file (no {DATA_KIND} header)")
            if header.get("version") != DATA_VERSION:
                raise ExpertDataError(f"{path}: version {header.get('version')!r}, expected {DATA_VERSION}")
            made = DataSettings(**header["settings"])
            rows: list[dict[str, Any]] = []
            pending: list[dict[str, Any]] = []
            for number, line in enumerate(handle, 2):
                try:
                    row = json.loads(line)
                except ValueError:
                    break  # a torn tail: the games before it are whole
                if not isinstance(row, dict):
                    raise ExpertDataError(f"{path}: line {number} is not a JSON object")
                if row.get("end"):
                    rows.extend(pending)
                    pending = []
                    continue
                missing = sorted(ROW_FIELDS - set(row))
                if missing:
                    raise ExpertDataError(f"{path}: line {number} has no {missing[0]!r}")
                pending.append(row)
    except ExpertDataError:
        raise
    except OSError as error:
        raise ExpertDataError(f"{path}: cannot read the file ({error.strerror or error})") from None
    except (ValueError, TypeError, KeyError) as error:
        raise ExpertDataError(f"{path}: not an expert-iteration data file ({error})") from None
    games = len({row["game"] for row in rows})
    return dataclasses.replace(made, games=max(1, games)), rows
