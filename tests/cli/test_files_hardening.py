"""The file commands on hostile paths and contents (issue 13): one line, exit 1, nothing replaced."""

from __future__ import annotations

import json
import os
import random
import stat
import subprocess

import pytest
from click.testing import CliRunner

from advisor.cli import cli
from positions.examples import example_text
from positions.record import GameRecorder
from processes import REFUGE


def _run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def _game_file(tmp_path) -> str:
    rng = random.Random(5)
    recorder = GameRecorder.new(2, "meadows", ["Ann", "Ben"], 5)
    while not recorder.position.is_terminal():
        pos = recorder.position
        recorder.apply(pos.sample_chance(rng) if pos.is_chance() else rng.choice(pos.legal_actions()))
    path = tmp_path / "game.json"
    path.write_text(recorder.to_json(), encoding="utf-8")
    return str(path)


def _position_with_name(tmp_path, name: str) -> str:
    data = json.loads(example_text("opening-2p"))
    data["players"][0]["name"] = name
    path = tmp_path / "named.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # ensure_ascii: "\ud800" stays an escape
    return str(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_validate_refuses_fifos_and_devices_and_goes_on_with_the_other_files(tmp_path) -> None:
    """Issue 13.3: /dev/zero took 15 GB in 15 s; a FIFO blocked every file after it."""
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    good = tmp_path / "good.json"
    good.write_text(example_text("opening-2p"), encoding="utf-8")
    done = subprocess.run([*REFUGE, "validate", "/dev/zero", fifo, str(good)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["/dev/zero: is a character device, expected a regular file",
                                        f"{fifo}: is a FIFO, expected a regular file"]
    assert done.stdout == f"{good}: ok (refuge-position/1)\n"


def test_output_onto_a_device_is_refused_and_the_device_kept(tmp_path) -> None:
    """Issue 13.2: as root, -o /dev/full replaced the device node with a regular file."""
    game = _game_file(tmp_path)
    link = tmp_path / "full"
    link.symlink_to("/dev/full")
    for target in (str(link), "/dev/full"):
        result = _run("position", game, "--at", "5", "-o", target)
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert "a character device, expected a regular file" in result.output
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_records_are_written_with_the_usual_permissions(tmp_path) -> None:
    """Issue 13.2: selfplay and play --record wrote 0600 files."""
    old = os.umask(0o022)
    try:
        result = _run("selfplay", "--agents", "random,random", "--games", "1", "--out",
                      str(tmp_path / "out"))
        played = _run("play", "--seats", "random,random", "--record", str(tmp_path / "p.json"))
    finally:
        os.umask(old)
    assert result.exit_code == 0 and played.exit_code == 0, result.output + played.output
    for path in (tmp_path / "out" / "game-00001.json", tmp_path / "p.json"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_names_cannot_write_to_the_terminal(tmp_path) -> None:
    """Issue 13.10: a name "Ann\\nerror: fake" printed a fake error line."""
    path = _position_with_name(tmp_path, "Ann\nerror: fake\x1b[2J")
    result = _run("show", path)
    assert result.exit_code == 0
    assert "Ann\\nerror: fake\\x1b[2J" in result.output
    assert not any(line.startswith("error:") for line in result.output.splitlines())
    assert "\x1b" not in result.output


def test_a_lone_surrogate_in_a_name_is_a_one_line_error(tmp_path) -> None:
    """Issue 13.6: show and position crashed with UnicodeEncodeError on "\\ud800"."""
    path = _position_with_name(tmp_path, "\ud800")
    for command in (["show", path], ["validate", path]):
        done = subprocess.run([*REFUGE, *command], capture_output=True, timeout=60)
        assert done.returncode == 1 and b"Traceback" not in done.stderr
        assert done.stderr.decode() == (f"{path}: players[0].name: found the string '\\ud800' with a "
                                        "lone surrogate, expected Unicode text\n"
                                        if command[0] == "validate" else
                                        f"error: {path}: players[0].name: found the string '\\ud800' "
                                        "with a lone surrogate, expected Unicode text\n")


def test_annotate_on_a_saved_position_says_it_takes_a_game_record(tmp_path) -> None:
    """Issue 13.10: it printed six misleading 'unknown field' lines."""
    path = tmp_path / "position.json"
    path.write_text(example_text("opening-2p"), encoding="utf-8")
    result = _run("annotate", str(path))
    assert result.exit_code == 1
    assert result.output == (f"error: {path}: format: found the string 'refuge-position/1', expected "
                             "'refuge-game/1' (this is a saved position; this command takes a game "
                             "record)\n")


def test_a_repeated_key_in_a_file_is_named(tmp_path) -> None:
    path = tmp_path / "twice.json"
    path.write_text(example_text("opening-2p").replace('"walk": 1,', '"walk": 1, "walk": 2,'),
                    encoding="utf-8")
    result = _run("validate", str(path))
    assert result.exit_code == 1
    assert f"{path}: walk: the key is given twice" in result.output
