"""`refuge serve`: the analysis board in the browser, an ASGI app over the same library as the CLI."""
