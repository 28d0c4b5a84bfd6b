"""The server's settings and safety caps, fixed when the app is built."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class WebConfig:
    """Where games live and how much one client may ask of the server."""

    games_dir: str = "."
    """Game records are read from and tracked games written to this folder only (never below it)."""
    max_body_bytes: int = 4 * 1024 * 1024
    """The largest request body (an uploaded position or record travels inside one)."""
    max_file_bytes: int = 4 * 1024 * 1024
    """The largest game file read from ``games_dir``."""
    max_iterations: int = 200_000
    """An analysis stops after this many iterations."""
    max_seconds: float = 60.0
    """An analysis (or annotation) stops after this much running time (pauses do not count)."""
    max_annotate_iterations: int = 2_000
    """Iterations per decision an annotation may ask for."""
    slots: int = os.cpu_count() or 1
    """Searches running at once (one per core); more wait in a queue."""
    max_jobs: int = 32
    """Analyses and annotations held at once (queued, running, paused or recently finished)."""
    idle_seconds: float = 15.0
    """A job nobody has listened to or asked about for this long is cancelled."""
    update_seconds: float = 0.2
    """How often a running analysis reports (at least twice a second)."""

    def __post_init__(self) -> None:
        if self.slots < 1 or self.max_jobs < 1:
            raise ValueError("slots and max_jobs must be at least 1")
