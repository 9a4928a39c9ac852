"""MDAV's centroid mean (issue 28 item 8): :func:`exact_sum` sums the mantissas per exponent as integers
(compiled by numba once a run's work has paid for loading it) instead of ``math.fsum`` over a Python list,
and must return ``math.fsum``'s correctly rounded bits — sign of zero, subnormals, cancellation, huge and
non-finite values (left to ``fsum`` itself, errors included) — on both tiers, so MDAV's groups stay the same."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit._kernels import use_numba
from anonkit.algorithms.cluster._mdav_tuples import exact_mean, exact_sum


@pytest.fixture(params=[True, False], ids=["numba", "numpy"])
def tier(request: pytest.FixtureRequest) -> Iterator[bool]:
    before = use_numba()
    use_numba(request.param)
    yield request.param
    use_numba(before)


def _outcome(f: object, values: list[float]) -> object:
    """``f(values)``'s bits (NaN as one value), or the type of the error it raises."""
    try:
        out = f(values)  # type: ignore[operator]
    except (OverflowError, ValueError) as error:
        return type(error).__name__
    return "nan" if math.isnan(out) else (out, math.copysign(1.0, out))


def _fsum(values: list[float]) -> float:
    return math.fsum(values)


def _ours(values: list[float]) -> float:
    return exact_sum(np.array(values, dtype=np.float64))


_PIECES = st.sampled_from([1e16, -1e16, 1.0, 3.0, 0.1, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e300])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False), _PIECES), max_size=40),
       st.booleans())
def test_exact_sum_is_fsum(tier: bool, values: list[float], mirrored: bool) -> None:
    """Any finite values, and the same values with their negations appended (a sum cancelling to zero)."""
    if mirrored:
        values = values + [-v for v in values[::-1]]
    assert _outcome(_ours, values) == _outcome(_fsum, values)


@pytest.mark.parametrize("values", [[1e16, 1.0, -1e16], [0.1] * 10, [-0.0], [-0.0, -0.0], [5e-324] * 3,
                                    [1e308, 1e308, -1e308], [math.inf, 1.0], [math.inf, -math.inf], [math.nan],
                                    []])
def test_exact_sum_edges(tier: bool, values: list[float]) -> None:
    """The edges, with a control: the plain float sum differs from ``fsum`` on the first two."""
    assert _outcome(_ours, values) == _outcome(_fsum, values)
    if values in ([1e16, 1.0, -1e16], [0.1] * 10):
        assert sum(values) != math.fsum(values)


def test_exact_mean_divides_the_exact_sum(tier: bool) -> None:
    values = np.array([1e16, 1.0, -1e16, 2.0])
    assert exact_mean(values) == math.fsum(values.tolist()) / 4 == 0.75 and math.isnan(exact_mean(values[:0]))
