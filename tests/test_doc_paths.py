"""The files the docs name exist (a moved test or module leaves no stale path behind)."""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"(?<![\w/.-])(?:positions|search|advisor|scripts|benchmarks|tests|lab)/[A-Za-z0-9_/]+\.(?:py|json|sh)\b")


def test_every_file_the_docs_name_exists() -> None:
    missing = []
    for doc in sorted([PROJECT / "README.md", *(PROJECT / "docs").glob("*.md"), *(PROJECT / "lab").rglob("*.md")]):
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if "removed" in line:  # a file named as gone
                continue
            missing += [f"{doc.relative_to(PROJECT)}:{number}: {path}" for path in PATH.findall(line)
                        if not (PROJECT / path).exists()]
    assert missing == []
