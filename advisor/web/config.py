"""The server's settings and safety caps, fixed when the app is built."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""Names a browser on this machine uses for a loopback server (always allowed as ``Host``)."""


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
    max_paused: int = 0
    """Paused analyses kept at once (each holds a search process); 0: twice the slots. Pausing one
    more cancels the one paused longest ago."""
    max_tracked: int = 200
    """Tracked games in the folder at most; starting one more is refused."""
    max_problems: int = 50
    """Problems listed in one answer (the count says how many there were)."""
    hosts: tuple[str, ...] = field(default=LOOPBACK_HOSTS)
    """``Host`` names a request may use (without the port); others get 421 (DNS rebinding)."""
    header_seconds: float = 10.0
    """A connection that has not sent a whole request line and headers this long after the request
    began is closed (slow clients cannot hold connections open)."""
    token: str = ""
    """When set, every request must carry it (``?token=`` once, then a cookie, or a header)."""

    def __post_init__(self) -> None:
        if self.slots < 1 or self.max_jobs < 1:
            raise ValueError("slots and max_jobs must be at least 1")

    @property
    def paused_cap(self) -> int:
        """:attr:`max_paused`, its default resolved."""
        return self.max_paused or 2 * self.slots
