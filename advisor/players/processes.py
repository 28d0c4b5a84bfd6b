"""Child processes that cannot outlive us: engines and builds run in their own session, under a guard.

Each command runs in a new session (so a terminal's Ctrl-C reaches only us, and we decide when it
stops) led by :mod:`advisor.players.process_guard`, which kills the whole session if this process dies
without cleaning up (``kill -9``). Stopping one kills its whole process group: the command and
anything it started, such as a child holding its stdout open.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import Any, Sequence

from advisor.players.process_guard import on_parent_death

GUARD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "process_guard.py")


def guarded_argv(argv: Sequence[str]) -> list[str]:
    """The command line running `argv` under the guard, watching this process."""
    return [sys.executable, "-I", "-S", GUARD, str(os.getpid()), *argv]


def start_guarded(argv: Sequence[str], **options: Any) -> subprocess.Popen:
    """Start `argv` under the guard in a new session (`options` as for ``subprocess.Popen``).

    Raises:
        OSError: the guard itself cannot be started.
    """
    return subprocess.Popen(guarded_argv(argv), start_new_session=True, **options)


def kill_group(process: subprocess.Popen, wait: float = 5.0) -> None:
    """Kill the process group led by `process` (everything started in its session), then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        pass


def run_guarded(argv: Sequence[str], timeout: float, cwd: str | None = None) -> tuple[int, str, str]:
    """Run `argv` to its end under the guard; its exit code, stdout and stderr.

    The whole process group is killed on timeout or on any exception (Ctrl-C included).

    Raises:
        subprocess.TimeoutExpired: it ran longer than `timeout` seconds.
        OSError: it cannot be started.
    """
    process = start_guarded(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        output, errors = process.communicate(timeout=timeout)
    except BaseException:
        kill_group(process)
        raise
    return (process.returncode, output.decode("utf-8", "replace"),
            errors.decode("utf-8", "replace"))


def die_with_parent(parent: int, poll_seconds: float = 1.0) -> None:
    """Make this process exit when `parent` dies (a worker whose arena was killed with ``kill -9``).

    Linux kills it at once (``PR_SET_PDEATHSIG``); elsewhere a daemon thread checks the parent's pid.
    """
    if on_parent_death(signal.SIGKILL) and os.getppid() == parent:
        return

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
