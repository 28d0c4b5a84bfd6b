"""Serving the app on uvicorn: its settings, and a deadline for a request's headers.

uvicorn's h11 protocol closes an idle keep-alive connection (``timeout_keep_alive``) but waits
forever for a request that has begun and never finishes its headers, so a few hundred slow clients
(slowloris) would hold every connection. :class:`HeaderDeadline` closes such a connection
``header_seconds`` after its request began (after it opened, or after the previous response).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from advisor.web.config import WebConfig


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request's line and headers."""

    header_seconds = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:
            self._arm()  # a request is under way (or the next one): the deadline holds, not reset
        else:
            self._disarm()  # its headers are in

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._disarm()  # the keep-alive timeout takes over until the next request's first bytes

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self.header_timer is None:
            self.header_timer = self.loop.call_later(self.header_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _too_slow(self) -> None:
        self.header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def uvicorn_config(app: Any, config: WebConfig, **settings: Any) -> uvicorn.Config:
    """uvicorn's settings for `app`: h11 with :class:`HeaderDeadline` at ``config.header_seconds``,
    plus `settings` (host, port, log level, ...)."""
    protocol = type("HeaderDeadline", (HeaderDeadline,), {"header_seconds": config.header_seconds})
    return uvicorn.Config(app, http=protocol, **settings)
