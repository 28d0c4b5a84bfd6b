"""The floats the native solver shows the search (``ExactValue::floats``) are Python's
``float(Fraction)``: correctly rounded, huge numerators and denominators included."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

refuge_native = pytest.importorskip(
    "refuge_native", reason="the native module is not built (make native, or pip install ./native/py)")
if not hasattr(refuge_native, "fraction_to_float"):
    pytest.skip("the native module has no fraction_to_float (rebuild it)", allow_module_level=True)

HUGE = 2 ** 400
EDGES = [
    (1, 3), (2, 3), (-1, 3), (0, 7), (1, 1), (7, 1), (-38, 5), (1, 10), (3, 10),
    (2 ** 53 + 1, 1), (2 ** 53 + 3, 1), (2 ** 54 + 2, 2), (-(2 ** 53 + 1), 1),  # ties to even
    (HUGE + 1, HUGE), (HUGE - 1, HUGE), (HUGE, HUGE + 1), (3 ** 300, 2 ** 470), (2 ** 470, 3 ** 300),
    (1, 2 ** 1000), (5 ** 200 + 1, 7 ** 170), (10 ** 300, 3), (1, 10 ** 300),
    (sys.float_info.max.as_integer_ratio()[0], 1), (1, 2 ** 1022),  # the largest, the smallest normal
]


@pytest.mark.parametrize("numerator,denominator", EDGES)
def test_edge_fractions_round_as_python(numerator: int, denominator: int) -> None:
    assert refuge_native.fraction_to_float(numerator, denominator) == float(Fraction(numerator, denominator))


@settings(max_examples=2_000, deadline=None)
@given(st.integers(-(2 ** 300), 2 ** 300), st.integers(1, 2 ** 300))
def test_drawn_fractions_round_as_python(numerator: int, denominator: int) -> None:
    """Numerators and denominators up to 300 bits (the solver's values reach beyond 128)."""
    assert refuge_native.fraction_to_float(numerator, denominator) == float(Fraction(numerator, denominator))


@settings(max_examples=1_000, deadline=None)
@given(st.integers(0, 2 ** 64), st.integers(1, 2 ** 64), st.integers(0, 200))
def test_near_ties_round_as_python(base: int, denominator: int, shift: int) -> None:
    """Fractions just beside a halfway point between two floats, scaled far apart."""
    numerator = (base << shift) | 1
    assert refuge_native.fraction_to_float(numerator, denominator << shift) == float(
        Fraction(numerator, denominator << shift))


def test_a_zero_denominator_is_refused_as_fraction_does() -> None:
    with pytest.raises(ZeroDivisionError):
        refuge_native.fraction_to_float(1, 0)
