"""`rev:GITREF:SPEC`: an earlier commit of a (temporary) repository, built once and played as an engine."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from advisor.arena.match import ArenaSettings, run_arena
from advisor.arena.revisions import RevisionError, prepare
from advisor.arena.store import ArenaStore
from advisor.arena.ladder import ladder

PROJECT = Path(__file__).resolve().parent.parent.parent
GIT = ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> Path:
    """A git repository of the current tree (tracked and new files) with two commits."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path_factory.mktemp("repo")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=PROJECT, check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = PROJECT / name
        if source.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / name)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    (repo / "README.md").write_text((repo / "README.md").read_text() + "\nA later change.\n")
    _git(repo, "commit", "-q", "-am", "second")
    return repo


def test_a_revision_plays_as_an_engine_and_is_recorded(repository: Path, tmp_path, monkeypatch,
                                                       capsys) -> None:
    monkeypatch.chdir(repository)
    monkeypatch.setenv("REFUGE_CACHE_DIR", str(tmp_path / "cache"))
    first = _git(repository, "rev-parse", "HEAD~1")
    db = str(tmp_path / "rev.sqlite")
    progress = run_arena(ArenaSettings([("old", "rev:HEAD~1:heuristic"), ("new", "heuristic")],
                                       games=2, seed=3, db=db, workers=1))
    assert [game.fault for game in progress.played] == [None, None]
    assert f"rev:HEAD~1: building {first[:7]}" in capsys.readouterr().err  # the silent ~19 s, said
    (row,) = progress.rows()
    assert row.summary.score == 0.5  # the same bot at both versions: every paired deal is even
    store = ArenaStore(db)
    try:
        seats = [game.seats for game in store.games()]
    finally:
        store.close()
    old = next(seat for seat in seats[0] if seat[0] == "old")
    assert old[1] == "rev:HEAD~1:heuristic" and first.startswith(old[2])
    built = tmp_path / "cache" / "revs" / first
    assert (built / "built").exists() and (built / "tree" / "advisor" / "players" / "engine.py").exists()
    assert "A later change" not in (built / "tree" / "README.md").read_text()

    stamp = (built / "built").stat().st_mtime_ns
    again = prepare("HEAD~1")  # cached: nothing is rebuilt
    assert again.sha == first and (built / "built").stat().st_mtime_ns == stamp

    store = ArenaStore(db)
    (entry_old,) = [r for r in ladder(list(store.games()), "new") if r.name == "old"]
    store.close()
    assert entry_old.revision == old[2] and entry_old.rating.elo == pytest.approx(0.0, abs=1e-6)


def test_an_unknown_revision_is_a_clear_error(repository: Path, monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(repository)
    with pytest.raises(RevisionError, match="rev:nope: no such commit"):
        prepare("nope", cache=str(tmp_path))
    monkeypatch.chdir(tmp_path)  # not a repository
    with pytest.raises(RevisionError, match=f"rev:HEAD: {tmp_path} is not a git repository"):
        prepare("HEAD", cache=str(tmp_path))
    assert not os.path.exists(tmp_path / "revs")
