"""Ctrl-C and SIGTERM reach a pool's run between its waits, never inside the pool's locks.

CI once saw an arena that never answered Ctrl-C: a ``KeyboardInterrupt`` raised while the main thread
was inside ``concurrent.futures.wait`` can leave a future's lock held, and the pool's manager thread
then blocks on it for ever.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from advisor.arena.executors import Runner, SerialExecutor, deferred_interrupts, run_tasks


def _slow_square(task: tuple[int, float]) -> int:
    number, seconds = task
    time.sleep(seconds)
    return number * number


def test_a_signal_inside_only_sets_the_event_and_the_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with deferred_interrupts() as interrupted:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs between this thread's bytecodes
        assert interrupted.is_set()
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    with pytest.raises(KeyboardInterrupt):  # outside, Ctrl-C raises again at once
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)


def test_an_ignored_signal_stays_ignored() -> None:
    """A background job ignores Ctrl-C (its shell set SIG_IGN): deferring must not undo that."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with deferred_interrupts() as interrupted:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            assert not interrupted.is_set()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_serial_run_is_not_deferred() -> None:
    """With one worker the games play in this thread: Ctrl-C must stop them mid-game."""
    with deferred_interrupts(enabled=False) as interrupted:
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert not interrupted.is_set()
    runner = Runner(1)
    assert isinstance(runner.executor, SerialExecutor)
    runner.shutdown()


def test_ctrl_c_during_a_result_lets_it_finish_then_stops_the_run() -> None:
    """The result being stored when Ctrl-C comes is stored whole; then the run stops at once."""
    runner = Runner(2)
    handled: list[int] = []

    def on_result(task: tuple[int, float], result: int) -> bool:
        if not handled:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a KeyboardInterrupt raised here would lose this result
        handled.append(result)
        return False

    tasks = [(n, 0.0 if n == 0 else 0.5) for n in range(40)]
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tasks(runner, _slow_square, tasks, (), on_result)
    finally:
        runner.abort()
    assert handled[0] == 0 and len(handled) < len(tasks)
    assert time.monotonic() - started < 10  # 40 half-second tasks on 2 workers would take 10 s
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
