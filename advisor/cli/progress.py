"""A live progress line on a terminal, and silence off a terminal."""

from __future__ import annotations

import io
import sys
import threading
import time
from types import TracebackType
from typing import Any

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


def progress_bar(iterable: Any = None, **options: Any) -> Any:
    """click's progress bar with an ETA on stderr when stderr is a terminal; silent otherwise.

    Standard output stays free for tables and JSON.
    """
    stream = sys.stderr if sys.stderr.isatty() else io.StringIO()
    return click.progressbar(iterable, show_eta=True, file=stream, **options)
