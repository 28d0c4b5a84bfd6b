"""The lab: experiments, their scripts (lab/scripts/) and the research record (lab/journal/).

It may import the product (positions, search, advisor); the product never imports it
(tests/layering.py). Run a script from the repository root as ``python -m lab.scripts.NAME``.
"""
