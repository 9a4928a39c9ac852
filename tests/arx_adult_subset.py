"""ARX's research subset of Adult (``tests/data/adult_subset.csv``, from ARX's test data) as rows of
Adult, for the goldens of k-map, δ-presence and profitability (a helper, no tests)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data"


def adult_subset_mask(frame: pd.DataFrame) -> np.ndarray:
    """adult_subset.csv's rows as rows of adult.csv (each matched to one row of identical cells)."""
    sub = pd.read_csv(DATA / "adult_subset.csv", sep=";", dtype=str)[list(frame.columns)]
    both = pd.concat([frame.astype(str), sub.astype(str)], ignore_index=True)
    ids, _ = pd.factorize(pd.MultiIndex.from_frame(both))
    n = len(frame)
    occ = pd.Series(ids[:n]).groupby(ids[:n]).cumcount().to_numpy()
    sub_occ = pd.Series(ids[n:]).groupby(ids[n:]).cumcount().to_numpy()
    where = pd.MultiIndex.from_arrays([ids[:n], occ]).get_indexer(pd.MultiIndex.from_arrays([ids[n:], sub_occ]))
    assert (where >= 0).all()
    mask = np.zeros(n, dtype=bool)
    mask[where] = True
    return mask
