"""The verifier's row-level helpers: the codes of published and input text columns (kept inside one call's
blocks), which published rows are suppressed, the classes of rows grouped by their text, identical rows
counted once (:mod:`anonkit.verifier` judges the models on what these give; they read the published cells
alone, never the algorithm that made them). The domain specs, the quasi-identifier columns and the
suppression mask's split are in :mod:`anonkit._verify_inputs`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from anonkit._arrow_memory import arrow_text as _arrow_text
from anonkit._arrow_memory import memory_key as _memory_key
from anonkit._arrow_memory import relabelled
from anonkit._kernels import first_rows, group_columns, group_pairs
from anonkit._values import cell_addresses, factorize_text
from anonkit._verify_entries import RowCodes, group_entries, label_column
from anonkit._verify_inputs import SUPPRESSED
from anonkit.stats import table_memo

#: inside :func:`same_release_codes`: each pyarrow text column's codes by the memory it reads (its chunks'
#: offsets, lengths and buffer addresses), with the column that holds that memory (so it is not reused), and
#: each grouping of such columns (:func:`group_rows`) by their keys
_SHARED: ContextVar[dict[tuple, tuple[Any, Any]] | None] = ContextVar("anonkit_verifier_codes", default=None)
#: inside :func:`input_codes`: the input's columns' codes (the verifier's reference), kept from one run to the next,
#: and under :data:`_SLOT` the last verified release's codes, handed on to its audit (:func:`verified_codes`)
_LASTING: ContextVar[dict[tuple, Any] | None] = ContextVar("anonkit_verifier_input_codes", default=None)
_SLOT = ("last verified release",)
#: inside :func:`published_codes`: the codes (:class:`~anonkit._verify_entries.RowCodes`) and texts of every text
#: column :func:`text_column` made, by the memory the column reads, with the column (so that no other column can
#: take its addresses)
_PUBLISHED: ContextVar[dict[tuple, tuple[Any, Any]] | None] = ContextVar("anonkit_published_codes", default=None)


@contextmanager
def same_release_codes() -> Iterator[None]:
    """A block in which :func:`text_codes` encodes each pyarrow text column once, however many frames
    over the same memory read it, and :func:`group_rows` groups the same columns once: the audit recounts
    one release twice (its classes for the attacks, then every model through the verifier) and its
    attacks read the same columns again (singling-out's uniqueness, the ``*`` check), and each recount
    reads the published cells alone, as before. The codes are keyed by the memory the column reads (a
    frame re-indexed over the same buffers reads the same), the column that holds it is kept for the block
    (so no other column can take its addresses), and each read gets its own copy (:func:`read_codes`: the
    shared arrays themselves, read-only). A block inside another is the outer one."""
    if _SHARED.get() is not None:
        yield
        return
    lasting = _LASTING.get()
    handed = lasting.pop(_SLOT, None) if lasting is not None else None  # the last verification's, taken once
    token = _SHARED.set({} if handed is None else handed)
    try:
        yield
    finally:
        _SHARED.reset(token)


@contextmanager
def verified_codes() -> Iterator[None]:
    """:func:`~anonkit.verifier.verify`'s block: inside a job's :func:`input_codes` block (a rerun of the
    advice, a trial of the fixes) and outside any :func:`same_release_codes` block, the codes and
    groupings the verification makes of its release go to the job's one slot, which the audit of that
    release takes (:func:`same_release_codes`, keyed by memory as ever: a slot of another release is never
    read as this one's); the slot holds one release at a time (each verification replaces it) and is
    emptied by the audit that takes it."""
    lasting = _LASTING.get()
    if lasting is None or _SHARED.get() is not None:
        yield
        return
    slot = lasting[_SLOT] = {}
    token = _SHARED.set(slot)
    try:
        yield
    finally:
        _SHARED.reset(token)


@contextmanager
def input_codes() -> Iterator[None]:
    """A job's block (its run, its advice's reruns, its fixes' trials: one input, read once into one
    frame) in which the codes of the *input's* columns the verifier reads as its ``reference`` are kept
    from one verification to the next: the same memory gives the same codes by construction (Arrow's
    buffers do not change), so each run's verifier reads the reference it would have encoded. A release's
    columns are kept only in the one slot a verification hands to the release's audit
    (:func:`verified_codes`): each run's release is new. A block inside another is the outer one."""
    if _LASTING.get() is not None:
        yield
        return
    token = _LASTING.set({})
    try:
        yield
    finally:
        _LASTING.reset(token)


@contextmanager
def published_codes() -> Iterator[None]:
    """A block (the runner's publishing and independent verification of one release) in which every text
    column made by :func:`text_column` keeps the codes and texts :func:`text_codes` would read from its cells,
    by the memory the column reads; the verifier's reads of that memory (:func:`text_codes`,
    :func:`read_codes`, a :func:`same_release_codes` block's store) take them instead of encoding the column
    again. A block inside another is the outer one; outside any block nothing is kept."""
    if _PUBLISHED.get() is not None:
        yield
        return
    token = _PUBLISHED.set({})
    try:
        yield
    finally:
        _PUBLISHED.reset(token)


def text_column(labels: np.ndarray, index: np.ndarray, held: dict[str, Any] | None = None,
                name: str = "") -> Any:
    """``labels[index]`` as pandas' text array (what ``pd.Series(labels).array.take(index)`` gives:
    ``labels`` all ``str``, ``index`` in ``[-len(labels), len(labels))``, a negative one counted from the
    end): how the publisher makes a column of repeating texts (a quasi-identifier's class labels).

    Inside a :func:`published_codes` block, a column held by pyarrow keeps its codes and texts as
    :func:`text_codes` reads them (Arrow's dictionary encoding: the distinct texts by first appearance,
    every row's position among them). Why they are what the cells say: the column is made here, by
    Arrow's take, from ``labels`` and ``index`` (each row's label entry, :func:`row_entries`: a negative
    index made its entry from the start, the cell it names), so row ``i`` holds ``labels[index[i]]``; the
    codes are computed from the same two arrays (:func:`~anonkit._verify_entries.entry_codes`: each
    distinct text's first row the first row of its first entry); Arrow's buffers never change, and the column is held
    with its codes, so the memory they are kept by is that column's for the block. A column made
    otherwise, or changed (a new array: other memory), or a slice of it (another offset), finds nothing
    and is read from its cells.

    ``held`` (the runner's, one per encoded table: :func:`published_memo`) keeps, under ``name``, the last
    column made for it with its codes, from one call to the next: a column is a function of ``labels``
    and ``index`` alone, so when both equal the kept ones (every label the same exact ``str``, every
    index the same value) the kept column is handed out again as a new pandas array over the same
    immutable Arrow memory (a write into one frame replaces that frame's array, never the memory), and
    its codes are the ones computed for that memory."""
    kept = _held_column(held, name, labels, index)
    store = _PUBLISHED.get()
    if kept is not None:
        column, codes, out = kept[0].copy(), kept[1], kept[2]
    elif store is None and held is None:
        return pd.Series(labels).array.take(index)
    else:
        # made at the rows' label entries, shared by the columns of one release (each entry in [0, len(labels)):
        # the take reads the cells a negative index counted from the end would, without pandas' copy to fix them)
        column, codes, out = label_column(store if store is not None else {}, labels, index)
        if codes is None:  # (not held by pyarrow)
            return column
        _hold_column(held, name, labels, index, column, codes, out)
    arrow = _arrow_text(column)
    if arrow is None:
        return column
    if store is not None:
        store[("codes", _memory_key(arrow))] = (arrow, (codes, out))
    return column


#: :func:`published_memo` keeps a table's last published text columns up to this many rows (the calls on one
#: small unchanged input; a column of a larger table is made again each time rather than held)
HELD_COLUMNS_UP_TO = 100_000


def published_memo(table: Any) -> dict[str, Any] | None:
    """The dict in which :func:`text_column` keeps ``table``'s last published text columns (one per column
    name under ``"columns"``, replaced by the next: bounded by the table's columns; the last index under
    ``"index"``), or ``None`` for a table of more than :data:`HELD_COLUMNS_UP_TO` rows."""
    if table.n > HELD_COLUMNS_UP_TO:
        return None
    return table_memo(table, ("published text columns",), lambda: {"index": None, "columns": {}})


def _held_column(held: dict[str, Any] | None, name: str, labels: np.ndarray,
                 index: np.ndarray) -> tuple[Any, RowCodes, np.ndarray] | None:
    """The column, codes and texts ``held`` keeps under ``name`` when it was made from these very labels
    (each the same exact ``str``) and index values, else ``None``."""
    hit = None if held is None else held["columns"].get(name)
    if hit is None:
        return None
    kept_labels, kept_index, made = hit
    if (len(kept_labels) != len(labels) or kept_index.shape != index.shape
            or not np.array_equal(kept_index, index)):
        return None
    if not all(type(v) is str for v in labels) or labels.tolist() != kept_labels:
        return None
    return made


def _hold_column(held: dict[str, Any] | None, name: str, labels: np.ndarray, index: np.ndarray,
                 column: Any, codes: RowCodes, out: np.ndarray) -> None:
    """Keeps ``column`` and its codes in ``held`` under ``name`` (replacing what was there) with copies of
    ``labels`` and ``index`` (the index copy shared by the columns of one release), when every label is an
    exact ``str`` (a value that never changes, compared by its text: a subclass of ``str`` may say it equals
    another text, held or asked for, and :func:`_held_column` refuses it on either side)."""
    if held is None or not all(type(v) is str for v in labels):
        return
    last = held.get("index")  # (the last index kept: the columns of one release share it)
    if last is None or last.shape != index.shape or not np.array_equal(last, index):
        last = index.copy()
        last.flags.writeable = False
        held["index"] = last
    held["columns"][name] = (labels.tolist(), last, (column.copy(), codes, out))


def _published(arrow: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The codes and texts :func:`text_column` kept for the memory ``arrow`` reads (read-only), or those
    :func:`taken_column` kept for it (relabelled once, :func:`_taken_arrow`), else ``None``."""
    store = _PUBLISHED.get()
    if store is None:
        return None
    key = _memory_key(arrow)
    hit = store.get(("codes", key))
    if hit is not None:
        return hit[1][0].rows(), hit[1][1]
    taken = store.get(("taken arrow", key))
    if taken is None:
        return None
    made = taken[1]
    if made[2] is None:  # (the input's codes at the published rows, numbered as the column's cells number them)
        made[2] = relabelled(made[0], made[1].texts)
    return made[2]


def _stored_codes(store: dict[tuple, tuple[Any, Any]], arrow: Any) -> tuple[np.ndarray, np.ndarray]:
    """The codes of ``arrow`` from ``store`` (encoded and stored, read-only, on the first read)."""
    key = ("codes", _memory_key(arrow))
    hit = store.get(key)
    if hit is None:
        import pyarrow.compute as pc

        made = _published(arrow)
        codes, labels = made if made is not None else _arrow_codes(arrow, pc)
        codes.flags.writeable = False
        labels.flags.writeable = False
        hit = store[key] = (arrow, (codes, labels))
    return hit[1]


def text_codes(values: pd.Series, *, compact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~anonkit._values.factorize_text` of a published column (codes by first appearance, the
    canonical text of each; a missing cell is the text ``""``), the same codes and texts, with a
    cheaper path for a column of text held by pyarrow: Arrow's dictionary encoding, whose dictionary
    is in order of first appearance (a missing cell encoded at its own) and whose values are already
    their own text (no cell becomes a Python object); a missing cell's entry and a real ``""`` are
    then one text, as ``factorize_text`` makes them. Any other column goes through
    ``factorize_text``. The verifier reads every column it groups through this, once. The caller owns
    what it gets (a copy of what a :func:`same_release_codes` block shares)."""
    arrow = _arrow_text(values)
    if arrow is None:
        taken = _taken(values)  # (a column taken_column kept, proven the same cells: its codes)
        return factorize_text(values, compact=compact) if taken is None else (taken[0].copy(), taken[1].copy())
    made = _published(arrow)
    if made is not None:  # (a column text_column made: its codes, see there)
        return made[0].copy(), made[1].copy()
    shared = _SHARED.get()
    if shared is None:
        import pyarrow.compute as pc

        return _arrow_codes(arrow, pc)
    codes, labels = _stored_codes(shared, arrow)
    return codes.copy(), labels.copy()


def read_codes(values: pd.Series, *, compact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`text_codes` for a reader that only reads them: inside a :func:`same_release_codes` block a
    pyarrow text column's shared codes and texts themselves, read-only (a write raises), no copy; so are
    those of a column :func:`text_column` made inside a :func:`published_codes` block."""
    arrow = _arrow_text(values)
    shared = _SHARED.get()
    made = (_published(arrow) if shared is None else None) if arrow is not None else _taken(values)
    if made is not None:
        return made
    if arrow is None or shared is None:
        return text_codes(values, compact=compact)
    return _stored_codes(shared, arrow)


def kept_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`read_codes` of a column of the job's input: inside an :func:`input_codes` block a pyarrow
    text column is encoded once for the job and kept there (read-only), else as :func:`read_codes` reads it."""
    arrow = _arrow_text(values)
    lasting = _LASTING.get()
    if arrow is None or lasting is None:
        return read_codes(values)
    return _stored_codes(lasting, arrow)


def reference_codes(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """:func:`read_codes` of the column the verifier reads as its reference: the job's codes of it when
    an :func:`input_codes` block holds them already (the input's column, kept by :func:`kept_codes`; the
    same memory, so the same codes), read-only; else as :func:`read_codes` reads it. Nothing is added to
    the job's store here (a reference may be a release's own column, which is never kept)."""
    arrow = _arrow_text(values)
    lasting = _LASTING.get()
    if arrow is not None and lasting is not None:
        hit = lasting.get(("codes", _memory_key(arrow)))
        if hit is not None:
            return hit[1]
    return read_codes(values)


def _arrow_codes(arrow: Any, pc: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`text_codes` of a pyarrow text array: Arrow's dictionary encoding (see there)."""
    import pyarrow as pa

    if isinstance(arrow, pa.ChunkedArray):
        arrow = arrow.combine_chunks()
    encoded = pc.dictionary_encode(arrow, null_encoding="encode")
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    labels = np.asarray(encoded.dictionary.to_numpy(zero_copy_only=False), dtype=object)
    if encoded.dictionary.null_count:
        labels[pd.isna(labels)] = ""
        merged, texts = pd.factorize(labels)
        if len(texts) < len(labels):  # a missing cell and a real "" are one text
            codes = merged[codes]
        labels = np.asarray(texts, dtype=object)
    return codes, labels


class CodedColumn(NamedTuple):
    """A column as what :func:`text_codes` reads from its cells (codes by first appearance, the text of
    each), read-only; ``cells``: a private copy of the object cells it was read from when every one is a
    ``str`` (a value that never changes; held, so their addresses name them), else ``None``; ``arrow``: the
    pyarrow array of a text column without a missing cell it was read from (held: Arrow's memory never
    changes, and is not reused while held), else ``None``. The verifier takes one as a ``reference``
    column; :func:`input_codes_of` makes one per encoded table."""

    codes: np.ndarray
    texts: np.ndarray
    cells: np.ndarray | None = None
    arrow: Any = None


def coded_column(values: pd.Series, encoded: tuple[np.ndarray, np.ndarray] | None = None) -> CodedColumn:
    """``values`` read as :func:`text_codes` reads it (see :class:`CodedColumn`); ``encoded``: those codes and
    texts already computed (:func:`_encoding_of`), taken instead of reading the cells again."""
    codes, texts = reference_codes(values) if encoded is None else encoded
    coded = CodedColumn(codes.copy(), texts.copy(), None)  # (its own arrays, whatever block they were read in)
    cells = values.to_numpy() if values.dtype == object else None
    if cells is not None and pd.api.types.infer_dtype(cells, skipna=False) == "string":
        coded = coded._replace(cells=cells.copy())  # (a copy: a write into the frame cannot reach it)
        coded.cells.flags.writeable = False  # type: ignore[union-attr]
    arrow = _arrow_text(values)
    if arrow is not None and not arrow.null_count:
        coded = coded._replace(arrow=arrow)  # (the memory the codes were read from)
    coded.codes.flags.writeable = False
    coded.texts.flags.writeable = False
    return coded


def input_codes_of(table: Any, name: str) -> CodedColumn:
    """The encoded table's input column ``name`` (``table.frame[name]``) as :func:`coded_column` reads it,
    once per table (:func:`~anonkit.stats.table_memo`: the calls on one unchanged input, a job's runs): a
    table's frame is not changed once encoded, so every read would give these codes."""
    def read() -> CodedColumn:
        values = table.frame[name]
        return coded_column(values, _encoding_of(table, name, values))

    return table_memo(table, ("input column codes", name), read)


def _encoding_of(table: Any, name: str, values: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """The codes and texts :func:`text_codes` reads from the column ``values`` (``table.frame[name]``), from
    the table's encoding when it kept them (``table.encoded_cells[name]``: the array of object cells, or the
    pyarrow text array, the encoding factorized, :func:`~anonkit._values.factorize_text`'s codes and texts of
    them), else ``None``. Why they are the column's: ``text_codes`` of an object column is ``factorize_text``
    of its cells, and ``values`` reads the very cells the encoding read — the same memory (address, length,
    stride), which the kept array holds so that no other array can take it (a table made from another with
    other rows, its frame a new one, reads other memory and finds nothing); the cells are not changed once
    encoded (the rule :func:`input_codes_of` keeps its codes by). A pyarrow text column is taken the same
    way, when it reads the kept array's memory (:func:`_memory_key`: its buffers, offset and length; Arrow's
    memory never changes) and has no missing cell: ``factorize_text`` of it is then Arrow's dictionary
    encoding of those cells, which is what :func:`text_codes` reads (``_arrow_codes``: missing cells aside,
    the same encoding)."""
    kept = getattr(table, "encoded_cells", None)
    hit = kept.get(name) if isinstance(kept, dict) else None
    if hit is None:
        return None
    cells, codes, texts = hit
    arrow = _arrow_text(values)
    if arrow is not None:
        if (isinstance(cells, np.ndarray) or arrow.null_count or cells.null_count
                or _memory_key(arrow) != _memory_key(cells)):
            return None
        return np.asarray(codes, dtype=np.int64), np.asarray(texts, dtype=object)
    if values.dtype != object or not isinstance(cells, np.ndarray):
        return None
    now = values.to_numpy()
    if (now.dtype != object or cells.dtype != object or now.shape != cells.shape or now.strides != cells.strides
            or now.__array_interface__["data"][0] != cells.__array_interface__["data"][0]):
        return None
    return np.asarray(codes, dtype=np.int64), np.asarray(texts, dtype=object)


def taken_column(values: pd.Series, rows: np.ndarray, coded: Callable[[], CodedColumn],
                 take: Callable[[pd.Series, np.ndarray], Any] | None = None) -> Any:
    """``values.array.take(rows)`` (or ``take(values, rows)``, which gives the same values: the publisher's
    :func:`~anonkit.release.take_rows`): a column published as its input's cells at ``rows``.

    Inside a :func:`published_codes` block, when ``coded()`` (the column's :class:`CodedColumn`, asked
    for only then) holds its cells (every one a ``str``), the column keeps, by its name, ``rows`` and
    those codes for the verifier (:func:`_taken`), which takes them only after proving the cells it reads
    are the very objects ``coded().cells[rows]``: a cell is its object's text, and a ``str`` never changes.
    A pyarrow text column over the memory ``coded()`` was read from is made from its codes instead of its
    cells, and kept by the memory of what it gives (:func:`_taken_arrow`)."""
    store = _PUBLISHED.get()
    if store is not None and values.dtype != object:
        made = _taken_arrow(store, values, rows, coded)
        if made is not None:
            return made
    taken = values.array.take(rows) if take is None else take(values, rows)
    if store is None or values.dtype != object:
        return taken
    kept = coded()
    if kept.cells is not None and len(kept.cells) == len(values):
        store[("taken", values.name)] = (kept, (np.array(rows, copy=True), kept))
    return taken


def _taken(values: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`text_codes` of an object column :func:`taken_column` kept (read-only), when its cells now are
    the objects it was taken from (their addresses equal, cell by cell, while those objects are held); the
    codes relabelled by first appearance in the column, as :func:`~anonkit._values.factorize_text` numbers
    them. ``None`` otherwise (the column is read from its cells)."""
    store = _PUBLISHED.get()
    if store is None or not isinstance(values, pd.Series) or values.dtype != object:
        return None
    hit = store.get(("taken", values.name))
    if hit is None:
        return None
    rows, kept = hit[1]
    now = values.to_numpy()
    if now.shape != rows.shape or not np.array_equal(cell_addresses(now), cell_addresses(kept.cells)[rows]):
        return None
    return relabelled(kept.codes[rows], kept.texts)  # (the texts by their first row in the column)


def _taken_arrow(store: dict[tuple, tuple[Any, Any]], values: pd.Series, rows: np.ndarray,
                 coded: Callable[[], CodedColumn]) -> Any:
    """``values.array.take(rows)`` made from the column's codes, when ``values`` is a pyarrow text column
    without a missing cell over the very memory ``coded()`` was read from (its ``arrow``: the same buffers,
    offset and length, held), else ``None`` (the caller takes the cells). Why it is the same array: cell ``i``
    of ``values`` is ``coded().texts[coded().codes[i]]`` (Arrow's dictionary encoding of that memory, no
    missing cell), so row ``j`` of the take is ``texts[codes[rows[j]]]``: Arrow's take of the few distinct
    texts (in the column's own Arrow type) at the codes gathered at ``rows`` (an index outside the column
    raises, a negative one counts from the end, as the take does), no row missing, in the column's dtype —
    the distinct texts are read instead of the published cells scattered over the whole input column. The
    gathered codes, numbered again by first appearance (:func:`~anonkit._arrow_memory.relabelled`, on the
    first read), are Arrow's dictionary encoding of the column (what :func:`text_codes` reads): kept, with the
    column's Arrow array, by the memory that array reads (:func:`_published`)."""
    source = _arrow_text(values)
    if source is None:
        return None
    kept = coded()
    if kept.arrow is None or len(kept.codes) != len(source) or _memory_key(kept.arrow) != _memory_key(source):
        return None
    import pyarrow as pa  # (the column is pyarrow's: it is loaded)

    picked = kept.codes[rows]
    picked.flags.writeable = False
    out = pa.array(kept.texts.tolist(), type=source.type).take(picked)
    column = pd.arrays.ArrowStringArray(out, dtype=values.dtype)
    arrow = _arrow_text(column)
    store[("taken arrow", _memory_key(arrow))] = (arrow, [picked, kept, None])
    return column


def count_rows(frame: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The distinct rows of ``frame[columns]``, compared as the verifier reads cells (as text), in
    order of first appearance, and how many rows each stands for."""
    if not columns:
        return frame.iloc[:1][[]], np.array([float(len(frame))])
    def pairs() -> Iterator[tuple[np.ndarray, int]]:  # one column's codes at a time beside the key
        for c in columns:
            codes, labels = read_codes(frame[c], compact=True)
            yield codes, len(labels)

    group, m = group_pairs(pairs())
    first = first_rows(group, m)
    order = np.argsort(first, kind="stable")  # first appearance
    counts = np.bincount(group, minlength=m).astype(np.float64)[order]
    return frame[columns].iloc[first[order]].reset_index(drop=True), counts


def suppressed_rows(frame: pd.DataFrame, qis: list[str]) -> np.ndarray:
    if not qis:
        return np.zeros(len(frame), dtype=bool)
    mask = np.ones(len(frame), dtype=bool)
    for q in qis:
        codes, labels = read_codes(frame[q], compact=True)
        star = np.flatnonzero(labels == SUPPRESSED)
        if not star.size:
            return np.zeros(len(frame), dtype=bool)
        mask &= codes == star[0]
    return mask


def group_rows(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, int]:
    """The class of every row of ``frame`` by its cells' texts in ``columns`` (rows alike in every one of
    them share a class), and how many classes. Inside a :func:`same_release_codes` block the grouping of
    the same pyarrow text columns (the same memory, in the same order) is made once and every reader
    reads the one array of classes, read-only (a write raises; at 3 M rows a copy per reader cost 24 MB)."""
    if not columns:
        return np.zeros(len(frame), dtype=np.int64), 1 if len(frame) else 0
    shared = _SHARED.get()
    arrows = [_arrow_text(frame[c]) for c in columns] if shared is not None else [None]
    key = ("classes", tuple(_memory_key(a) for a in arrows)) if all(a is not None for a in arrows) else None
    hit = None if key is None else shared.get(key)  # type: ignore[union-attr]
    if hit is None:
        grouped = _made_grouping(frame, columns)
        if grouped is None:
            cols, sizes = [], []
            for c in columns:
                codes, labels = read_codes(frame[c], compact=True)
                cols.append(codes)
                sizes.append(len(labels))
            grouped = group_columns(cols, sizes)
        if key is None:
            return grouped
        grouped[0].flags.writeable = False
        hit = shared[key] = (arrows, grouped)  # type: ignore[index]  (the arrays held: their memory is not reused)
    return hit[1]


def _made_grouping(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, int] | None:
    """:func:`group_rows`' grouping of columns that :func:`text_column` made inside this :func:`published_codes`
    block at one array of entries (each found by the memory it reads, as :func:`text_codes` finds its codes), by
    their entries (:func:`~anonkit._verify_entries.group_entries`: the same ids), else ``None``."""
    store = _PUBLISHED.get()
    if store is None:
        return None
    parts = []
    for c in columns:
        arrow = _arrow_text(frame[c])
        hit = None if arrow is None else store.get(("codes", _memory_key(arrow)))
        if hit is None:
            return None
        parts.append(hit[1][0])
    return group_entries(parts)
