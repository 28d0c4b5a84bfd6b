"""The engine protocol while it thinks (issue 56): ``info`` lines, ``stop``, ``setoption`` and
several options in one answer (multipv), driven through pipes as a person or a GUI would."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from advisor.players.agents import make_agent
from advisor.players.engine import INFO_SECONDS, OPTIONS, EngineClient, EngineServer, engine_argv, serve
from advisor.players.specs import parse_agent_spec
from positions import Position
from positions.saved import position_to_data

PROJECT = Path(__file__).resolve().parents[2]
START = {"cmd": "position", "position": position_to_data(Position.new_game(2))}


class Engine:
    """`refuge engine` in a subprocess, written to and read from line by line."""

    def __init__(self, spec: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "advisor", "engine", "--agent", spec], cwd=PROJECT, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=1)

    def send(self, request: dict[str, object]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()

    def read(self) -> dict[str, object]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the engine closed its output"
        return json.loads(line)

    def ask(self, request: dict[str, object]) -> dict[str, object]:
        self.send(request)
        return self.read()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture
def engine():
    running = Engine("ismcts:iterations=500")
    yield running
    running.close()


def test_an_infinite_go_streams_info_lines_until_stop_answers_it(engine: Engine) -> None:
    assert engine.ask(START) == {"ok": True}
    assert engine.ask({"cmd": "setoption", "name": "info", "value": True}) == {"ok": True}
    engine.send({"cmd": "go", "seed": 1, "infinite": True})
    infos = [engine.read() for _ in range(3)]  # an infinite search writes nothing but info lines
    for line in infos:
        info = line["info"]
        assert set(info) == {"iterations", "seconds", "best", "win", "options"}
        assert info["best"] in ("return", "draw") and 0 <= info["win"] <= 1
        assert info["best"] == info["options"][0]["action"]
    iterations = [line["info"]["iterations"] for line in infos]
    assert iterations == sorted(iterations) and iterations[0] > 0
    seconds = [line["info"]["seconds"] for line in infos]
    assert all(later - earlier >= INFO_SECONDS * 0.9 for earlier, later in zip(seconds, seconds[1:]))
    engine.send({"cmd": "stop"})
    answer = engine.read()
    while "info" in answer:  # lines already written before the stop arrived
        answer = engine.read()
    assert answer["action"] in ("return", "draw") and answer["stopped"] is True
    assert answer["stats"]["iterations"] >= iterations[-1]
    assert engine.read() == {"ok": True}  # the stop's own answer, after the search's
    assert engine.ask({"cmd": "identify"})["protocol"] == "refuge-engine/1"  # still serving


def test_multipv_lists_the_options_by_visits_in_the_answer(engine: Engine) -> None:
    engine.ask(START)
    assert engine.ask({"cmd": "setoption", "name": "multipv", "value": 3}) == {"ok": True}
    answer = engine.ask({"cmd": "go", "seed": 2, "limits": {"iterations": 60}})
    options = answer["options"]
    assert [o["action"] for o in options][0] == answer["action"] and len(options) == 2  # 2 legal
    assert [o["visits"] for o in options] == sorted((o["visits"] for o in options), reverse=True)
    assert sum(o["visits"] for o in options) == 60 and "stopped" not in answer
    for option in options:
        assert option["ci95"][0] <= option["win"] <= option["ci95"][1]


def test_setoption_refuses_unknown_names_and_bad_values_in_one_line() -> None:
    server = EngineServer(make_agent("heuristic"), parse_agent_spec("heuristic"))
    assert "unknown option 'hash'" in str(server.handle({"cmd": "setoption", "name": "hash", "value": 1})["error"])
    assert "multipv must be an integer >= 1" in str(
        server.handle({"cmd": "setoption", "name": "multipv", "value": 0})["error"])
    assert "info must be true or false" in str(
        server.handle({"cmd": "setoption", "name": "info", "value": "yes"})["error"])
    assert set(OPTIONS) == {"multipv", "info"}


def test_watching_a_search_does_not_change_its_answer() -> None:
    """Same position, seed and limits: the same action and visits with info lines on or off."""
    requests = [START, {"cmd": "setoption", "name": "info", "value": True},
                {"cmd": "go", "seed": 11, "limits": {"iterations": 80}}, {"cmd": "quit"}]
    out = io.StringIO()
    serve(make_agent("ismcts:iterations=80"), parse_agent_spec("ismcts:iterations=80"),
          io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    served = [json.loads(line) for line in out.getvalue().splitlines() if "info" not in json.loads(line)]
    plain = EngineServer(make_agent("ismcts:iterations=80"), parse_agent_spec("ismcts:iterations=80"))
    plain.handle(START)
    direct = plain.handle({"cmd": "go", "seed": 11, "limits": {"iterations": 80}})
    assert served[2]["action"] == direct["action"] and served[2]["stats"]["visits"] == direct["stats"]["visits"]


def test_the_end_of_input_stops_an_infinite_search() -> None:
    out = io.StringIO()
    requests = [START, {"cmd": "go", "seed": 3, "infinite": True}]
    serve(make_agent("ismcts:iterations=80"), parse_agent_spec("ismcts:iterations=80"),
          io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0] == {"ok": True} and answers[1]["stopped"] is True


@pytest.mark.parametrize("request_, fragment", [
    ({"cmd": "go", "infinite": "yes"}, "infinite must be true or false"),
    ({"cmd": "go", "infinite": True, "limits": {"iterations": 5}}, "limits or infinite, not both"),
])
def test_bad_go_fields_are_one_line_errors(request_: dict[str, object], fragment: str) -> None:
    server = EngineServer(make_agent("ismcts:iterations=20"), parse_agent_spec("ismcts:iterations=20"))
    server.handle(START)
    assert fragment in str(server.handle(request_)["error"])


def test_the_arena_client_reads_past_info_lines_to_the_answer() -> None:
    client = EngineClient(engine_argv("ismcts:seconds=0.8"), "thinker")
    try:
        client.request(START, 30)
        client.request({"cmd": "setoption", "name": "info", "value": True}, 30)
        started = time.monotonic()
        answer = client.request({"cmd": "go", "seed": 5}, 60)
        assert answer["action"] in ("return", "draw") and time.monotonic() - started >= 0.8
    finally:
        client.close()


def test_a_line_the_read_ahead_cannot_parse_is_still_answered_in_turn() -> None:
    """The reader thread looks for stop lines; a line nested too deeply for Python's JSON reader
    (with "stop" in it) must not end the server: it gets its one-line error, the next lines theirs."""
    deep = "[" * 100_000 + '"stop"' + "]" * 100_000
    out = io.StringIO()
    serve(make_agent("random"), parse_agent_spec("random"),
          io.StringIO("\n".join([deep, '{"cmd":"identify"}', '{"cmd":"quit"}']) + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert "nested more than 64 deep" in answers[0]["error"]
    assert answers[1]["protocol"] == "refuge-engine/1" and answers[2] == {"ok": True}
