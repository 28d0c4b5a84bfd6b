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
from typing import Any, Callable

from advisor.analysis.annotate import annotate_game, decisions_to_annotate, summarise
from advisor.analysis.best_move import (
    ADVICE_HEADERS, NOISE_NOTE, PLAYER_HEADERS, PLAYERS_TITLE, Advice, advice_rows, advice_to_data, advise,
    line_text, player_rows, recommendation_reason,
)
from advisor.players.tablebase import ExactEndgames
from advisor.players.bots import advisor_request
from advisor.web.annotations import annotation_document, save_annotation
from advisor.web.config import WebConfig
from advisor.web.lines import read_line
from advisor.web.principal import line_with_replies
from positions.files import FileWriteError
from positions.record import parse_record, replay
from search.request import SearchRequest

NICE = 10
"""Searches run at a lower CPU priority than the server, so pages stay quick while they run."""
REPORT_SHARE = 1 / 3
"""At most this share of an analysis's time goes to building reports (a report's cost grows with
the tree, so reports on a large tree come less often than ``update_seconds``)."""


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
        self.report_cost = 0.0
        """Seconds the last report took to build."""
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
        """Whether an update is due: ``update_seconds`` after the last one, or later when reports
        would otherwise take more than ``REPORT_SHARE`` of the time."""
        wait = max(self.update_seconds, self.report_cost * (1 / REPORT_SHARE - 1))
        return time.monotonic() - self.last_update >= wait

    def report(self, kind: str, build: Callable[[], dict[str, object]]) -> None:
        """Build a report, timing it, and send it to the parent."""
        start = time.monotonic()
        data = build()
        self.last_update = time.monotonic()
        self.report_cost = self.last_update - start
        self.send(kind, data=data)

    def send(self, kind: str, **fields: Any) -> None:
        """One message to the parent."""
        self.conn.send({"type": kind, **fields})


# --- analysis ------------------------------------------------------------------------------------

def analysis_snapshot(advice: Advice, seconds: float) -> dict[str, object]:
    """What the page shows of a growing search: `refuge best-move --json`'s document, and the
    table, reason, line and notes exactly as best-move prints them, the line with every player's
    replies and the likeliest chance outcomes, and the running time and speed."""
    data = advice_to_data(advice)
    facts = data["facts"]
    if isinstance(facts, dict) and advice.facts is not None:
        facts["lines"] = advice.facts.lines()
    tree = advice.result.tree
    data.update({
        "reason": recommendation_reason(advice), "line_text": line_text(advice),
        "line_moves": [] if tree is None else line_with_replies(advice.position, tree, advice.line[0]),
        "table": {"headers": ADVICE_HEADERS, "rows": advice_rows(advice), "note": NOISE_NOTE},
        "players_table": {"title": PLAYERS_TITLE, "headers": PLAYER_HEADERS, "rows": player_rows(advice)},
        "seconds": round(seconds, 3),
        "rate": round(advice.result.iterations / seconds, 1) if seconds > 0 else 0.0,
    })
    return data


def analysis_request(max_iterations: int, seed: int) -> SearchRequest:
    """The request `refuge best-move` makes (the advisor's rollouts and widening, exact endgames),
    capped at `max_iterations`; the tree kept for the line with every player's replies."""
    return dataclasses.replace(advisor_request(iterations=max_iterations, seed=seed, oracle=ExactEndgames()),
                               keep_tree=True)


def run_analysis(conn: Connection, document: dict[str, object], seed: int, max_iterations: int,
                 max_seconds: float, update_seconds: float) -> None:
    """Grow a search on the line's position until a cap or a cancel, reporting as it goes."""
    control = Control(conn, max_seconds, update_seconds)
    try:
        pos = read_line(document, WebConfig()).position

        def on_progress(so_far: Callable[[], Advice]) -> bool:
            control.poll()
            if control.seconds() >= max_seconds:
                control.reason = "seconds"
                return False
            if control.pause_wanted:
                control.report("paused", lambda: analysis_snapshot(so_far(), control.seconds()))
                control.wait_for_go()
            elif control.due():
                control.report("update", lambda: analysis_snapshot(so_far(), control.seconds()))
            return True

        advice = advise(pos, analysis_request(max_iterations, seed), on_progress=on_progress)
        control.send("final", reason=control.reason or "iterations",
                     data=analysis_snapshot(advice, control.seconds()))
    except Stop:
        control.send("final", reason="cancelled", data=None)
    except Exception as error:  # reported to the parent as one line; the parent never re-raises it
        control.send("error", message=f"{type(error).__name__}: {error}".splitlines()[0])


# --- annotation ----------------------------------------------------------------------------------

def run_annotation(conn: Connection, record_data: dict[str, object], iterations: int, seed: int,
                   max_seconds: float, update_seconds: float, save_to: tuple[str, str, str] | None = None) -> None:
    """Annotate every decision of a record, reporting each one done; stops at the time cap. A
    complete annotation is saved to `save_to` (folder, file name, the game's name) first."""
    control = Control(conn, max_seconds, update_seconds)
    done: list[dict[str, object]] = []
    finished: list[Any] = []
    try:
        record = parse_record(record_data)
        game = replay(record)
        total = len(decisions_to_annotate(game, None))
        control.send("update", data={"done": 0, "total": total, "iterations_per_decision": iterations})

        def on_done(annotation: Any) -> None:
            control.poll()
            finished.append(annotation)
            done.append(dataclasses.asdict(annotation))
            if control.seconds() >= max_seconds:
                control.reason = "seconds"
                raise Stop
            control.send("update", data={"done": len(done), "total": total, "last": done[-1],
                                         "iterations_per_decision": iterations})

        try:
            annotate_game(game, None, iterations, None, seed, 1, on_done=on_done)
        except Stop:
            if control.reason != "seconds":
                raise
        summaries = [dataclasses.asdict(s) for s in summarise(finished, record)]
        data: dict[str, Any] = {"done": len(done), "total": total, "iterations_per_decision": iterations,
                                "annotations": sorted(done, key=lambda a: int(a["event"])),  # type: ignore[call-overload]
                                "players": summaries, "saved": "", "save_error": ""}
        if save_to is not None and not control.reason:
            folder, name, game_name = save_to
            try:
                save_annotation(folder, name, annotation_document(data, game_name, seed, len(record.events)))
                data["saved"] = name
            except FileWriteError as error:
                data["save_error"] = str(error)
        control.send("final", reason=control.reason or "done", data=data)
    except Stop:
        control.send("final", reason="cancelled", data=None)
    except Exception as error:
        control.send("error", message=f"{type(error).__name__}: {error}".splitlines()[0])
