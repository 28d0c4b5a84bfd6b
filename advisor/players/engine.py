"""The engine protocol ``refuge-engine/1`` (docs/engine-protocol.md): a JSON-lines server and its client.

`refuge engine --agent SPEC` serves any in-process agent on stdin/stdout; :class:`EngineClient` runs
such a program as a subprocess (with read timeouts) and :class:`EngineAgent` plays through it, so the
arena can pit this project against other programs and against older versions of itself.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import queue
import random
import subprocess
import sys
import tempfile
import threading
import time
from importlib import metadata
from typing import IO, Sequence


from advisor.players.specs import AgentSpec
from advisor.players.agents import Agent, SearchAgent
from positions import RULES_VERSION, RefugeError
from positions.actions import Action, action_from_code, parse_action
from positions.errors import InvalidActionError
from positions.position import Position
from positions.record import parse_record, replay
from positions.saved import parse_position, position_to_data

PROTOCOL = "refuge-engine/1"
"""The protocol name and version every ``identify`` answer carries."""
DEFAULT_AGENT = "ismcts:iterations=500"
START_TIMEOUT = 120.0
"""Seconds an engine may take to start and answer ``identify`` (a new venv imports numpy)."""
MAX_LINE = 1_000_000
"""Longest request line a server reads (a saved position is a few kilobytes)."""


class EngineError(RefugeError):
    """An engine that failed: it crashed, overran its time, broke the protocol or played illegally."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        """``crash``, ``timeout``, ``protocol`` or ``illegal``."""


# --- the server ---------------------------------------------------------------------------------------

def package_version() -> str:
    """This program's version, from its installed metadata."""
    try:
        return metadata.version("refuge-advisor")
    except metadata.PackageNotFoundError:
        return "unknown"


class EngineServer:
    """Answers protocol requests for one in-process agent; one request object in, one answer out."""

    def __init__(self, agent: Agent, spec: AgentSpec) -> None:
        self.agent = agent
        self.spec = spec
        self.position: Position | None = None

    def handle(self, request: object) -> dict[str, object]:
        """The answer to one decoded request (errors become ``{"error": ...}``)."""
        if not isinstance(request, dict) or not isinstance(request.get("cmd"), str):
            return {"error": 'expected an object with a "cmd" string'}
        command = request["cmd"]
        try:
            if command == "identify":
                return {"name": "refuge-advisor", "version": package_version(),
                        "rules_version": RULES_VERSION, "protocol": PROTOCOL, "agent": self.spec.text}
            if command == "position":
                self.position = parse_position(request.get("position"), "position").position
                return {"ok": True}
            if command == "game":
                self.position = replay(parse_record(request.get("game"), "game"), "game").final
                return {"ok": True}
            if command == "go":
                return self._go(request)
            if command == "quit":
                return {"ok": True}
        except (RefugeError, ValueError) as error:
            return {"error": " ".join(str(error).split())}
        return {"error": f"unknown cmd {command!r} (expected identify, position, game, go or quit)"}

    def _go(self, request: dict[str, object]) -> dict[str, object]:
        position = self.position
        if position is None:
            return {"error": "go: no position yet (send a position or game first)"}
        if position.current_player() < 0:
            return {"error": "go: the position is not a player's decision"}
        seed = request.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            return {"error": f"go: seed must be an integer, got {seed!r}"}
        agent = self._limited(request.get("limits"))
        if isinstance(agent, SearchAgent):
            agent.last = None
        action = agent.choose(position, random.Random(seed))
        answer: dict[str, object] = {"action": str(action)}
        if isinstance(agent, SearchAgent) and agent.last is not None:
            result = agent.last
            answer["stats"] = {
                "iterations": result.iterations, "seconds": round(result.seconds, 6),
                "visits": {str(action_from_code(s.action)): s.visits for s in result.actions},
                "win": round(result.stats(result.chosen).win, 6)}
        return answer

    def _limited(self, limits: object) -> Agent:
        """The agent, or a copy of a search agent with the request's iteration and time limits."""
        if limits is None or limits == {}:
            return self.agent
        if not isinstance(limits, dict) or set(limits) - {"iterations", "seconds"}:
            raise ValueError('go: limits must be an object with "iterations" and/or "seconds"')
        if not isinstance(self.agent, SearchAgent):
            return self.agent  # bots have no limits to set
        agent = copy.copy(self.agent)
        agent.template = dataclasses.replace(agent.template, iterations=limits.get("iterations"),
                                             seconds=limits.get("seconds"))
        return agent


def serve(agent: Agent, spec: AgentSpec, stdin: IO[str], stdout: IO[str]) -> None:
    """Answer requests from `stdin` on `stdout`, one JSON line each, until ``quit`` or end of input."""
    server = EngineServer(agent, spec)
    for number, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            answer: dict[str, object] = {"error": f"line {number}: longer than {MAX_LINE} characters"}
            request: object = None
        else:
            try:
                request = json.loads(line)
            except json.JSONDecodeError as error:
                request = None
                answer = {"error": f"line {number}: not JSON: {error.msg} at column {error.colno}"}
            else:
                answer = server.handle(request)
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()
        if isinstance(request, dict) and request.get("cmd") == "quit":
            return


# --- the client ----------------------------------------------------------------------------------------

class EngineClient:
    """A program speaking the engine protocol, run as a subprocess; every read has a timeout."""

    def __init__(self, argv: Sequence[str], label: str, cwd: str | None = None,
                 start_timeout: float = START_TIMEOUT) -> None:
        """Start the program and ask it to identify itself.

        Raises:
            EngineError: it cannot be started, or does not answer ``identify`` in time.
        """
        self.label = label
        self.argv = list(argv)
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                cwd=cwd, text=True, encoding="utf-8", bufsize=1)
        except OSError as error:
            self._stderr.close()
            raise EngineError("crash", f"{label}: cannot start {' '.join(self.argv)!r}: "
                              f"{error.strerror or error}") from None
        self.last_seconds = 0.0
        """How long the last answer took."""
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.identity = self.request({"cmd": "identify"}, start_timeout)
        if self.identity.get("protocol") != PROTOCOL:
            found = self.identity.get("protocol")
            self.close()
            raise EngineError("protocol", f"{label}: speaks protocol {found!r}, expected {PROTOCOL!r}")

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for line in stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self, lines: int = 3) -> str:
        """The last lines the engine wrote to stderr, joined with `` | ``."""
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:])

    def request(self, message: dict[str, object], timeout: float | None) -> dict[str, object]:
        """Send one request and wait at most `timeout` seconds (``None``: forever) for its answer.

        Raises:
            EngineError: the engine died, timed out, answered non-JSON or answered ``{"error": ...}``.
        """
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(message) from None
        start = time.monotonic()
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise EngineError("timeout", f"{self.label}: no answer to {message['cmd']!r} within "
                              f"{timeout:g} s") from None
        if line is None:
            raise self._died(message)
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise EngineError("protocol", f"{self.label}: answered {line.strip()[:80]!r} to "
                              f"{message['cmd']!r}, which is not JSON") from None
        if not isinstance(answer, dict):
            raise EngineError("protocol", f"{self.label}: answered {line.strip()[:80]!r}, not an object")
        if "error" in answer:
            raise EngineError("protocol", f"{self.label}: error on {message['cmd']!r}: "
                              f"{str(answer['error'])[:200]}")
        self.last_seconds = time.monotonic() - start
        return answer

    def _died(self, message: dict[str, object]) -> EngineError:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.stderr_tail()
        return EngineError("crash", f"{self.label}: exited (code {code}) on {message['cmd']!r}"
                           + (f": {tail}" if tail else ""))

    def is_alive(self) -> bool:
        """Whether the subprocess is still running."""
        return self.process.poll() is None

    def kill(self) -> None:
        """Stop the subprocess at once."""
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Ask the engine to quit, then make sure it has."""
        if self.is_alive():
            try:
                self.request({"cmd": "quit"}, 2.0)
            except EngineError:
                pass
        if self.process.stdin is not None:
            try:
                self.process.stdin.close()  # end of input also means quit
            except OSError:
                pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        self.kill()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        self._stderr.close()


class EngineAgent:
    """An agent played by an external engine: it is sent the position its player sees, then ``go``."""

    def __init__(self, name: str, argv: Sequence[str], cwd: str | None = None,
                 timeout: float | None = None, limits: dict[str, object] | None = None) -> None:
        self.name = name
        self.argv = list(argv)
        self.cwd = cwd
        self.timeout = timeout
        """Seconds allowed per decision (``None``: no limit)."""
        self.limits = limits or {}
        self.client: EngineClient | None = None
        self.last_stats: dict[str, object] | None = None

    def start(self) -> EngineClient:
        """The running engine, started (again, after a fault) if needed.

        Raises:
            EngineError: it cannot be started or does not identify itself.
        """
        if self.client is None or not self.client.is_alive():
            if self.client is not None:
                self.client.close()
                self.client = None
            self.client = EngineClient(self.argv, self.name, self.cwd)
        return self.client

    def choose(self, position: Position, rng: random.Random) -> Action:
        """The engine's action for the player to decide, seeded from `rng`.

        Raises:
            EngineError: crash, timeout, protocol error, or an answer that is not a legal action.
        """
        client = self.start()
        try:
            client.request({"cmd": "position", "position": position_to_data(position)}, self.timeout)
            go: dict[str, object] = {"cmd": "go", "seed": rng.getrandbits(63)}
            if self.limits:
                go["limits"] = self.limits
            answer = client.request(go, self.timeout)
        except EngineError:
            self.stop()
            raise
        text = answer.get("action")
        if not isinstance(text, str):
            raise EngineError("protocol", f"{self.name}: answered {answer!r} to 'go', no action")
        try:
            action = parse_action(text)
        except InvalidActionError as error:
            raise EngineError("illegal", f"{self.name}: {error}") from None
        if action not in position.legal_actions():
            raise EngineError("illegal", f"{self.name}: {text!r} is not legal here")
        stats = answer.get("stats")
        self.last_stats = stats if isinstance(stats, dict) else None
        return action

    def stop(self) -> None:
        """Stop the engine (the next decision starts it again)."""
        if self.client is not None:
            self.client.close()
            self.client = None


def engine_argv(spec: str, executable: str | None = None, isolated: bool = False) -> list[str]:
    """The command that runs this project's engine serving `spec` with `executable`'s environment.

    `isolated` runs Python with ``-I`` (no current directory, ``PYTHONPATH`` or user site on the path),
    so that the environment alone decides which copy of the project is imported.
    """
    python = executable or sys.executable
    return [python, *(["-I"] if isolated else []), "-c", "from advisor.cli import main; main()",
            "engine", "--agent", spec]
