"""Matches between agents — schedule, executors, SQLite store, reports, statistics, ladder, revisions, bench; imports players, search, positions."""
