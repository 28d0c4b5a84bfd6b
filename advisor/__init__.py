"""What users run: the `refuge` command line and the reports it prints."""

from positions import native

native.install()  # before advisor.heuristics is imported: a stale compiled build must never load
