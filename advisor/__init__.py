"""What users run, in packages importing one way: cli → (arena, analysis, openspiel) → players → search, positions.

See docs/architecture.md for what each package owns and where a new piece goes.
"""
