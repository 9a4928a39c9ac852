"""The pyarrow memory a pandas text column reads (:func:`arrow_text`, :func:`memory_key`), and a column's codes
at some of its rows numbered again by first appearance (:func:`relabelled`): what codes kept for a column are
keyed and relabelled by (the encoded table's :attr:`~anonkit.table.Table.encoded_cells`, the verifier's shared
codes in :mod:`anonkit._verify_rows`, which hold the arrays, so the memory cannot be reused while it is kept).
Pure functions of their arguments, in the base layer beside :mod:`anonkit._values`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows


def arrow_text(values: Any) -> Any:
    """The pyarrow array of a pandas text column (a Series, or its array) held by pyarrow, else ``None``."""
    if not (isinstance(values, pd.Series | pd.api.extensions.ExtensionArray)
            and isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # (pandas' text columns are pyarrow's: it is loaded)

    return pa.array(values.array if isinstance(values, pd.Series) else values)


def memory_key(arrow: Any) -> tuple:
    """What names the memory a pyarrow array reads: each chunk's type, offset, length and buffer
    addresses (a slice shares the buffers but not the offset and length)."""
    import pyarrow as pa

    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    return tuple((c.type, c.offset, len(c), tuple(0 if b is None else b.address for b in c.buffers()))
                 for c in chunks)


def relabelled(picked: np.ndarray, texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The codes ``picked`` (each in ``[0, len(texts))``, ``texts`` distinct) numbered again by first
    appearance in ``picked``, and the texts in that order (both read-only): what a factorization by first
    appearance (``factorize_text``, Arrow's ``dictionary_encode``) gives for the column whose row ``i`` holds
    ``texts[picked[i]]`` — two rows hold one text exactly when their codes are equal, since the texts are
    distinct, so the classes of rows are the same and only their numbering changes."""
    m = len(texts)
    first = first_rows(picked, m)
    seen = np.flatnonzero(first >= 0)
    order = seen[np.argsort(first[seen], kind="stable")]  # the texts by their first row in the column
    rank = np.full(m, -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    codes, out = rank[picked], texts[order]
    codes.flags.writeable = False
    out.flags.writeable = False
    return codes, out
