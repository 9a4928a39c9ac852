"""The verifier's row-level helpers: how a sensitive column's domain is built (:class:`DomainSpec`),
which published rows are suppressed, the classes of rows grouped by their text, identical rows
counted once (:mod:`anonkit.verifier` judges the models on
what these give; they read the published cells alone, never the algorithm that made them)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows, group_columns, group_pairs
from anonkit._values import as_text, factorize_text
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import AttrType, Schema

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

SUPPRESSED = "*"

#: inside :func:`same_release_codes`: each pyarrow text column's codes by the memory it reads (its chunks'
#: offsets, lengths and buffer addresses), with the column that holds that memory (so it is not reused), and
#: each grouping of such columns (:func:`group_rows`) by their keys
_SHARED: ContextVar[dict[tuple, tuple[Any, Any]] | None] = ContextVar("anonkit_verifier_codes", default=None)
#: inside :func:`input_codes`: the input's columns' codes (the verifier's reference), kept from one run to the next,
#: and under :data:`_SLOT` the last verified release's codes, handed on to its audit (:func:`verified_codes`)
_LASTING: ContextVar[dict[tuple, Any] | None] = ContextVar("anonkit_verifier_input_codes", default=None)
_SLOT = ("last verified release",)


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


def _arrow_text(values: Any) -> Any:
    """The pyarrow array of a pandas text column held by pyarrow, else ``None``."""
    if not (isinstance(values, pd.Series) and isinstance(values.dtype, pd.StringDtype)
            and values.dtype.storage == "pyarrow"):
        return None
    import pyarrow as pa  # (pandas' text columns are pyarrow's: it is loaded)

    return pa.array(values.array)


def _memory_key(arrow: Any) -> tuple:
    """What names the memory a pyarrow array reads: each chunk's type, offset, length and buffer
    addresses (a slice shares the buffers but not the offset and length)."""
    import pyarrow as pa

    chunks = arrow.chunks if isinstance(arrow, pa.ChunkedArray) else [arrow]
    return tuple((c.type, c.offset, len(c), tuple(0 if b is None else b.address for b in c.buffers()))
                 for c in chunks)


def _stored_codes(store: dict[tuple, tuple[Any, Any]], arrow: Any) -> tuple[np.ndarray, np.ndarray]:
    """The codes of ``arrow`` from ``store`` (encoded and stored, read-only, on the first read)."""
    key = ("codes", _memory_key(arrow))
    hit = store.get(key)
    if hit is None:
        import pyarrow.compute as pc

        codes, labels = _arrow_codes(arrow, pc)
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
        return factorize_text(values, compact=compact)
    shared = _SHARED.get()
    if shared is None:
        import pyarrow.compute as pc

        return _arrow_codes(arrow, pc)
    codes, labels = _stored_codes(shared, arrow)
    return codes.copy(), labels.copy()


def read_codes(values: pd.Series, *, compact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`text_codes` for a reader that only reads them: inside a :func:`same_release_codes` block a
    pyarrow text column's shared codes and texts themselves, read-only (a write raises), no copy."""
    arrow = _arrow_text(values)
    shared = _SHARED.get()
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


class DomainSpec(NamedTuple):
    """How a sensitive attribute's domain is built: ordered by number, by a declared order, with a
    hierarchy, with categories (value → category, in ``category_order``)."""

    numeric: bool = False
    order: list[str] | None = None
    hierarchy: Hierarchy | None = None
    categories: dict[str, str] | None = None
    category_order: tuple[str, ...] | None = None


def sensitive_spec(schema: Schema, names: Iterable[str]) -> dict[str, DomainSpec]:
    """The :class:`DomainSpec` of every attribute in ``names``, from its declaration in ``schema``
    (the default spec for a name the schema does not declare)."""
    out = {}
    for name in names:
        a = schema.attributes.get(name)
        out[name] = DomainSpec() if a is None else DomainSpec(
            a.type == AttrType.NUMERIC, a.order, a.hierarchy, a.categories, a.category_order
        )
    return out


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


def qi_columns(frame: pd.DataFrame, qis: Iterable[str]) -> list[str]:
    qis = list(qis)
    missing = [q for q in qis if q not in frame.columns]
    if missing:
        raise InputError(f"unknown column; the table has: {', '.join(map(str, frame.columns))}", column=missing[0])
    return qis


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


def split_suppressed(
    frame: pd.DataFrame, qis: list[str], sens: set[str], w: np.ndarray | None, rows: ArrayLike | None,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None, suppressed: str | ArrayLike,
) -> tuple[pd.DataFrame, np.ndarray | None, ArrayLike | None, Any, int, bool]:
    """``verify``'s ``suppressed``: the frame of the rows to judge, their weights and input rows,
    the reference, how many records a mask set aside, and whether all-``*`` rows still count as
    suppressed. A masked row that publishes anything but ``*`` is refused: it would be a record
    said to be suppressed whose values are out."""
    if isinstance(suppressed, str):
        if suppressed not in ("mark", "drop"):
            raise InputError(f"suppressed must be 'mark', 'drop' or a mask of the rows, got {suppressed!r}",
                             key="suppressed")
        return frame, w, rows, reference, 0, suppressed == "mark"
    mask = np.asarray(suppressed)
    if mask.shape != (len(frame),) or mask.dtype != bool:
        raise InputError(f"suppressed must be one true/false per row of the release ({len(frame)})", key="suppressed")
    frame = frame.reset_index(drop=True)
    if not mask.any():  # nothing set aside: the rows as they are (no copy of the release)
        if reference is None and sens:
            reference = {s: frame[s] for s in sens if s in frame.columns}
        return frame, w, None if rows is None else np.asarray(rows), reference, 0, False
    star = np.ones(int(mask.sum()), dtype=bool)
    for q in qi_columns(frame, qis):
        star &= as_text(frame[q].loc[mask]) == SUPPRESSED
    if not star.all():
        i = int(np.flatnonzero(mask)[np.flatnonzero(~star)[0]])
        raise InputError("a row marked suppressed publishes a quasi-identifier other than *", row=i + 1,
                         key="suppressed")
    dropped = int(mask.sum()) if w is None else int(w[mask].sum())
    if reference is None and sens:  # the release itself, suppressed rows included (as with marking)
        reference = {s: frame[s] for s in sens if s in frame.columns}
    rows = None if rows is None else np.asarray(rows)[~mask]
    return frame.loc[~mask].reset_index(drop=True), None if w is None else w[~mask], rows, reference, dropped, False
