"""Shuffling the records of a release into a seeded random order."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit.errors import InputError


def shuffle_rows(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The rows of ``frame`` in a seeded random order, with a fresh ``RangeIndex``.

    Releasing the records in their input order would let two releases of the same data be joined
    by position; a random order (``numpy.random.default_rng(seed).permutation``) prevents that.
    The same seed gives the same order.
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InputError("the seed must be a non-negative integer", key="seed", value=seed)
    if seed < 0:
        raise InputError("the seed must be a non-negative integer", key="seed", value=seed)
    order = np.random.default_rng(int(seed)).permutation(len(frame))
    return frame.iloc[order].reset_index(drop=True)

