"""Exact values shown to people: percentages that never round to a certainty they are not."""

from __future__ import annotations

from fractions import Fraction

from advisor.analysis.exact import percent


def test_only_certainties_show_as_100_or_0_percent() -> None:
    assert percent(Fraction(1)) == "100.00%" and percent(Fraction(0)) == "0.00%"
    assert percent(Fraction(99_999, 100_000)) == ">99.99%"
    assert percent(Fraction(1, 100_000)) == "<0.01%"
    assert percent(Fraction(13, 72)) == "18.06%"
