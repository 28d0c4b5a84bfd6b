"""Errors by what the caller can do about them (all are ``ValueError``), and the hint they share."""

from __future__ import annotations

import difflib
from typing import Iterable


class RefugeError(ValueError):
    """Base of every error the game raises on bad input."""


class InvalidActionError(RefugeError):
    """Text that cannot be read as an action."""


class IllegalActionError(RefugeError):
    """A well-formed action that is not legal in this position."""


class ImpossiblePositionError(RefugeError):
    """A position or setup that breaks the rules (wrong tile totals, bad player count, ...)."""


class MalformedFileError(RefugeError):
    """A saved file that cannot be read: bad JSON, wrong types, unknown format."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'bear'?)`` when a choice is close to `word`, else ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
