"""The report as a file: a corpus's report saved as JSON (``refuge insights report --db ... --json``),
and the one shipped in the package, which ``refuge insights report`` and ``/insights`` show when no
corpus is given (docs/insights.md says how it was made and how to rebuild it)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from positions.errors import RefugeError

SECTIONS = ("games", "corpora", "buys", "ranking", "players", "returns", "seats", "lengths", "explorer")
"""What a summary holds: every section of :func:`advisor.insights.report.build_report`."""
PUBLISHED = "published-summary.json"
"""The shipped summary's file name in the package ``advisor.insights``."""


class SummaryError(RefugeError):
    """A summary file that cannot be read as a report."""


def read_summary(path: str) -> dict[str, Any]:
    """The report saved in the JSON file at `path`.

    Raises:
        SummaryError: the file is missing, not JSON, or not a report (the first missing section named).
    """
    try:
        with open(path, encoding="utf-8") as file:
            report = json.load(file)
    except OSError as error:
        raise SummaryError(f"{path}: cannot read: {error.strerror or error}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise SummaryError(f"{path}: not JSON ({error})") from None
    if not isinstance(report, dict):
        raise SummaryError(f"{path}: not a report (a JSON object with {', '.join(SECTIONS)})")
    missing = [section for section in SECTIONS if section not in report]
    if missing:
        raise SummaryError(f"{path}: not a report (no {missing[0]!r} section)")
    return report


def published_path() -> str | None:
    """The shipped summary's path, or None when this build ships none."""
    found = resources.files("advisor.insights") / PUBLISHED
    return str(found) if found.is_file() else None


def published_summary() -> dict[str, Any]:
    """The shipped summary.

    Raises:
        SummaryError: this build ships none (or it is damaged).
    """
    path = published_path()
    if path is None:
        raise SummaryError("this build ships no insights summary: give --db CORPUS or --summary FILE")
    return read_summary(path)
