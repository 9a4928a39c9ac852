"""The grouping kernels (anonkit._kernels): the in-place and chunked paths that keep large runs lean
give exactly the ids of the plain ones."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import _kernels as K


def reference_groups(columns: list[np.ndarray], shift_first: int = 0) -> np.ndarray:
    """First-appearance ids of the row tuples (pandas), whatever order the kernel's ids follow."""
    cols = [columns[0].astype(np.int64) + shift_first, *columns[1:]]
    return pd.factorize(pd.MultiIndex.from_arrays(cols))[0]


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Two id arrays group the rows alike (ids may be numbered differently)."""
    return len(np.unique(a)) == len(np.unique(b)) == len(np.unique(a * (b.max() + 1) + b))


@settings(deadline=None)  # the first call loads a numba kernel
@given(seed=st.integers(0, 10_000), n=st.integers(1, 3_000), width=st.integers(1, 4),
       radix=st.sampled_from([3, 50, 10**6]), in_place=st.booleans(), chunk=st.sampled_from([7, 1 << 20]))
def test_group_columns_in_place_paths(seed: int, n: int, width: int, radix: int, in_place: bool, chunk: int) -> None:
    """The lookup path (small key space) and the hashed path, in place above IN_PLACE_ABOVE or
    through dense_ids below it, chunk by chunk or whole: the same ids, and the first-appearance
    order on the hashed path; ``shift_first`` stands for a shifted first column."""
    rng = np.random.default_rng(seed)
    columns = [rng.integers(-1, radix - 1, n)] + [rng.integers(0, radix, n).astype(np.int32) for _ in range(width - 1)]
    sizes = [radix] * width
    with pytest.MonkeyPatch.context() as m:
        m.setattr(K, "IN_PLACE_ABOVE", 1 if in_place else 10**12)
        m.setattr(K, "CHUNK_ROWS", chunk)
        kept = [c.copy() for c in columns]
        ids, count = K.group_columns(columns, sizes, shift_first=1)
    assert all(np.array_equal(a, b) for a, b in zip(columns, kept, strict=True))  # the inputs are untouched
    ref = reference_groups(columns, 1)
    assert count == ref.max() + 1 and same_partition(ids, ref)
    if radix ** width > 4 * n + 4096:  # hashed: ids in first-appearance order
        assert np.array_equal(ids, ref)


@given(seed=st.integers(0, 10_000), n=st.integers(0, 2_000), m=st.integers(1, 50), chunk=st.sampled_from([3, 1 << 20]))
def test_first_rows(seed: int, n: int, m: int, chunk: int) -> None:
    """The first row of every group, −1 for a group without rows, rows of a negative id ignored,
    whatever the chunk size."""
    group = np.random.default_rng(seed).integers(-1, m, n)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(K, "CHUNK_ROWS", chunk)
        got = K.first_rows(group, m)
    want = np.array([np.flatnonzero(group == g)[0] if (group == g).any() else -1 for g in range(m)])
    assert np.array_equal(got, want)


def test_gather_is_indexing() -> None:
    rng = np.random.default_rng(0)
    values = rng.integers(0, 100, 50).astype(np.int8)
    index = rng.integers(0, 50, 1000).astype(np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(K, "CHUNK_ROWS", 64)
        got = K.gather(values, index, np.int8)
    assert got.dtype == np.int8 and np.array_equal(got, values[index])
