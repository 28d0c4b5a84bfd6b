"""native/core/src/catalogue.rs is generated from the Python tables and current (never edited by hand)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_catalogue_is_current() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "native" / "gen_catalogue.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
