"""Random small tables with a research subset, and their schema, for the population models' property
tests (k-map, δ-presence, profitability); a helper, no tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from anonkit.hierarchy import Hierarchy
from anonkit.schema import Schema


@st.composite
def populations(draw):  # type: ignore[no-untyped-def]
    """``(frame, mask)``: 4–40 records over two quasi-identifiers and a sensitive column, and a
    research subset of at least one record."""
    n = draw(st.integers(4, 40))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    frame = pd.DataFrame({"a": rng.integers(0, 6, n).astype(str), "b": rng.integers(0, 4, n).astype(str),
                          "s": rng.integers(0, 3, n).astype(str)})
    mask = rng.random(n) < draw(st.floats(0.2, 0.9))
    if not mask.any():
        mask[0] = True
    return frame, mask


def population_schema() -> Schema:
    """The schema of :func:`populations`' tables: ``a`` (0–5, two levels), ``b`` (0–3), ``s`` sensitive."""
    ha = Hierarchy([[str(v), "0-2" if v < 3 else "3-5", "*"] for v in range(6)], name="a")
    hb = Hierarchy([[str(v), "*"] for v in range(4)], name="b")
    return Schema.of(quasi=["a", "b"], sensitive=["s"], hierarchies={"a": ha, "b": hb})
