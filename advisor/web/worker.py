"""The child-process side of a job: a live analysis or a game annotation, talking over a pipe.

The parent sends ``"pause"``, ``"go"`` or ``"cancel"``; the child sends ``{"type": "update" | "paused"
| "final" | "error", ...}``. An analysis runs up to its iteration cap, stops at its time cap (time
paused does not count) and reports at most every ``update_seconds``.
"""

from __future__ import annotations

import dataclasses
import os
import time
from multiprocessing.connection import Connection
from typing import Any, Hashable

from advisor.analysis.annotate import annotate_game, decisions_to_annotate, summarise
from advisor.analysis.best_move import option_to_data
from advisor.analysis.facts import return_facts
from advisor.players.bots import DEFAULT_ROLLOUT
from advisor.web.config import WebConfig
from advisor.web.lines import read_line
from positions import phases
from positions.actions import action_from_code
from positions.position import Position
from positions.record import parse_record, replay
from search.ismcts import Node, search
from search.request import SearchRequest, SearchResult

NICE = 10
"""Searches run at a lower CPU priority than the server, so pages stay quick while they run."""
LINE_DECISIONS = 8
"""Decisions shown in the principal line."""
LINE_MIN_VISITS = 4


class Stop(Exception):
    """The parent cancelled the job."""


class Control:
    """The child's end of the pipe: reports on a clock, pauses on request, counts running time."""

    def __init__(self, conn: Connection, max_seconds: float, update_seconds: float) -> None:
        os.nice(NICE)
        self.conn = conn
        self.max_seconds = max_seconds
        self.update_seconds = update_seconds
        self.running_since = time.monotonic()
        self.ran = 0.0
        self.last_update = 0.0
        self.pause_wanted = False
        self.reason = ""

    def seconds(self) -> float:
        """Running time so far (pauses excluded)."""
        return self.ran + time.monotonic() - self.running_since

    def poll(self) -> None:
        """Read the parent's messages without waiting.

        Raises:
            Stop: the parent cancelled.
        """
        while self.conn.poll():
            message = self.conn.recv()
            if message == "cancel":
                raise Stop
            if message == "pause":
                self.pause_wanted = True

    def wait_for_go(self) -> None:
        """Block until the parent says go (or cancel)."""
        self.ran += time.monotonic() - self.running_since
        self.pause_wanted = False
        while True:
            message = self.conn.recv()
            if message == "cancel":
                raise Stop
            if message == "go":
                self.running_since = time.monotonic()
                return

    def due(self) -> bool:
        """Whether an update is due."""
        now = time.monotonic()
        if now - self.last_update >= self.update_seconds:
            self.last_update = now
            return True
        return False

    def send(self, kind: str, **fields: Any) -> None:
        """One message to the parent."""
        self.conn.send({"type": kind, **fields})


# --- analysis ------------------------------------------------------------------------------------

def principal_line(pos: Position, nodes: dict[Hashable, Node]) -> tuple[list[dict[str, object]],
                                                                        dict[int, tuple[float, float]]]:
    """The most visited line from `pos` (chance: its likeliest outcome), and each player's
    (win, score) at their first decision on it."""
    state = pos.copy()
    line: list[dict[str, object]] = []
    first: dict[int, tuple[float, float]] = {}
    decisions = 0
    while decisions < LINE_DECISIONS and len(line) < 3 * LINE_DECISIONS:
        actor = state.current_player()
        if actor == phases.TERMINAL_PLAYER:
            break
        if actor == phases.CHANCE_PLAYER:
            outcome, probability = max(state.chance_outcomes(), key=lambda o: o[1])
            line.append({"player": None, "action": str(outcome), "probability": round(probability, 4)})
            state.apply(outcome)
            continue
        node = nodes.get((actor, state.information_set_key(actor)))
        if not node:
            break
        action, stats = max(node.items(), key=lambda item: (item[1][0], item[1][2]))
        if stats[0] < LINE_MIN_VISITS or action not in state.legal_actions():
            break
        win, score = stats[2] / stats[0], stats[3] / stats[0]
        first.setdefault(actor, (win, score))
        line.append({"player": actor, "action": str(action_from_code(action)), "visits": int(stats[0]),
                     "win": round(win, 4)})
        state.apply(action)
        decisions += 1
    return line, first


def analysis_snapshot(pos: Position, result: SearchResult, nodes: dict[Hashable, Node], seconds: float,
                      facts: dict[str, object] | None) -> dict[str, object]:
    """What the page shows of a growing search: options, chances, principal line, facts, speed."""
    ranked = sorted(result.actions, key=lambda s: (-s.visits, -s.win))
    line, first = principal_line(pos, nodes)
    best = result.stats(result.chosen)
    first[result.player] = (best.win, best.score)
    chances = [{"player": p, "win": round(first[p][0], 4) if p in first else None,
                "score": round(first[p][1], 2) if p in first else None,
                "from": "root" if p == result.player else "line"} for p in range(pos.players)]
    return {"player": result.player, "decision": phases.NAMES[pos.phase],
            "options": [option_to_data(s) for s in ranked], "best": str(action_from_code(result.chosen)),
            "iterations": result.iterations, "seconds": round(seconds, 3),
            "rate": round(result.iterations / seconds, 1) if seconds > 0 else 0.0,
            "chances": chances, "line": line, "facts": facts}


def facts_to_data(pos: Position, seed: int) -> dict[str, object] | None:
    """The return-or-draw facts (Storm risk, points at stake) at a decide step, else ``None``."""
    facts = return_facts(pos, samples=1000, seed=seed)
    if facts is None:
        return None
    return {"storms_on_track": facts.storms_on_track, "threshold": facts.threshold,
            "storm_hit_chance_this_turn": round(facts.hit_chance_this_turn, 4),
            "storm_hit_chance_weather_tile": round(facts.hit_chance_weather_only, 4),
            "animal_points_at_stake": facts.animal_points, "steps_at_risk": facts.steps_at_risk,
            "vp_at_risk": facts.vp_at_risk, "lines": facts.lines()}


def run_analysis(conn: Connection, document: dict[str, object], seed: int, max_iterations: int,
                 max_seconds: float, update_seconds: float) -> None:
    """Grow a search on the line's position until a cap or a cancel, reporting as it goes."""
    control = Control(conn, max_seconds, update_seconds)
    try:
        pos = read_line(document, WebConfig()).position
        facts = facts_to_data(pos, seed)
        latest: dict[str, Any] = {}

        def on_progress(result: SearchResult, nodes: dict[Hashable, Node]) -> bool:
            control.poll()
            latest["nodes"] = nodes
            if control.seconds() >= max_seconds:
                control.reason = "seconds"
                return False
            if control.pause_wanted:
                control.send("paused", data=analysis_snapshot(pos, result, nodes, control.seconds(), facts))
                control.wait_for_go()
            elif control.due():
                control.send("update", data=analysis_snapshot(pos, result, nodes, control.seconds(), facts))
            return True

        request = SearchRequest(iterations=max_iterations, seed=seed, rollout=DEFAULT_ROLLOUT)
        result = search(pos, request, on_progress=on_progress, progress_every=16)
        control.send("final", reason=control.reason or "iterations",
                     data=analysis_snapshot(pos, result, latest.get("nodes", {}), control.seconds(), facts))
    except Stop:
        control.send("final", reason="cancelled", data=None)
    except Exception as error:  # reported to the parent as one line; the parent never re-raises it
        control.send("error", message=f"{type(error).__name__}: {error}".splitlines()[0])


# --- annotation ----------------------------------------------------------------------------------

def run_annotation(conn: Connection, record_data: dict[str, object], iterations: int, seed: int,
                   max_seconds: float, update_seconds: float) -> None:
    """Annotate every decision of a record, reporting each one done; stops at the time cap."""
    control = Control(conn, max_seconds, update_seconds)
    done: list[dict[str, object]] = []
    finished: list[Any] = []
    try:
        record = parse_record(record_data)
        game = replay(record)
        total = len(decisions_to_annotate(game, None))
        control.send("update", data={"done": 0, "total": total})

        def on_done(annotation: Any) -> None:
            control.poll()
            finished.append(annotation)
            done.append(dataclasses.asdict(annotation))
            if control.seconds() >= max_seconds:
                control.reason = "seconds"
                raise Stop
            control.send("update", data={"done": len(done), "total": total, "last": done[-1]})

        try:
            annotate_game(game, None, iterations, None, seed, 1, on_done=on_done)
        except Stop:
            if control.reason != "seconds":
                raise
        summaries = [dataclasses.asdict(s) for s in summarise(finished, record)]
        control.send("final", reason=control.reason or "done",
                     data={"done": len(done), "total": total,
                           "annotations": sorted(done, key=lambda a: int(a["event"])),  # type: ignore[call-overload]
                           "players": summaries})
    except Stop:
        control.send("final", reason="cancelled", data=None)
    except Exception as error:
        control.send("error", message=f"{type(error).__name__}: {error}".splitlines()[0])
