"""`refuge engine` while it thinks: how soon a ``stop`` is answered, how often ``info`` lines come.

Each round starts an infinite ``go`` in a running engine (through pipes, as a GUI drives it),
reads its ``info`` lines for a second, then times ``stop`` → the answer. The goals of issue 56:
the answer within 0.1 s of ``stop``, at least one ``info`` line per 0.5 s of search. Run with
``make bench``; under ``make test`` (benchmarks disabled) each function still runs once and checks
the answers' shape.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from positions import Position
from positions.saved import position_to_data

PROJECT = Path(__file__).resolve().parent.parent
WATCH_SECONDS = 1.0


@pytest.fixture(scope="module")
def engine():
    process = subprocess.Popen([sys.executable, "-m", "advisor", "engine", "--agent", "ismcts:iterations=500"],
                               cwd=PROJECT, text=True, bufsize=1, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    for request in ({"cmd": "position", "position": position_to_data(Position.new_game(2))},
                    {"cmd": "setoption", "name": "info", "value": True}):
        process.stdin.write(json.dumps(request) + "\n")
        assert json.loads(process.stdout.readline()) == {"ok": True}
    yield process
    process.kill()
    process.wait(timeout=10)


def _think_then_stop(process: subprocess.Popen) -> tuple[float, float]:
    """(seconds from stop to the answer, the longest gap between info lines while thinking)."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"cmd": "go", "seed": 1, "infinite": True}) + "\n")
    start = time.monotonic()
    seen = [start]
    while time.monotonic() - start < WATCH_SECONDS:
        assert "info" in json.loads(process.stdout.readline())
        seen.append(time.monotonic())
    stopped = time.monotonic()
    process.stdin.write(json.dumps({"cmd": "stop"}) + "\n")
    answer = json.loads(process.stdout.readline())
    while "info" in answer:
        answer = json.loads(process.stdout.readline())
    latency = time.monotonic() - stopped
    assert answer["stopped"] is True and json.loads(process.stdout.readline()) == {"ok": True}
    return latency, max(b - a for a, b in zip(seen, seen[1:]))


def test_stop_latency_and_info_gap(benchmark, engine) -> None:  # type: ignore[no-untyped-def]
    """Goal: stop answered within 0.1 s; info lines at most 0.5 s apart (extra_info holds both)."""
    measured: list[tuple[float, float]] = []
    benchmark.pedantic(lambda: measured.append(_think_then_stop(engine)), rounds=3, iterations=1)
    benchmark.extra_info["stop_seconds_max"] = round(max(m[0] for m in measured), 4)
    benchmark.extra_info["info_gap_seconds_max"] = round(max(m[1] for m in measured), 4)
    assert measured
