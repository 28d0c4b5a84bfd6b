"""The engine protocol ``refuge-engine/1`` (docs/engine-protocol.md): a JSON-lines server and its client.

`refuge engine --agent SPEC` serves any in-process agent on stdin/stdout; :class:`EngineClient` runs
such a program as a subprocess (with read timeouts) and :class:`EngineAgent` plays through it, so the
arena can pit this project against other programs and against older versions of itself.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import random
import select
import shutil
import subprocess
import sys
import queue
import tempfile
import threading
import time
from dataclasses import dataclass
from importlib import metadata
from typing import IO, Callable, Iterator, Sequence

from advisor.players.agents import Agent, Foresees, SearchAgent, make_agent
from advisor.players.processes import kill_group, start_guarded
from advisor.players.specs import AgentSpec, AgentSpecError, parse_agent_spec
from positions import RULES_VERSION, RefugeError
from positions.kernel.actions import Action, action_from_code, parse_action
from positions.errors import InvalidActionError, MalformedFileError
from positions.kernel.position import Position
from positions.record import parse_record, replay
from positions.render import printable
from positions.saved import parse_position, position_to_data
from positions.kernel.view import seat_view
from positions.validation import parse_json
from search.seeds import seed_from_stream
from search.request import SearchResult

PROTOCOL = "refuge-engine/1"
"""The protocol name and version every ``identify`` answer carries."""
DEFAULT_AGENT = "ismcts:iterations=500"
START_TIMEOUT = 120.0
"""Seconds an engine may take to start and answer ``identify`` (a new venv imports numpy)."""
MAX_LINE = 1_000_000
"""Longest line, in bytes, either side reads (a saved position is a few kilobytes)."""


INFO_SECONDS = 0.25
"""How often a ``go`` with the ``info`` option on writes an ``info`` line while it searches."""
PROGRESS_EVERY = 1
"""Iterations between the checks a watched search makes for ``stop`` (and for an ``info`` line due):
every iteration, so a ``stop`` is answered within one iteration (milliseconds)."""
READ_AHEAD = 1024
"""Lines read ahead of the one being answered at most (then reading waits: memory stays bounded)."""
INFINITE_ITERATIONS = 10 ** 9
"""The budget of ``go`` with ``"infinite": true``: in effect, until ``stop`` or the end of input."""
OPTIONS: dict[str, tuple[type, object]] = {"multipv": (int, 1), "info": (bool, False)}
"""``setoption`` names, their types and defaults: ``multipv`` options in each answer and ``info``
line (ranked by visits, the engine's choice first); ``info``: stream ``info`` lines while searching."""


MAX_MESSAGE = 500
"""Characters of a fault message kept (an engine's answer or stderr can be any size)."""
STDERR_TAIL_BYTES = 4096
"""How much of the end of an engine's stderr is read for the reason of a crash."""


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """`text` on one line, control characters escaped, cut to `limit` characters."""
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


class EngineError(RefugeError):
    """An engine that failed: it crashed, overran its time, broke the protocol or played illegally."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(one_line(message))
        self.kind = kind
        """``crash``, ``timeout``, ``protocol`` or ``illegal``."""


# --- the server ---------------------------------------------------------------------------------------

def package_version() -> str:
    """This program's version, from its installed metadata."""
    try:
        return metadata.version("refuge-advisor")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Watch:
    """What a running ``go`` listens to and writes through (:func:`serve` makes one per request)."""

    stop_requested: Callable[[], bool]
    """A ``stop`` line has arrived since this request."""
    input_ended: Callable[[], bool]
    """The input has ended (stops an infinite search; a limited one runs to its budget)."""
    emit: Callable[[dict[str, object]], None]
    """Write one line (an ``info`` line) before the answer."""


def option_rows(result: SearchResult, count: int) -> list[dict[str, object]]:
    """The `count` most visited options (the engine plays the most visited): action, win share with
    its 95% noise interval, expected score, visits."""
    ranked = sorted(result.actions, key=lambda s: (-s.visits, -s.win))[:count]
    return [{"action": str(action_from_code(s.action)), "win": round(s.win, 6),
             "ci95": [round(s.ci_low, 6), round(s.ci_high, 6)], "score": round(s.score, 4),
             "visits": s.visits} for s in ranked]


def info_line(result: SearchResult, multipv: int) -> dict[str, object]:
    """An ``info`` line of a growing search: iterations, seconds, the option it would play now
    (most visited) and its win share, and the top `multipv` options."""
    best = max(result.actions, key=lambda s: (s.visits, s.win))
    return {"info": {"iterations": result.iterations, "seconds": round(result.seconds, 3),
                     "best": str(action_from_code(best.action)), "win": round(best.win, 6),
                     "options": option_rows(result, multipv)}}


class EngineServer:
    """Answers protocol requests for one in-process agent; one request object in, one answer out
    (a ``go`` watched by :func:`serve` also writes ``info`` lines and listens for ``stop``)."""

    def __init__(self, agent: Agent, spec: AgentSpec) -> None:
        self.agent = agent
        self.spec = spec
        self.position: Position | None = None
        self.options: dict[str, object] = {name: default for name, (_, default) in OPTIONS.items()}

    def handle(self, request: object, watch: Watch | None = None) -> dict[str, object]:
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
                return self._go(request, watch)
            if command == "setoption":
                return self._setoption(request)
            if command in ("stop", "quit"):
                return {"ok": True}  # a stop has already ended the search it arrived during
        except (RefugeError, ValueError) as error:
            return {"error": " ".join(str(error).split())}
        return {"error": f"unknown cmd {command!r} (expected identify, position, game, go, "
                         f"setoption, stop or quit)"}

    def _setoption(self, request: dict[str, object]) -> dict[str, object]:
        """Set one option of :data:`OPTIONS` for the requests that follow."""
        name, value = request.get("name"), request.get("value")
        if not isinstance(name, str) or name not in OPTIONS:
            return {"error": f"setoption: unknown option {name!r} (expected {' or '.join(OPTIONS)})"}
        kind, _ = OPTIONS[name]
        fits = (isinstance(value, bool) if kind is bool else
                isinstance(value, int) and not isinstance(value, bool) and value >= 1)
        if not fits:
            wanted = "true or false" if kind is bool else "an integer >= 1"
            return {"error": f"setoption: {name} must be {wanted}, got {value!r}"}
        self.options[name] = value
        return {"ok": True}

    def _go(self, request: dict[str, object], watch: Watch | None = None) -> dict[str, object]:
        position = self.position
        if position is None:
            return {"error": "go: no position yet (send a position or game first)"}
        if position.current_player() < 0:
            return {"error": "go: the position is not a player's decision"}
        seed = request.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            return {"error": f"go: seed must be an integer, got {seed!r}"}
        infinite = request.get("infinite", False)
        if not isinstance(infinite, bool):
            return {"error": f"go: infinite must be true or false, got {infinite!r}"}
        if infinite and request.get("limits") not in (None, {}):
            return {"error": "go: give limits or infinite, not both"}
        agent = self._limited({"iterations": INFINITE_ITERATIONS} if infinite else request.get("limits"))
        watched = isinstance(agent, SearchAgent) and agent.template.workers == 1
        if infinite and isinstance(agent, SearchAgent) and not watched:
            return {"error": "go: infinite needs a search agent with workers=1 (stop reaches one process)"}
        if isinstance(agent, SearchAgent):
            agent.last = None
        rng = random.Random(seed)
        view = seat_view(position, position.current_player(), rng)
        stopped = [False]
        if watched and watch is not None:
            assert isinstance(agent, SearchAgent)
            hook = self._watcher(watch, infinite, stopped)
            action = agent.choose(view, rng, on_progress=hook, progress_every=PROGRESS_EVERY)
        else:
            action = agent.choose(view, rng)
        answer: dict[str, object] = {"action": str(action)}
        if isinstance(agent, SearchAgent) and agent.last is not None:
            result = agent.last
            answer["stats"] = {
                "iterations": result.iterations, "seconds": round(result.seconds, 6),
                "visits": {str(action_from_code(s.action)): s.visits for s in result.actions},
                "win": round(result.stats(result.chosen).win, 6)}
            multipv = self.options["multipv"]
            assert isinstance(multipv, int)
            if multipv > 1:
                answer["options"] = option_rows(result, multipv)
        if stopped[0]:
            answer["stopped"] = True
        return answer

    def _watcher(self, watch: Watch, infinite: bool, stopped: list[bool]
                 ) -> Callable[[SearchResult, object], bool | None]:
        """The hook a watched search calls: an ``info`` line every ``INFO_SECONDS`` (option
        ``info``), and ``False`` (stop) once a ``stop`` arrives, or the input ends under ``infinite``."""
        multipv = self.options["multipv"]
        assert isinstance(multipv, int)
        streaming = bool(self.options["info"])
        due = [time.monotonic() + INFO_SECONDS]

        def hook(so_far: SearchResult, live: object) -> bool | None:
            if watch.stop_requested() or (infinite and watch.input_ended()):
                stopped[0] = True
                return False
            now = time.monotonic()
            if streaming and now >= due[0]:
                watch.emit(info_line(so_far, multipv))
                due[0] = now + INFO_SECONDS
            return None

        return hook

    def _limited(self, limits: object) -> Agent:
        """The agent, or a copy of a search agent with the request's iteration and time limits."""
        if limits is None or limits == {}:
            return self.agent
        if not isinstance(limits, dict) or set(limits) - {"iterations", "seconds"}:
            raise ValueError('go: limits must be an object with "iterations" and/or "seconds"')
        if not isinstance(self.agent, SearchAgent):
            return self.agent  # bots have no limits to set
        agent = copy.copy(self.agent)
        agent.template = agent.template.replace(iterations=limits.get("iterations"), seconds=limits.get("seconds"))
        return agent


def request_lines(stream: IO[str] | IO[bytes], limit: int = MAX_LINE) -> Iterator[str | None]:
    """Each line of `stream` (text or bytes), or ``None`` for one longer than `limit` or not UTF-8.

    An overlong line is skipped to its end without being held in memory.
    """
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and line[-1:] not in ("\n", b"\n"):
            while line and line[-1:] not in ("\n", b"\n"):
                line = stream.readline(limit + 1)
            yield None
            continue
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                yield None
                continue
        yield line


class LineFeed:
    """The request lines of `stdin`, read ahead by a thread so that a ``stop`` reaches the search
    running in the main thread at once (every other line waits its turn, in order)."""

    def __init__(self, stdin: IO[str] | IO[bytes]) -> None:
        self.lines: queue.Queue[tuple[int, str | None] | None] = queue.Queue(maxsize=READ_AHEAD)
        self.last_stop = 0
        """The number of the last ``stop`` line read (0: none yet)."""
        self.ended = False
        threading.Thread(target=self._read, args=(stdin,), daemon=True).start()

    def _read(self, stdin: IO[str] | IO[bytes]) -> None:
        try:
            for number, line in enumerate(request_lines(stdin), 1):
                if line is not None and '"stop"' in line and _is_stop(line):
                    self.last_stop = number
                self.lines.put((number, line))
        except (OSError, ValueError):
            pass  # an input that cannot be read any more ends as the end of input does
        finally:
            self.ended = True
            self.lines.put(None)

    def __iter__(self) -> Iterator[tuple[int, str | None]]:
        while True:
            item = self.lines.get()
            if item is None:
                return
            yield item

    def watch(self, number: int, emit: Callable[[dict[str, object]], None]) -> Watch:
        """What the request on line `number` listens to: stops read after it, the end of input."""
        return Watch(lambda: self.last_stop > number, lambda: self.ended, emit)


def _is_stop(line: str) -> bool:
    try:
        request = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply: the main loop says so
        return False
    return isinstance(request, dict) and request.get("cmd") == "stop"


def serve(agent: Agent, spec: AgentSpec, stdin: IO[str] | IO[bytes], stdout: IO[str]) -> None:
    """Answer requests from `stdin` on `stdout`, one JSON line each, until ``quit`` or end of input.

    Every line gets one answer, whatever it holds: too long, not UTF-8, not JSON, nested too deeply
    or a request the agent fails on are all ``{"error": ...}``, and the server goes on. A ``go``
    may write ``info`` lines before its answer (option ``info``); a ``stop`` ends the search under
    way, whose answer comes at once, followed by the stop's own.
    """
    server = EngineServer(agent, spec)

    def write(answer: dict[str, object]) -> None:
        stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        stdout.flush()

    feed = LineFeed(stdin)
    for number, line in feed:
        request: object = None
        if line is None:
            answer: dict[str, object] = {"error": f"line {number}: longer than {MAX_LINE} bytes or "
                                                  "not UTF-8"}
        elif not line.strip():
            continue
        else:
            try:
                request = parse_json(line, f"line {number}")
            except MalformedFileError as error:
                answer = {"error": one_line(str(error))}
            else:
                try:
                    answer = server.handle(request, feed.watch(number, write))
                except Exception as error:  # noqa: BLE001 - one bad request must not end the server
                    answer = {"error": one_line(f"{type(error).__name__}: {error}")}
        write(answer)
        if isinstance(request, dict) and request.get("cmd") == "quit":
            return


# --- the client ----------------------------------------------------------------------------------------

class _LineReader:
    """Lines from a pipe, each read before a deadline and at most `limit` bytes long (no thread)."""

    def __init__(self, descriptor: int, limit: int) -> None:
        self.descriptor = descriptor
        self.limit = limit
        self.buffer = bytearray()
        os.set_blocking(descriptor, False)

    def read_line(self, deadline: float | None) -> bytes | None:
        """The next line without its newline, or ``None`` at the end of output.

        Raises:
            TimeoutError: no whole line by the deadline.
            OverflowError: more than `limit` bytes without a newline.
        """
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[:end + 1]
                return line
            if len(self.buffer) > self.limit:
                raise OverflowError
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.descriptor], [], [], left)
            if not ready:
                raise TimeoutError
            try:
                chunk = os.read(self.descriptor, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return None
            self.buffer += chunk


def _find_program(argv: Sequence[str], cwd: str | None) -> str | None:
    """Why `argv` cannot be started (``None``: it can, as far as we can tell)."""
    if not argv:
        return "empty command"
    program = argv[0]
    if os.sep in program:
        path = os.path.join(cwd or "", program)
        if not os.path.isfile(path):
            return "No such file or directory"
        return None if os.access(path, os.X_OK) else "Permission denied (not executable)"
    return None if shutil.which(program) else "No such file or directory (not on PATH)"


class EngineClient:
    """A program speaking the engine protocol, run in its own session; every read has a deadline.

    The program runs under :mod:`advisor.players.process_guard`, so that it and anything it starts
    die with this process; on a timeout, a fault or :meth:`close` its whole process group is killed.
    Answers are read from the raw pipe: at most :data:`MAX_LINE` bytes a line, UTF-8, JSON.
    """

    def __init__(self, argv: Sequence[str], label: str, cwd: str | None = None,
                 start_timeout: float = START_TIMEOUT) -> None:
        """Start the program and ask it to identify itself.

        Raises:
            EngineError: it cannot be started, or does not answer ``identify`` in time.
        """
        self.label = label
        self.argv = list(argv)
        missing = _find_program(self.argv, cwd)
        if missing is not None:
            raise EngineError("crash", f"{label}: cannot start {' '.join(self.argv)!r}: {missing}")
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self.process = start_guarded(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._stderr, cwd=cwd)
        except OSError as error:
            self._stderr.close()
            raise EngineError("crash", f"{label}: cannot start {' '.join(self.argv)!r}: "
                              f"{error.strerror or error}") from None
        assert self.process.stdout is not None and self.process.stdin is not None
        self._answers = _LineReader(self.process.stdout.fileno(), MAX_LINE)
        os.set_blocking(self.process.stdin.fileno(), False)
        self.last_seconds = 0.0
        """How long the last answer took."""
        try:
            self.identity = self.request({"cmd": "identify"}, start_timeout)
        except EngineError:
            self.close()  # pipes, stderr file and anything it started
            raise
        if self.identity.get("protocol") != PROTOCOL:
            found = self.identity.get("protocol")
            self.close()
            raise EngineError("protocol", f"{label}: speaks protocol {found!r}, expected {PROTOCOL!r}")

    def stderr_tail(self, lines: int = 3) -> str:
        """The last lines the engine wrote to stderr (from its last few kilobytes), joined by `` | ``."""
        try:
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - STDERR_TAIL_BYTES))
            text = self._stderr.read(STDERR_TAIL_BYTES).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        width = MAX_MESSAGE // (lines + 1)  # room for every line and the message around them
        return " | ".join(one_line(line, width) for line in text.strip().splitlines()[-lines:])

    def _send(self, data: bytes, deadline: float | None) -> bool:
        """Write all of `data` to the engine before the deadline; False if it cannot take it."""
        stdin = self.process.stdin
        assert stdin is not None
        view = memoryview(data)
        while view:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            _, ready, _ = select.select([], [stdin.fileno()], [], left)
            if not ready:
                return False
            try:
                view = view[os.write(stdin.fileno(), view):]
            except BlockingIOError:
                continue
        return True

    def request(self, message: dict[str, object], timeout: float | None) -> dict[str, object]:
        """Send one request and wait at most `timeout` seconds (``None``: forever) for its answer.

        Raises:
            EngineError: the engine died, timed out, answered something that is not a one-line JSON
                object in UTF-8, or answered ``{"error": ...}``.
        """
        command = message["cmd"]
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        try:
            sent = self._send((json.dumps(message, separators=(",", ":")) + "\n").encode(), deadline)
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(message) from None
        if not sent:
            self.kill()
            raise EngineError("timeout", f"{self.label}: no answer to {command!r} within "
                              f"{timeout:g} s")
        while True:
            answer = self._answer(message, deadline, timeout)
            if set(answer) != {"info"}:  # an engine's info lines while it thinks are not the answer
                break
        self.last_seconds = time.monotonic() - start
        return answer

    def _answer(self, message: dict[str, object], deadline: float | None,
                timeout: float | None) -> dict[str, object]:
        """The next line the engine writes, as an object (see :meth:`request`)."""
        command = message["cmd"]
        try:
            line = self._answers.read_line(deadline)
        except TimeoutError:
            self.kill()
            raise EngineError("timeout", f"{self.label}: no answer to {command!r} within "
                              f"{timeout:g} s") from None
        except OverflowError:
            self.kill()
            raise EngineError("protocol", f"{self.label}: answered more than {MAX_LINE} bytes "
                              f"without a newline to {command!r}") from None
        if line is None:
            raise self._died(message)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as error:
            self.kill()
            raise EngineError("protocol", f"{self.label}: answered bytes that are not UTF-8 to "
                              f"{command!r} (byte {error.start}: {line[:40]!r})") from None
        try:
            answer = parse_json(text)
        except MalformedFileError as error:
            raise EngineError("protocol", f"{self.label}: answered {text.strip()[:80]!r} to "
                              f"{command!r}, which is not JSON ({error})") from None
        if not isinstance(answer, dict):
            raise EngineError("protocol", f"{self.label}: answered {text.strip()[:80]!r}, not an object")
        if "error" in answer:
            raise EngineError("protocol", f"{self.label}: error on {command!r}: "
                              f"{str(answer['error'])[:200]}")
        return answer

    def _died(self, message: dict[str, object]) -> EngineError:
        try:
            code = self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.kill()  # what it started may still be running
        tail = self.stderr_tail()
        return EngineError("crash", f"{self.label}: exited (code {code}) on {message['cmd']!r}"
                           + (f": {tail}" if tail else ""))

    def is_alive(self) -> bool:
        """Whether the subprocess is still running."""
        return self.process.poll() is None

    def kill(self) -> None:
        """Stop the engine and everything it started, at once."""
        kill_group(self.process)

    def close(self) -> None:
        """Ask the engine to quit, then make sure it and everything it started have stopped."""
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
        if self.process.stdout is not None:
            try:
                self.process.stdout.close()
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
            go: dict[str, object] = {"cmd": "go", "seed": seed_from_stream(rng)}
            if self.limits:
                go["limits"] = self.limits
            answer = client.request(go, self.timeout)
        except EngineError:
            self.stop()
            raise
        text = answer.get("action")
        if not isinstance(text, str):
            raise EngineError("protocol", f"{self.name}: no action in its answer to 'go': "
                              f"{one_line(repr(answer), 80)}")
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
    return [python, *(["-I"] if isolated else []), "-m", "advisor.players.engine", "--agent", spec]


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m advisor.players.engine [--agent SPEC]``: serve an agent on stdin/stdout (what
    ``refuge engine`` runs); a bad spec is one line on stderr and exit status 1."""
    parser = argparse.ArgumentParser(prog="python -m advisor.players.engine",
                                     description="Serve an agent over the engine protocol.")
    parser.add_argument("--agent", default=DEFAULT_AGENT, metavar="SPEC")
    spec_text = parser.parse_args(argv).agent
    try:
        spec = parse_agent_spec(spec_text)
        agent = make_agent(spec)
        if isinstance(agent, Foresees):
            raise AgentSpecError(f"{spec_text!r} sees the deal's future, which no engine is told: it plays "
                                 "only in the game loop (arena, selfplay)")
    except RefugeError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    serve(agent, spec, own_stdin(), sys.stdout)


def own_stdin() -> IO[bytes]:
    """Standard input through a reader of its own: the feed's daemon thread may still be blocked in
    a read when ``quit`` ends the process, and a lock held inside ``sys.stdin.buffer`` then aborts the
    interpreter's shutdown (it closes that buffer); nothing closes this one."""
    return io.BufferedReader(io.FileIO(sys.stdin.fileno(), "rb", closefd=False))


if __name__ == "__main__":
    main()
