"""Broken stores and bad agent specs are one-line errors with exit 1, never a traceback (issue 13.6)."""

from __future__ import annotations

import os
import sqlite3

import pytest
from click.testing import CliRunner

from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.store import ArenaStore, StoreError
from advisor.cli.main import cli

AGENTS = [("h", "heuristic"), ("r", "random")]


def _invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def _one_line_error(result, fragment: str) -> None:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    assert fragment in result.output, result.output


@pytest.fixture
def played(tmp_path) -> str:
    db = str(tmp_path / "played.sqlite")
    run_arena(ArenaSettings(AGENTS, games=40, seed=3, db=db))
    return db


def test_a_stored_row_with_bad_json_is_named(played: str) -> None:
    with sqlite3.connect(played) as con:
        con.execute("UPDATE games SET seats = '[{\"name\": ' WHERE idx = 3")
    _one_line_error(_invoke("ladder", "--db", played), "run 1 game 3 seats: $: not valid JSON")
    _one_line_error(_invoke("arena", "--agent", "h=heuristic", "--agent", "r=random", "--games", "40",
                            "--seed", "3", "--db", played, "--resume", "--workers", "1"),
                    "run 1 game 3 seats")


def test_a_database_with_overwritten_pages_is_one_line(played: str) -> None:
    with sqlite3.connect(played) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(played)
    with open(played, "r+b") as handle:  # the schema reads, the games' pages are garbage
        handle.seek(size // 2)
        handle.write(b"\x5a" * (size - size // 2))
    message = f"{played}: cannot read the stored games: database disk image is malformed"
    _one_line_error(_invoke("ladder", "--db", played), message)
    _one_line_error(_invoke("arena", "--agent", "h=heuristic", "--agent", "r=random", "--games", "40",
                            "--seed", "3", "--db", played, "--resume", "--workers", "1"), message)


def test_a_read_only_database_is_one_line(tmp_path) -> None:
    db = str(tmp_path / "ro.sqlite")
    ArenaStore(db).close()
    store = ArenaStore(db)
    store.db.close()
    store.db = sqlite3.connect(f"file:{db}?mode=ro", uri=True, isolation_level=None)
    with pytest.raises(StoreError, match="cannot claim the run: attempt to write a readonly database"):
        store.claim_run({"agents": []})
    store.close()


def test_a_database_path_that_is_not_a_regular_file_is_refused(tmp_path) -> None:
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    _one_line_error(_invoke("arena", "--agent", "h=heuristic", "--agent", "r=random", "--db", fifo,
                            "--workers", "1"), "is a FIFO, expected a regular file")
    _one_line_error(_invoke("ladder", "--db", "/dev/null"), "is a character device")


def test_an_unterminated_quote_in_a_command_is_one_line() -> None:
    _one_line_error(_invoke("arena", "--agent", 'x=cmd:"unterminated', "--agent", "random",
                            "--workers", "1"), "No closing quotation")


def test_a_bad_inner_spec_of_a_revision_is_refused_before_building(tmp_path, monkeypatch) -> None:
    """Issue 13.10: rev:HEAD:bogus built the revision before rejecting the spec."""
    monkeypatch.setenv("REFUGE_CACHE_DIR", str(tmp_path / "cache"))
    _one_line_error(_invoke("arena", "--agent", "x=rev:HEAD:bogus", "--agent", "random",
                            "--db", str(tmp_path / "a.sqlite"), "--workers", "1"), "bogus")
    assert not os.path.exists(tmp_path / "cache")
