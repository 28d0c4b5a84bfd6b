"""A bounded load test of `refuge serve` on loopback (not part of CI; docs/web.md has the numbers).

Starts the server on a free 127.0.0.1 port, then for --seconds runs --clients page clients (pages,
static files and JSON views in a closed loop) and --analyses analysis clients at once (each starts a
live analysis and follows its server-sent events; half stay until the server's time cap ends the
search, half leave after a few seconds, which must cancel it). Prints latency percentiles and checks
that every search ended capped or cancelled, with no search process left, then stops the server
with Ctrl-C (SIGINT) and checks it exits cleanly.

    .venv/bin/python -m lab.scripts.web_load --seconds 30 --clients 20 --analyses 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import httpx

PAGES = ["/", "/board", "/editor", "/review", "/track", "/static/common.js", "/static/style.css"]
EXAMPLES = ["opening-2p", "storm-one-away", "which-tile", "buy-bear-deer-or-save"]
GAME = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "blunder-game.json")
REQUEST_TIMEOUT = 15.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentiles(values: list[float]) -> str:
    if not values:
        return "no requests"
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return (f"n={len(values)}  p50 {pick(0.5):.1f} ms  p90 {pick(0.9):.1f} ms  p99 {pick(0.99):.1f} ms  "
            f"max {ordered[-1] * 1000:.1f} ms")


async def page_client(http: httpx.AsyncClient, until: float, rng: random.Random,
                      pages: list[float], api: list[float], errors: list[str]) -> None:
    """Open pages and views in a closed loop (50 ms between requests)."""
    while time.monotonic() < until:
        kind = rng.random()
        start = time.monotonic()
        try:
            if kind < 0.5:
                response = await http.get(rng.choice(PAGES))
                bucket = pages
            elif kind < 0.8:
                response = await http.post("/api/view", json={"example": rng.choice(EXAMPLES)})
                bucket = api
            else:
                response = await http.post("/api/view", json={"file": "game.json", "at": rng.randrange(142)})
                bucket = api
            bucket.append(time.monotonic() - start)
            if response.status_code != 200:
                errors.append(f"{response.request.url.path}: {response.status_code}")
        except httpx.HTTPError as error:
            errors.append(f"{type(error).__name__} after {time.monotonic() - start:.1f} s: {error}"[:120])
        await asyncio.sleep(0.05)


async def analysis_client(http: httpx.AsyncClient, until: float, rng: random.Random, stays: bool,
                          started: list[str], gaps: list[float], firsts: list[float],
                          errors: list[str]) -> None:
    """Start analyses one after another and follow each; leave early unless `stays`."""
    while time.monotonic() < until - 1:
        start = time.monotonic()
        response = await http.post("/api/analyses", json={"example": rng.choice(EXAMPLES), "seed": rng.randrange(99)})
        if response.status_code != 202:
            errors.append(f"start analysis: {response.status_code} {response.text[:80]}")
            await asyncio.sleep(0.5)
            continue
        job = response.json()["id"]
        started.append(job)
        leave_at = time.monotonic() + (rng.uniform(2, 4) if not stays else 3600)
        last_update = None
        async with http.stream("GET", f"/api/analyses/{job}/events") as stream:
            async for line in stream.aiter_lines():
                if not line.startswith("data: "):
                    continue
                data = json.loads(line[6:])
                now = time.monotonic()
                if data["state"] == "running" and data["result"]:
                    if last_update is None:
                        firsts.append(now - start)
                    else:
                        gaps.append(now - last_update)
                    last_update = now
                if data["state"] in ("capped", "cancelled", "failed", "done"):
                    break
                if now > leave_at or now > until:
                    break  # the client goes away: the server must cancel the search


@dataclass(frozen=True)
class LoadResult:
    """What the clients measured and what the server said at the end."""

    pages: list[float]
    api: list[float]
    errors: list[str]
    status: dict[str, Any]
    finals: list[dict[str, Any]]
    gaps: list[float]
    firsts: list[float]


async def run(url: str, seconds: float, clients: int, analyses: int) -> LoadResult:
    """Run the page and analysis clients for `seconds`, then wait for the server to settle."""
    limits = httpx.Limits(max_connections=clients + 2 * analyses + 4)
    timeout = httpx.Timeout(REQUEST_TIMEOUT, read=REQUEST_TIMEOUT)
    pages: list[float] = []
    api: list[float] = []
    errors: list[str] = []
    started: list[str] = []
    gaps: list[float] = []
    firsts: list[float] = []
    until = time.monotonic() + seconds
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as http:
        tasks = [page_client(http, until, random.Random(i), pages, api, errors) for i in range(clients)]
        tasks += [analysis_client(http, until, random.Random(100 + i), i % 2 == 0, started, gaps, firsts, errors)
                  for i in range(analyses)]
        await asyncio.gather(*tasks)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status = (await http.get("/api/status")).json()
            if status["processes"] == 0 and not any(status["jobs"].get(s) for s in ("queued", "running", "paused")):
                break
            await asyncio.sleep(0.2)
        finals = [(await http.get(f"/api/analyses/{job}")).json() for job in started]
    return LoadResult(pages, api, errors, status, finals, gaps, firsts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--analyses", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=6.0, help="the server's analysis time cap")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="refuge-load-")
    shutil.copy(GAME, os.path.join(folder, "game.json"))
    port = free_port()
    refuge = [sys.executable, "-m", "advisor"]  # this interpreter's `refuge`
    server = subprocess.Popen([*refuge, "serve", "--port", str(port), "--games", folder,
                               "--max-seconds", str(args.max_seconds)], stdout=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{url}/api/status", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
        result = asyncio.run(run(url, args.seconds, args.clients, args.analyses))
    finally:
        server.send_signal(signal.SIGINT)
        code: int | None
        try:
            code = server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
            code = None
        shutil.rmtree(folder, ignore_errors=True)
    finals = result.finals
    states: dict[str, int] = {}
    for job in finals:
        key = f"{job['state']}:{job['reason']}"
        states[key] = states.get(key, 0) + 1
    gaps = result.gaps
    print(f"{args.clients} page clients + {args.analyses} analysis clients for {args.seconds:.0f} s on {url} "
          f"({os.cpu_count()} cores, analysis time cap {args.max_seconds} s)")
    print(f"pages and static files: {percentiles(result.pages)}")
    print(f"JSON views:             {percentiles(result.api)}")
    print(f"analysis first report:  {percentiles(result.firsts)}")
    if gaps:
        print(f"analysis updates:       {len(gaps)} gaps, median {statistics.median(gaps) * 1000:.0f} ms "
              f"(= {1 / statistics.median(gaps):.1f} updates/s), p90 {sorted(gaps)[int(0.9 * len(gaps))] * 1000:.0f} ms")
    print(f"analyses started: {len(finals)}; final states: {states}")
    print(f"server status after: {result.status}")
    errors = result.errors
    print(f"errors: {len(errors)} {sorted(set(errors))[:5] if errors else ''}")
    print(f"server exit on Ctrl-C: {code}")
    bad = [j for j in finals if j["state"] not in ("capped", "cancelled")]
    leftover = result.status["processes"]
    ok = not bad and not leftover and not errors and code == 0
    print("OK: every search capped or cancelled, no process left" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
