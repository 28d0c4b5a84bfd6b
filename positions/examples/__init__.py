"""Curated example positions shipped as package data (JSON saved positions), loadable by name."""

from __future__ import annotations

from importlib import resources

from positions.errors import MalformedFileError
from positions.saved import SavedPosition, read_position_text
from positions.errors import did_you_mean


def example_names() -> list[str]:
    """The names of the shipped examples, sorted (a name is the file name without ``.json``)."""
    folder = resources.files(__name__)
    return sorted(item.name[:-5] for item in folder.iterdir() if item.name.endswith(".json"))


def example_text(name: str) -> str:
    """The JSON text of the example called `name`.

    Raises:
        MalformedFileError: no example has that name (the message suggests the closest).
    """
    names = example_names()
    if name not in names:
        raise MalformedFileError(f"{name}: no such example" + did_you_mean(name, names)
                                 + f"; examples: {', '.join(names)}")
    return (resources.files(__name__) / f"{name}.json").read_text(encoding="utf-8")


def load_example(name: str) -> SavedPosition:
    """The example position called `name`, e.g. ``opening-2p``.

    Raises:
        MalformedFileError: no example has that name.
    """
    return read_position_text(example_text(name), f"example {name}")
