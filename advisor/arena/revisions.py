"""Other versions of this project as engines: a git revision's tree and virtual environment, cached.

``rev:GITREF:SPEC`` resolves GITREF in the git repository of the current directory, exports that
commit's files with ``git archive`` into ``CACHE/revs/<sha>/tree`` (read-only for the repository: no
worktree to register or prune, and the cached tree stays valid if the repository moves), and creates
``CACHE/revs/<sha>/venv`` whose ``.pth`` file puts the tree first on ``sys.path`` and then the current
interpreter's packages (click, numpy, ...). That is what a path-based ``pip install -e`` writes, without
running the build backend (which would need network access for ``setuptools>=77``); a revision that
has ``scripts/build_native.py`` then compiles its hot path as ``make`` does. The build happens once
per commit, under a file lock, and ends with a stamp file; later runs reuse it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import site
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from typing import Callable

from advisor.players.engine import engine_argv
from advisor.players.processes import run_guarded
from positions.errors import RefugeError

STAMP = "built"


LEGACY_ENGINE = "from advisor.cli import main; main()"
"""How a revision from before ``python -m advisor.players.engine`` (issue 23) starts its engine: its
``refuge engine`` command (the only place above ``cli/`` that names it, for old code only)."""


class RevisionError(RefugeError):
    """A revision that cannot be resolved or built."""


@dataclass(frozen=True)
class Revision:
    """A built revision: its commit, a readable name and the command that runs its engine."""

    sha: str
    describe: str
    tree: str
    python: str

    def argv(self, spec: str) -> list[str]:
        """The command running this revision's engine serving `spec` (``python -m
        advisor.players.engine``; a revision from before it had one: its ``refuge engine``)."""
        engine = os.path.join(self.tree, "advisor", "players", "engine.py")
        try:
            with open(engine, encoding="utf-8") as source:
                runnable = 'if __name__ == "__main__":' in source.read()
        except OSError:
            runnable = False
        if runnable:
            return engine_argv(spec, self.python, isolated=True)
        return [self.python, "-I", "-c", LEGACY_ENGINE, "engine", "--agent", spec]


def cache_dir() -> str:
    """Where built revisions live: ``$REFUGE_CACHE_DIR``, else ``~/.cache/refuge-advisor``."""
    explicit = os.environ.get("REFUGE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "refuge-advisor")


def _git(args: list[str], cwd: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RevisionError(f"git {' '.join(args)}: {error}") from None
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        raise RevisionError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done.stdout.strip()


def describe_checkout(path: str | None = None) -> str:
    """``git describe --always --dirty`` of the checkout holding `path` (this code), or ``""``."""
    folder = path or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        return _git(["describe", "--always", "--dirty", "--tags"], folder)
    except RevisionError:
        return ""


def resolve(ref: str, repository: str | None = None) -> tuple[str, str]:
    """The full commit id and a ``git describe`` name of `ref` in the repository at `repository`.

    Raises:
        RevisionError: not a git repository, or no such commit.
    """
    where = repository or os.getcwd()
    try:
        _git(["rev-parse", "--git-dir"], where)
    except RevisionError:
        raise RevisionError(f"rev:{ref}: {where} is not a git repository (rev: builds a commit of the "
                            "repository of the current folder: run from the project's checkout)") from None
    try:
        sha = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], where)
    except RevisionError:
        raise RevisionError(f"rev:{ref}: no such commit in the git repository at {where}") from None
    return sha, _git(["describe", "--always", "--tags", sha], where)


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def prepare(ref: str, repository: str | None = None, cache: str | None = None,
            tell: Callable[[str], None] = _to_stderr) -> Revision:
    """Build (or find in the cache) the tree and environment of revision `ref`; a build (once per
    commit, tens of seconds) is announced through `tell` (standard error by default).

    Raises:
        RevisionError: the commit cannot be resolved, exported or installed.
    """
    where = repository or os.getcwd()
    sha, name = resolve(ref, where)
    root = os.path.join(cache or cache_dir(), "revs", sha)
    os.makedirs(root, exist_ok=True)
    tree, venv = os.path.join(root, "tree"), os.path.join(root, "venv")
    python = os.path.join(venv, "bin", "python")
    with open(os.path.join(root, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another arena may be building the same commit
        if not os.path.exists(os.path.join(root, STAMP)):
            for partial in (tree, venv):
                shutil.rmtree(partial, ignore_errors=True)
            tell(f"rev:{ref}: building {name} ({sha[:12]}) once into {root}: export, environment, "
                 "native build (tens of seconds; later runs reuse it)")
            _export(sha, where, tree)
            _make_venv(venv, python, tree)
            _build_native(python, tree)
            with open(os.path.join(root, STAMP), "w") as stamp:
                stamp.write(name + "\n")
    return Revision(sha, name, tree, python)


def _export(sha: str, repository: str, tree: str) -> None:
    os.makedirs(tree)
    archive = subprocess.Popen(["git", "archive", "--format=tar", sha], cwd=repository,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert archive.stdout is not None
    try:
        with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
            tar.extractall(tree, filter="data")
    except tarfile.TarError as error:
        archive.kill()
        raise RevisionError(f"git archive {sha[:12]}: {error}") from None
    finally:
        archive.stdout.close()
        error_text = archive.stderr.read().decode(errors="replace") if archive.stderr else ""
        code = archive.wait()
    if code != 0:
        raise RevisionError(f"git archive {sha[:12]}: {error_text.strip() or f'exit {code}'}")


def _make_venv(venv: str, python: str, tree: str) -> None:
    _run([sys.executable, "-m", "venv", "--without-pip", venv], "create a virtual environment")
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                   "find the new environment's site-packages").strip()
    # The revision's tree first, so its packages win over any installed copy of this project.
    with open(os.path.join(purelib, "refuge-revision.pth"), "w") as pth:
        pth.write("\n".join([os.path.abspath(tree), *site.getsitepackages()]) + "\n")


def _build_native(python: str, tree: str) -> None:
    """Compile the revision's hot path as ``make`` would, if it has one, so that revisions are
    compared at their real speed; a failed build leaves its Python sources running (same results)."""
    script = os.path.join(tree, "scripts", "build_native.py")
    if os.path.exists(script):
        try:  # guarded: the compiler dies with us, and with its group on a timeout
            run_guarded([python, script], timeout=900, cwd=tree)
        except (OSError, subprocess.TimeoutExpired):
            pass


def _run(argv: list[str], what: str) -> str:
    try:
        code, output, errors = run_guarded(argv, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RevisionError(f"cannot {what}: {error}") from None
    if code != 0:
        lines = (errors or output).strip().splitlines()
        raise RevisionError(f"cannot {what}: {lines[-1] if lines else f'exit {code}'}")
    return output
