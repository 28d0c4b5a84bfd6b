"""The checks every request passes before a view sees it (ASGI middleware, docs/web.md "Security").

In order: the ``Host`` is one of the server's names (else 421: a DNS-rebinding page names its own
host); the token, when the server has one (else 403); an ``Origin``, when the browser sends one, is
the server's own (else 403: another site's page); a POST's ``Content-Type`` is ``application/json``
(else 415: a cross-site form or no-cors fetch can send only text/plain, urlencoded or multipart, and
a JSON request from another origin needs a preflight, which this server never answers).
"""

from __future__ import annotations

import hmac
import re
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from advisor.web.config import WebConfig
from advisor.web.errors import error_response

TOKEN_COOKIE = "refuge_token"
TOKEN_HEADER = b"x-refuge-token"


HOST = re.compile(r"(?:\[(?P<ip6>[0-9A-Fa-f:.]+)\]|(?P<name>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?))"
                  r"(?::(?P<port>[0-9]{1,5}))?")
"""A ``Host`` value as RFC 9110 has it: a name or ``[IPv6]``, then an optional port of digits; no
user info, path, spaces or second colon."""


def host_name(host: str) -> str | None:
    """The name of a ``Host`` value (or an origin's netloc), without the port or IPv6 brackets;
    ``None`` when it is not a well-formed host (``127.0.0.1:80@evil.example``, ``a:1:2``, ...)."""
    match = HOST.fullmatch(host)
    if match is None or int(match["port"] or 0) > 65535:
        return None
    return (match["ip6"] or match["name"]).lower()


class Guard:
    """ASGI middleware: Host allowlist, token, same origin, JSON content type (module docstring)."""

    def __init__(self, app: ASGIApp, config: WebConfig) -> None:
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in config.hosts}
        self.token = config.token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        hosts = sum(name == b"host" for name, _ in scope["headers"])
        refusal = (400, "a request must carry exactly one Host header") if hosts > 1 else \
            self.refusal(scope, headers)
        if refusal is not None:
            status, message = refusal
            await error_response(status, message)(scope, receive, send)
            return
        if self.token and self._query_token(scope) is not None:
            await self.app(scope, receive, self._setting_cookie(send))
            return
        await self.app(scope, receive, send)

    def refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        """The status and message a request is refused with, or ``None``."""
        host = headers.get("host", "")
        if host_name(host) not in self.hosts:
            return 421, (f"Host {host[:60]!r} is not a name of this server (refuse DNS rebinding; "
                         f"start it with --allow-host NAME to allow a name)")
        if self.token and not self._has_token(scope, headers):
            return 403, "this server needs its token: open the URL it printed (…/?token=…)"
        origin = headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, f"cross-origin request refused (Origin {origin[:60]!r})"
        if scope["method"] == "POST":
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind != "application/json":
                return 415, "a POST must be Content-Type: application/json"
        return None

    def _query_token(self, scope: Scope) -> str | None:
        values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
        return values[0] if values else None

    def _has_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        given = [self._query_token(scope), headers.get(TOKEN_HEADER.decode())]
        auth = headers.get("authorization", "")
        if auth.lower().startswith("token "):
            given.append(auth[6:].strip())
        cookie: SimpleCookie = SimpleCookie()
        try:
            cookie.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header is no token
            pass
        if TOKEN_COOKIE in cookie:
            given.append(cookie[TOKEN_COOKIE].value)
        return any(value is not None and hmac.compare_digest(value.encode(), self.token.encode())
                   for value in given)

    def _setting_cookie(self, send: Send) -> Send:
        """`send` adding the token cookie, so the page's own requests carry it from then on."""
        cookie = f"{TOKEN_COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()

        async def with_cookie(message: dict) -> None:  # type: ignore[type-arg]
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + [(b"set-cookie", cookie)]
            await send(message)

        return with_cookie  # type: ignore[return-value]
