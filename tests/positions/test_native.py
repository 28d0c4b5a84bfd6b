"""The compiled hot path (positions/native.py): same answers as the Python sources, never stale.

``make`` compiles ``positions.kernel.rules`` and ``positions.kernel.heuristics`` with mypyc. A compiled module
must give exactly the results of its source for the same seed, and a build older than its source
must not load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import positions.kernel.heuristics
import positions.kernel.rules
from positions import native

ROOT = Path(__file__).resolve().parent.parent.parent
GROUPS = (("positions.kernel.state", "positions.kernel.rules", "positions.kernel.position"), ("positions.kernel.heuristics",))
"""The groups scripts/build_native.py compiles (the record, not this module, tells the guard)."""
MODULES = tuple(m for group in GROUPS for m in group)


def _record(digests: dict[str, str]) -> str:
    """A build record as scripts/build_native.py writes it."""
    return json.dumps({"groups": [list(g) for g in GROUPS], "digests": digests})

SEARCH_PROBE = """
import json, random
from advisor.players.bots import DEFAULT_ROLLOUT
from positions import Position
from search.ismcts import search
from search.request import SearchRequest
import positions.kernel.rules, positions.kernel.heuristics
pos = Position.new_game(2, "meadows")
rng = random.Random(5)
while pos.is_chance() or pos.turn < 2:
    pos.apply(pos.sample_chance(rng) if pos.is_chance() else DEFAULT_ROLLOUT.choose(pos, rng))
out = {"files": [positions.kernel.rules.__file__, positions.kernel.heuristics.__file__]}
for name, policy in (("random", None), ("heuristic", DEFAULT_ROLLOUT)):
    result = search(pos, SearchRequest.of(iterations=300, seed=11, rollout=policy))
    out[name] = [[str(s.action), s.visits, s.win, s.score] for s in result.actions]
out["history"] = pos.history
print(json.dumps(out))
"""


def run_probe(pure: bool) -> dict[str, object]:
    """Run the probe in a fresh interpreter, compiled modules allowed or not."""
    env = {**os.environ, native.PURE_ENV: "1" if pure else "0"}
    done = subprocess.run([sys.executable, "-c", SEARCH_PROBE], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.mark.skipif(native.build_state("positions.kernel.rules") != "compiled",
                    reason="no current native build (make builds it)")
def test_compiled_and_python_searches_agree_exactly() -> None:
    """Same seed, same statistics and the same information-set history, compiled or not."""
    compiled, pure = run_probe(pure=False), run_probe(pure=True)
    assert all(not f.endswith(".py") for f in compiled.pop("files"))  # type: ignore[attr-defined]
    assert all(f.endswith(".py") for f in pure.pop("files"))  # type: ignore[attr-defined]
    assert compiled == pure


def test_this_process_runs_what_the_build_state_says() -> None:
    """The modules in use are compiled exactly when their build is current."""
    for module in (positions.kernel.rules, positions.kernel.heuristics):
        assert native.running_compiled(module) == (native.build_state(module.__name__) == "compiled")


def test_a_build_older_than_its_source_is_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A recorded digest that is not the source's own marks the build stale (or absent)."""
    record = tmp_path / "record.json"
    record.write_text(_record({m: "0" * 64 for m in MODULES}))
    monkeypatch.setattr(native, "BUILD_RECORD", record)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    for module in MODULES:
        assert native.build_state(module) in ("stale", "not built")
    record.write_text(_record({m: native.source_digest(m) for m in MODULES}))
    if native.build_state("positions.kernel.rules") != "not built":
        assert native.build_state("positions.kernel.rules") == "compiled"


def test_a_group_is_used_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rules and the position are compiled together: one stale source makes both stale."""
    record = tmp_path / "record.json"
    digests = {m: native.source_digest(m) for m in MODULES}
    record.write_text(_record({**digests, "positions.kernel.rules": "0" * 64}))
    monkeypatch.setattr(native, "BUILD_RECORD", record)
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    if native.build_state("positions.kernel.position") == "not built":
        pytest.skip("no native build (make builds it)")
    assert native.build_state("positions.kernel.position") == "stale"
    # the heuristic was compiled against the native Position: with the position from source it
    # would reject every position it is given, so it runs from source too
    assert native.build_state("positions.kernel.heuristics") == "stale"
    record.write_text(_record({**digests, "positions.kernel.heuristics": "0" * 64}))
    assert native.build_state("positions.kernel.position") == "compiled"
    assert native.build_state("positions.kernel.heuristics") == "stale"


def test_pure_python_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    """REFUGE_PURE_PYTHON=1 disables every compiled module."""
    monkeypatch.setenv(native.PURE_ENV, "1")
    assert {native.build_state(m) for m in MODULES} == {"disabled"}


def test_a_module_kept_out_of_its_build_loads_from_source() -> None:
    """The finder hands out the .py source for the modules it holds, and nothing for others."""
    finder = native._SourceFirst(["positions.kernel.rules"])
    spec = finder.find_spec("positions.kernel.rules", None)
    assert spec is not None and spec.origin == str(native.source_path("positions.kernel.rules"))
    assert finder.find_spec("positions.kernel.tiles", None) is None
