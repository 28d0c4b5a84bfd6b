"""Helpers for tests of real processes: find them through /proc, wait a bounded time for them to go."""

from __future__ import annotations

import os
import sqlite3
import sys
import time

HAS_PROC = os.path.isdir("/proc")

REFUGE = [sys.executable, "-m", "advisor"]
"""The `refuge` command line, run by this interpreter."""


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def alive_with(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                command = _read(f"/proc/{entry}/cmdline")
                state = _read(f"/proc/{entry}/stat").rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in command and state != b"Z" and int(entry) != os.getpid():
                found.append(int(entry))
    return found


def children_of(pid: int) -> list[int]:
    """Pids of the live processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = _read(f"/proc/{entry}/stat").rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != b"Z":
                found.append(int(entry))
    return found


def is_alive(pid: int) -> bool:
    """Whether `pid` is a live, non-zombie process."""
    try:
        return _read(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def wait_until(condition, seconds: float = 60.0, step: float = 0.05) -> bool:  # type: ignore[no-untyped-def]
    """Poll `condition` until it holds or `seconds` pass; whether it held."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


def wait_gone(marker: str, seconds: float = 15.0) -> list[int]:
    """The processes still holding `marker` after waiting up to `seconds` for them all to end."""
    wait_until(lambda: not alive_with(marker), seconds)
    return alive_with(marker)


def unique_marker() -> str:
    """A `sleep` duration no other process uses, to find the processes a test started."""
    return f"3333.{os.getpid()}{time.monotonic_ns() % 1_000_000}"


def stored_games(db: str) -> int:
    """Games stored in an arena database so far (0 before it exists)."""
    try:
        with sqlite3.connect(db, timeout=30) as con:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
