"""Search errors: bad configuration and positions the search cannot handle (all ``ValueError``)."""


class SearchError(ValueError):
    """Base of every error the search raises on bad input."""


class SearchConfigError(SearchError):
    """A search request or solver limit that cannot be used (names the field and its value)."""


class SolverLimitError(SearchError):
    """The exact solver met a position too large or of a kind it does not handle."""


class SolverSizeError(SolverLimitError):
    """The exact solver needed more distinct positions than its ``max_nodes`` limit allows."""
