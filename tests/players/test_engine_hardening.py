"""Hostile engines and hostile requests (issue 13): no hang, no unbounded memory, no orphans, no traceback.

Every case runs real processes with bounded waits, so a regression fails instead of blocking.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import time

import pytest

from advisor.players.engine import (
    MAX_LINE, MAX_MESSAGE, EngineAgent, EngineClient, EngineError, engine_argv,
)
from positions.kernel.position import Position
from processes import HAS_PROC, alive_with, unique_marker, wait_gone

HOSTILE = textwrap.dedent('''
    import json, os, subprocess, sys, time
    behaviour, marker = sys.argv[1], sys.argv[2]
    out = sys.stdout.buffer
    for line in sys.stdin:
        cmd = json.loads(line)["cmd"]
        if cmd == "identify":
            out.write(b'{"name":"hostile","version":"1","protocol":"refuge-engine/1"}\\n')
        elif cmd == "quit":
            break
        elif behaviour == "orphan":  # a child holding our stdout open, then silence
            subprocess.Popen(["sleep", marker])
            time.sleep(3600)
        elif behaviour == "latin1":
            out.write(b'{"error":"caf\\xe9"}\\n')
        elif behaviour == "endless":
            out.write(b"x" * (2 * 1024 * 1024))
            out.flush()
            time.sleep(3600)
        elif behaviour == "no-action":
            out.write(json.dumps({"ok": True, "pad": "y" * 300_000}).encode() + b"\\n")
        elif behaviour == "noisy-crash":
            for _ in range(20_000):
                sys.stderr.write("z" * 1000 + "\\n")
            sys.stderr.write("last words\\n")
            sys.exit(4)
        out.flush()
''')


@pytest.fixture
def hostile(tmp_path) -> str:
    path = tmp_path / "hostile.py"
    path.write_text(HOSTILE, encoding="utf-8")
    return str(path)


pytestmark = pytest.mark.skipif(not HAS_PROC, reason="checks processes through /proc")


def test_a_timeout_kills_the_engine_and_the_child_holding_its_stdout(hostile: str) -> None:
    marker = unique_marker()
    client = EngineClient([sys.executable, hostile, "orphan", marker], "hostile", start_timeout=30)
    try:
        with pytest.raises(EngineError) as caught:
            client.request({"cmd": "go", "seed": 1}, 1.0)
        assert caught.value.kind == "timeout"
        assert wait_gone(marker) == []
    finally:
        client.close()


@pytest.mark.parametrize("behaviour, fragment", [
    ("latin1", "not UTF-8"),
    ("endless", f"more than {MAX_LINE} bytes without a newline"),
    ("no-action", "no action"),
])
def test_hostile_answers_are_protocol_faults_at_once_with_short_messages(hostile: str, behaviour: str,
                                                                         fragment: str) -> None:
    # a wait to the 60 s deadline would be a timeout fault, not a protocol fault
    agent = EngineAgent("hostile", [sys.executable, hostile, behaviour, "-"], timeout=60.0)
    position = Position.new_game(2)
    try:
        with pytest.raises(EngineError) as caught:
            agent.choose(position, random.Random(1))
    finally:
        agent.stop()
    assert caught.value.kind == "protocol"
    assert fragment in str(caught.value)
    assert len(str(caught.value)) <= MAX_MESSAGE and "\n" not in str(caught.value)


def test_a_crash_keeps_only_the_tail_of_a_huge_stderr(hostile: str) -> None:
    client = EngineClient([sys.executable, hostile, "noisy-crash", "-"], "hostile", start_timeout=30)
    try:
        with pytest.raises(EngineError) as caught:
            client.request({"cmd": "go", "seed": 1}, 60.0)
    finally:
        client.close()
    message = str(caught.value)
    assert caught.value.kind == "crash" and "code 4" in message and "last words" in message
    assert len(message) <= MAX_MESSAGE


def test_engines_die_with_the_process_that_started_them(tmp_path, hostile: str) -> None:
    marker = unique_marker()
    owner = textwrap.dedent(f'''
        import sys, time
        from advisor.players.engine import EngineClient
        client = EngineClient([sys.executable, {hostile!r}, "orphan", {marker!r}], "h", start_timeout=30)
        client._send(b'{{"cmd":"go"}}\\n', None)
        print("ready", flush=True)
        time.sleep(600)
    ''')
    process = subprocess.Popen([sys.executable, "-c", owner], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 10
        while not alive_with(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive_with(marker), "the engine should have started its child"
    finally:
        process.kill()  # kill -9: no cleanup runs in the owner
        process.wait(timeout=10)
    assert wait_gone(marker) == []
    assert wait_gone(f"{hostile} orphan") == []


def test_the_engine_server_answers_every_hostile_line_and_goes_on() -> None:
    lines = [b"[" * 3000 + b"]" * 3000, b'{"cmd":"identify","cmd":"quit"}', b"\xff\xfe",
             b"[" * (MAX_LINE + 10), b'{"cmd":"identify"}', b'{"cmd":"quit"}']
    done = subprocess.run(engine_argv("random"), input=b"\n".join(lines) + b"\n",
                          capture_output=True, timeout=120)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert len(answers) == 6
    assert "nested more than" in answers[0]["error"]
    assert "given twice" in answers[1]["error"]
    assert "not UTF-8" in answers[2]["error"] and "longer than" in answers[3]["error"]
    assert answers[4]["protocol"] == "refuge-engine/1" and answers[5] == {"ok": True}
