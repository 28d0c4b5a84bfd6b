"""Errors by what the caller can do about them (all are ``ValueError``)."""


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
