"""The `refuge` click commands only: parse options, call a library function, print; may import every advisor package."""

from advisor.cli.main import cli, main

__all__ = ["cli", "main"]
