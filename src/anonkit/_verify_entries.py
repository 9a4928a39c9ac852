"""The rows of a published text column made from class labels (:func:`anonkit._verify_rows.text_column`): each
row's label entry (:func:`row_entries`, shared by the columns of one release) and the codes and texts the
verifier reads from such a column, computed from the labels and the entries instead of the cells
(:func:`entry_codes`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from anonkit._kernels import KEY_LIMIT, LOOKUP_PER_ROW, LOOKUP_SLACK, first_rows, group_pairs
from anonkit._values import factorize_labels

#: :func:`entry_codes` numbers the texts of up to this many labels in Python (a dict), more with pandas' hashing
DICT_LABELS_UP_TO = 1024


def entry_codes(labels: np.ndarray, by_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each label entry's code and the texts, such that ``codes[entry]`` and the texts are what
    :func:`~anonkit._verify_rows.text_codes` reads from the column ``labels[entry]`` (Arrow's take of the labels
    at the rows' entries; ``by_row``: the entries that have rows, in order of their first row,
    :func:`row_entries`): each distinct text numbered by the first row that holds it, the texts in that order,
    each the object of its first label entry (what ``pd.factorize(labels)`` keeps); an entry no row holds whose
    text no row holds either gets ``-1`` (never read: no row has it). Why they are the cells': row ``i``
    holds ``labels[entry[i]]``, so the first row of a text is the first row of its first entry in ``by_row``.
    The labels are numbered by :func:`~anonkit._values.factorize_labels` (a dict up to
    :data:`DICT_LABELS_UP_TO` labels, all exact ``str``; else ``pd.factorize``: the same ids and objects)."""
    entry_text, uniques = factorize_labels(np.asarray(labels, dtype=object), DICT_LABELS_UP_TO)
    order = pd.unique(entry_text[by_row])  # the texts of the entries in order of their first rows
    rank = np.full(len(uniques), -1, dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[entry_text], np.asarray(uniques, dtype=object)[order]


def label_column(store: dict[tuple, tuple[Any, Any]], labels: np.ndarray,
                 index: np.ndarray) -> tuple[Any, RowCodes | None, np.ndarray | None]:
    """``pd.Series(labels).array.take(index)`` (``labels`` all ``str``; ``index`` in ``[-len(labels),
    len(labels))``) and, when that column is held by pyarrow, its codes and texts (:func:`entry_codes`, the texts
    read-only), else ``None`` twice: :func:`~anonkit._verify_rows.text_column`'s column, made at the rows' entries
    (:func:`row_entries`: the cells a negative index counted from the end names) in ``store`` (one release's).

    Labels that are all exact ``str``, when pandas gives a column of such objects its pyarrow text dtype (asked
    once per ``store`` of a one-element column: pandas infers that dtype from the values being text and from its
    options, never from which texts they are), are made without pandas' inference and checks: pyarrow's array of
    the labels' texts (what pandas builds for that dtype) taken at the entries, wrapped by the public
    ``pandas.arrays.ArrowStringArray`` in that dtype (a column whose rows all hold one text: that array built
    from its buffers, :func:`_one_text`). Another column of the same release made from the same
    texts in the same order at the same entries (the object ``row_entries`` shares) holds the same cells, so it
    is handed the first one's Arrow memory as a new pandas array (Arrow's buffers never change; a write into one
    frame replaces that frame's array) with the first one's codes (the codes of that memory)."""
    entry, by_row = row_entries(store, index, len(labels))
    texts = labels.tolist()
    dtype = _text_dtype(store) if all(type(v) is str for v in texts) else None
    if dtype is None:  # (other labels, or pandas' text not pyarrow's: pandas' own column)
        column = pd.Series(labels).array.take(entry)
        if not (isinstance(column.dtype, pd.StringDtype) and column.dtype.storage == "pyarrow"):
            return column, None, None
        per_entry, out = entry_codes(labels, by_row)
        out.flags.writeable = False
        return column, RowCodes(per_entry, entry, len(out), by_row), out
    import pyarrow as pa  # (pandas' text is pyarrow's here: it is loaded)

    key = ("text column", id(entry), tuple(texts))
    hit = store.get(key)
    if hit is not None and hit[0] is entry:  # (the entries held with it: the id is theirs)
        arrow, codes, out = hit[1]
        return pd.arrays.ArrowStringArray(arrow, dtype=dtype), codes, out
    taken = _one_text(pa, texts, by_row, len(entry))
    if taken is None:
        taken = pa.array(texts, type=pa.large_string()).take(entry)
    per_entry, out = entry_codes(labels, by_row)
    out.flags.writeable = False
    codes = RowCodes(per_entry, entry, len(out), by_row)
    store[key] = (entry, (taken, codes, out))
    return pd.arrays.ArrowStringArray(taken, dtype=dtype), codes, out


def _one_text(pa: Any, texts: list[str], by_row: np.ndarray, n: int) -> Any:
    """The column of ``n`` rows whose label entries with rows (``by_row``) all hold one text, built from its
    buffers (each row that text's UTF-8 bytes, none missing: what Arrow's take of the labels at those entries
    gives, values, type and null count, without a copy per row), else ``None`` (several texts, no row, or a text UTF-8
    cannot encode: the take decides)."""
    if not len(by_row) or len({texts[e] for e in by_row.tolist()}) != 1:
        return None
    try:
        one = texts[int(by_row[0])].encode("utf-8")
    except UnicodeEncodeError:
        return None
    offsets = np.arange(n + 1, dtype=np.int64)
    offsets *= len(one)
    # (no validity bitmap: no row is missing, which Arrow reads from a null count of 0 whatever the bitmap holds)
    return pa.Array.from_buffers(pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(one * n)],
                                 null_count=0)


def _text_dtype(store: dict[tuple, tuple[Any, Any]]) -> Any:
    """The dtype pandas gives a column of ``str`` objects when it is pyarrow's text, else ``None``; asked once per
    ``store`` (of a one-element column: the dtype depends on the values being text and on pandas' options)."""
    hit = store.get(("text dtype",))
    if hit is None:
        dtype = pd.Series(np.array([""], dtype=object)).dtype
        arrow = isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"
        hit = store[("text dtype",)] = (None, dtype if arrow else None)
    return hit[1]


def row_entries(store: dict[tuple, tuple[Any, Any]], index: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The label entry of every row of ``index`` (a negative index counted from the end of ``m`` labels) and
    the entries that have rows, in order of their first row (an ``IndexError`` for an index outside
    ``[-m, m)``), made once per ``index`` and ``m`` in ``store`` (the columns of one release share their rows'
    classes): kept with a copy of ``index``, and read again only for an index object of the same id (held,
    so the id is its) whose values are still the copy's."""
    key = ("entries", id(index), m)
    hit = store.get(key)
    if hit is None or hit[0][0] is not index or not np.array_equal(hit[0][1], index):
        entry = np.where(index < 0, index + m, index)
        if entry.size and entry.min() < 0:  # (an index past the start: what the take would refuse)
            raise IndexError("out of bounds value in the index of a text column")
        first = first_rows(entry, m)  # (an entry past the end raises here)
        present = np.flatnonzero(first >= 0)
        entry.flags.writeable = False  # (shared by the columns made from it, and by their codes: RowCodes)
        hit = store[key] = ((index, index.copy()), (entry, present[np.argsort(first[present], kind="stable")]))
    return hit[1]


class RowCodes:
    """The codes of a text column made from labels at its rows' entries: each entry's code (``per_entry``, from
    :func:`entry_codes`), the rows' entries (``entry``, read-only, shared by the columns of one release) and the
    number of texts (``size``), and the entries that have rows (``present``, :func:`row_entries`' second array,
    held with ``entry``; ``None``: not given); every row's code, ``per_entry[entry]``, made on first read
    (:meth:`rows`) and kept, read-only: a reader that needs them makes them once, and the grouping of such columns
    (:func:`group_entries`) needs none."""

    __slots__ = ("_rows", "entry", "per_entry", "present", "size")

    def __init__(self, per_entry: np.ndarray, entry: np.ndarray, size: int,
                 present: np.ndarray | None = None) -> None:
        per_entry.flags.writeable = False
        self.per_entry, self.entry, self.size, self.present = per_entry, entry, size, present
        self._rows: np.ndarray | None = None

    def rows(self) -> np.ndarray:
        """Every row's code (read-only; the same array on every read)."""
        if self._rows is None:
            rows = self.per_entry[self.entry]
            rows.flags.writeable = False
            self._rows = rows
        return self._rows


def group_entries(parts: list[RowCodes]) -> tuple[np.ndarray, int] | None:
    """``group_columns([p.rows() for p in parts], [p.size for p in parts])`` without the rows' codes, when every
    column was made at one array of entries and the key space stays below ``KEY_LIMIT``; else ``None``. Why it is
    the same grouping: ``group_columns`` builds each row's mixed-radix key from its codes, elementwise, and
    densifies the keys (on the way only when the key space would reach the limit: then this declines); a row's
    codes are its entry's, so its key is its entry's key, built here once per entry and gathered; the same keys
    and the same key space are then densified by ``group_pairs`` itself, so the ids are the ones it gives. A key
    space small enough for ``group_pairs``' lookup array (:func:`_entry_ids`) is densified per entry instead."""
    if not parts or any(p.entry is not parts[0].entry for p in parts):
        return None
    radix = max(int(parts[0].size), 1)
    key = parts[0].per_entry.astype(np.int64)
    for p in parts[1:]:
        size = max(int(p.size), 1)
        if radix * size >= KEY_LIMIT:
            return None
        key *= size
        key += p.per_entry
        radix *= size
    ids = _entry_ids(key, radix, parts[0].entry, parts[0].present)
    return ids if ids is not None else group_pairs([(key[parts[0].entry], radix)])


def _entry_ids(key: np.ndarray, radix: int, entry: np.ndarray,
               present: np.ndarray | None) -> tuple[np.ndarray, int] | None:
    """``group_pairs([(key[entry], radix)])`` (``key``: each entry's key, in ``[0, radix)``) computed per entry, when
    ``present`` (the entries that have rows) is given and the key space takes ``group_pairs``' lookup array
    (:func:`anonkit._kernels._densify`'s rule: :data:`~anonkit._kernels.LOOKUP_PER_ROW`,
    :data:`~anonkit._kernels.LOOKUP_SLACK`); else ``None``. Why the same ids: that lookup marks the keys the rows
    hold, numbers the marked keys in key order (a cumulative sum) and reads every row's number at its key; the keys
    the rows hold are the keys of the entries that have rows, so marking those gives the same numbers, and a row's
    number is its entry's, read once per entry and then gathered at the rows' entries (int64, as the lookup writes
    them)."""
    if present is None or radix > LOOKUP_PER_ROW * len(entry) + LOOKUP_SLACK:
        return None
    held = key[present]  # (an entry without rows may have no code: its key is never read)
    marked = np.zeros(radix, dtype=np.bool_)
    marked[held] = True
    remap = np.cumsum(marked, dtype=np.int64) - 1
    per_entry = np.zeros(len(key), dtype=np.int64)
    per_entry[present] = remap[held]
    return per_entry[entry], int(remap[-1]) + 1
