"""What every view uses: the server's parts, the checked JSON body, typed fields, JSON answers."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Callable, Collection, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request

from advisor.web.config import WebConfig
from advisor.web.errors import ApiError, clip
from advisor.web.jobs import JobManager
from advisor.web.tracker import Tracker
from positions.errors import MalformedFileError
from positions.validation import did_you_mean, json_path, parse_json

LOG = logging.getLogger("refuge.web")
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
T = TypeVar("T")


@dataclass
class Server:
    """The parts of one running server that views share."""

    config: WebConfig
    jobs: JobManager
    tracker: Tracker


def server(request: Request) -> Server:
    """The server a request came to."""
    parts = request.app.state.server
    assert isinstance(parts, Server)
    return parts


async def off_loop(work: Callable[..., T], *args: Any) -> T:
    """`work(*args)` in the thread pool (reading, replaying, validating a game)."""
    return await run_in_threadpool(work, *args)


async def body_of(request: Request, fields: Collection[str] = ()) -> dict[str, Any]:
    """The request's JSON object (parsed off the event loop), holding only the names in `fields`.

    Raises:
        ApiError: 400 when the body is not a JSON object, 422 naming the field of a string that
            cannot be encoded (a lone surrogate) or a field the endpoint does not read, 400 when
            the client left mid-body.
    """
    try:
        raw = await request.body()
    except ClientDisconnect:
        LOG.info("client disconnected before sending its whole request: %s %s", request.method,
                 request.url.path)
        raise ApiError(400, "the client disconnected mid-request") from None
    body = await off_loop(parse_body, raw)
    unknown = next((key for key in body if key not in fields), None)
    if unknown is not None:
        expected = f"expected {', '.join(fields)}" if fields else "this endpoint reads no field"
        raise ApiError(422, f"{clip(unknown, 40)}: unknown field ({expected})"
                       + did_you_mean(unknown, list(fields)))
    return body


def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object (see :func:`body_of`)."""
    try:  # the shared JSON reader: depth guard, each key once
        data = parse_json((raw or b"{}").decode("utf-8"), "body")
    except UnicodeDecodeError:
        raise ApiError(400, "body: not UTF-8") from None
    except MalformedFileError as error:
        raise ApiError(400, clip(" ".join(str(error).split()))) from None
    if not isinstance(data, dict):
        raise ApiError(400, "body: expected a JSON object")
    if SURROGATE_ESCAPE.search(raw):  # valid UTF-8 holds no surrogate; only a \u escape can
        found = _unencodable(data, ())
        if found is not None:
            path, what = found
            raise ApiError(422, f"{json_path(path)}: a {what} with a lone surrogate (not Unicode text)")
    return data


def _unencodable(value: object, path: tuple[str | int, ...]) -> tuple[tuple[str | int, ...], str] | None:
    """The JSON path of the first string that is not encodable as UTF-8, and whether it is a
    ``string`` or a ``key`` (of the object at that path)."""
    stack: list[tuple[object, tuple[str | int, ...]]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return where, "string"
        elif isinstance(item, dict):
            for key, child in item.items():
                try:
                    key.encode("utf-8")
                except UnicodeEncodeError:
                    return where, "key"
                stack.append((child, where + (key,)))
        elif isinstance(item, list):
            stack.extend((child, where + (i,)) for i, child in enumerate(item))
    return None


def int_field(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    """An integer field from `low` to `high`.

    Raises:
        ApiError: 422 naming the field.
    """
    value = body.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ApiError(422, f"{name}: expected an integer from {low} to {high}")
    return value


def choice_field(body: dict[str, Any], name: str, default: str, choices: Any) -> str:
    """A string field that must be one of `choices`.

    Raises:
        ApiError: 422 naming the field and the choices.
    """
    value = body.get(name, default)
    if not isinstance(value, str) or value not in choices:
        raise ApiError(422, f"{name}: expected one of {', '.join(map(str, choices))}")
    return value


def seed_of(body: dict[str, Any]) -> int:
    """The ``seed`` field (default 0).

    Raises:
        ApiError: 422 when it is not a non-negative integer below 2**63.
    """
    return int_field(body, "seed", 0, 0, 2**63 - 1)
