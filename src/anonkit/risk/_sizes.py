"""Checking the class-size arrays every risk model starts from.

A class-size array holds, per released equivalence class, a whole number ≥ 0: the records (or, with
a person column, the persons) the release puts in that class. Classes of size 0 (e.g. classes whose
records were all suppressed) are published nowhere, carry no risk and are dropped.
"""

from __future__ import annotations

import numpy as np

from anonkit.errors import InputError


def class_sizes(values: object, key: str) -> np.ndarray:
    """``values`` as a one-dimensional int64 array of whole numbers ≥ 0 (zeros kept); an
    :class:`~anonkit.errors.InputError` naming ``key`` (and the first bad position) otherwise."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise InputError(f"{key} must be an array of class sizes", key=key) from exc
    if arr.ndim == 0:
        raise InputError(f"{key} must be an array of class sizes, not a single number", key=key, value=values)
    if arr.ndim != 1:
        raise InputError(f"{key} must be one-dimensional (one size per class), got shape {arr.shape}", key=key)
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise InputError(f"{key} must hold whole numbers (class sizes), got dtype {arr.dtype}", key=key)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{key} must hold whole numbers (class sizes)", key=key, value=arr[i], row=i)
    negative = arr < 0
    if negative.any():
        i = int(np.flatnonzero(negative)[0])
        raise InputError(f"{key} must not hold negative class sizes", key=key, value=arr[i], row=i)
    return arr.astype(np.int64)


def released_sizes(sample_sizes: object) -> np.ndarray:
    """The checked sample sizes without the empty classes."""
    sizes = class_sizes(sample_sizes, "sample_sizes")
    return sizes[sizes > 0]


def paired_sizes(sample_sizes: object, population_sizes: object) -> tuple[np.ndarray, np.ndarray]:
    """Checked sample and population sizes of the same classes, without the classes the release
    leaves empty. Every population size must be at least its sample size (the population contains
    the sample)."""
    s = class_sizes(sample_sizes, "sample_sizes")
    f = class_sizes(population_sizes, "population_sizes")
    if f.shape != s.shape:
        raise InputError(f"population_sizes must give one size per class of sample_sizes ({s.size:,}), "
                         f"got {f.size:,}", key="population_sizes")
    short = f < s
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise InputError(f"a population class must hold at least its {int(s[i]):,} released record(s)",
                         key="population_sizes", value=f[i], row=i)
    keep = s > 0
    return s[keep], f[keep]


def size_histogram(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ARX's ``RiskModelHistogram`` of non-empty classes: the distinct sizes, ascending, and how many
    classes have each."""
    values, counts = np.unique(sizes, return_counts=True)
    return values.astype(np.int64), counts.astype(np.int64)
