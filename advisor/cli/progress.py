"""A live progress line on a terminal, and silence off a terminal."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from types import TracebackType
from typing import Any, Callable, Iterator

import click


class Spinner:
    """Shows ``label  1.3 s / 5.0 s`` on stderr while a long call runs, if stderr is a terminal."""

    def __init__(self, label: str, budget_seconds: float | None = None, enabled: bool | None = None):
        self.label = label
        self.budget = budget_seconds
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Spinner":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

    def _run(self) -> None:
        start = time.monotonic()
        frames = "|/-\\"
        tick = 0
        while not self._stop.wait(0.1):
            elapsed = time.monotonic() - start
            budget = f" / {self.budget:.1f} s" if self.budget else ""
            sys.stderr.write(f"\r{frames[tick % 4]} {self.label}  {elapsed:.1f} s{budget}")
            sys.stderr.flush()
            tick += 1


HEARTBEAT_SECONDS = 10.0
"""How often a long command reports progress on stderr when it is not a terminal."""


class Heartbeat:
    """A progress bar's stand-in off a terminal: a line on stderr every `interval` seconds
    (``selfplay: 12/40 done, 0.8/s, ETA 35 s``), so a piped or logged run is never silent."""

    def __init__(self, iterable: Any = None, length: int | None = None, label: str = "",
                 interval: float = HEARTBEAT_SECONDS, stream: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.iterable = iterable
        self.length = length if length is not None else (
            len(iterable) if hasattr(iterable, "__len__") else None)
        self.label = label or "working"
        self.interval = interval
        self.stream = stream
        self.clock = clock
        self.done = 0
        self.start = clock()
        self.last = self.start
        self.reported = False
        """Whether a line was written (then the end is reported too: ``40/40 done``)."""

    def __enter__(self) -> "Heartbeat":
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __iter__(self) -> Iterator[Any]:
        for item in self.iterable:
            yield item
            self.update(1)

    def update(self, count: int) -> None:
        """Count `count` more done; write a line if `interval` has passed since the last one, and
        the last one (``n/n done``) once everything is done if any was written."""
        self.done += count
        now = self.clock()
        finished = self.length is not None and self.done >= self.length and self.reported
        if now - self.last >= self.interval or (finished and now != self.last):
            self.last = now
            self.reported = True
            click.echo(self.line(now), err=True, file=self.stream)

    def line(self, now: float) -> str:
        """``label: done/total done, rate/s, ETA s``."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        total = f"/{self.length}" if self.length is not None else ""
        eta = ""
        if self.length is not None and rate > 0:
            eta = f", ETA {(self.length - self.done) / rate:.0f} s"
        return f"{self.label}: {self.done}{total} done, {rate:.2f}/s{eta}"


def progress_bar(iterable: Any = None, **options: Any) -> Any:
    """click's progress bar with an ETA on stderr when stderr is a terminal; else a
    :class:`Heartbeat` line every 10 s. Standard output stays free for tables and JSON."""
    if not sys.stderr.isatty():
        return Heartbeat(iterable, options.get("length"), options.get("label", ""))
    return click.progressbar(iterable, show_eta=True, file=sys.stderr, **options)


class ArenaDisplay:
    """`refuge arena`'s reports (``arena.match.ArenaReports``): summary lines on stdout, a tqdm bar of
    games on stderr while it is a terminal, the executor's waiting lines on stderr."""

    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.bar: Any = None

    def line(self, text: str) -> None:
        """A summary line, above the bar if there is one."""
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            click.echo(text)

    def played(self, done: int, total: int) -> None:
        """Move the bar to `done` of `total` games (started at the first report)."""
        if not self.enabled:
            return
        if self.bar is None:
            try:
                from tqdm import tqdm
            except ImportError:
                self.enabled = False
                return
            self.bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr, leave=False)
        else:
            self.bar.update(done - self.bar.n)

    def waiting(self, text: str) -> None:
        """A line from the executor while it waits for workers."""
        click.echo(text, err=True)

    def close(self) -> None:
        """Take the bar off the terminal."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@contextlib.contextmanager
def arena_interrupts(db: str) -> Iterator[None]:
    """Ctrl-C (or SIGTERM) during arena games: one line saying where the finished games are, exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished games are in {db}; rerun with --resume to go on", err=True)
        raise click.exceptions.Exit(130)
