"""Run a command in its own session and kill that whole session when the process that started us dies.

Usage: ``python -I -S process_guard.py PARENT_PID COMMAND [ARG...]``. Run as a script, standard library
only (it must start in milliseconds). The guard is the session leader: it forks the command, hands it
its stdin, stdout and stderr, keeps none of them open itself (so the command's end of input and end of
output are the command's own), and waits. It exits as the command did (its code, or the same signal).
If PARENT_PID goes away first — killed with ``kill -9``, say — it kills the whole session, the command
and anything the command started. On Linux the kernel tells it at once (``PR_SET_PDEATHSIG``);
elsewhere it checks its parent every :data:`POLL_SECONDS`.
"""

from __future__ import annotations

import os
import signal
import sys
import time

POLL_SECONDS = 0.25
PR_SET_PDEATHSIG = 1


def kill_session(*_: object) -> None:
    """Kill every process of this session, the guard included."""
    os.killpg(0, signal.SIGKILL)


def on_parent_death(number: int) -> bool:
    """Ask Linux to send signal `number` when our parent dies; whether that could be arranged."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, number, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def exit_as(status: int) -> None:
    """Exit the way a child with wait status `status` did: with its code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        os._exit(128 + number)  # a signal that does not kill: report it as a shell does
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    """Start the command, then wait for it or for our parent's death."""
    parent, command = int(argv[0]), argv[1:]
    if os.getpgrp() != os.getpid():
        os.setsid()  # never kill a group we do not lead (the starter's, when run by hand)
    signal.signal(signal.SIGTERM, kill_session)
    by_signal = on_parent_death(signal.SIGTERM)
    if os.getppid() != parent:  # the parent died before we could watch it
        kill_session()
    child = os.fork()
    if child == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as error:
            os.write(2, f"cannot start {command[0]!r}: {error.strerror or error}\n".encode())
        os._exit(127)
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    while True:
        if by_signal:
            _, status = os.waitpid(child, 0)
            exit_as(status)
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            exit_as(status)
        if os.getppid() != parent:
            kill_session()
        time.sleep(POLL_SECONDS)


if __name__ == "__main__":
    main(sys.argv[1:])
