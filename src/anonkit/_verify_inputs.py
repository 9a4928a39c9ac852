"""What the verifier reads before it groups anything: how a sensitive column's domain is built
(:class:`DomainSpec`, :func:`sensitive_spec` from the schema), which columns are the quasi-identifiers
(:func:`qi_columns`), and the rows a suppression mask sets aside (:func:`split_suppressed`). Functions of their
arguments alone (no codes kept between reads); :mod:`anonkit._verify_rows` re-exports them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.schema import AttrType, Schema

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

SUPPRESSED = "*"


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


def qi_columns(frame: pd.DataFrame, qis: Iterable[str]) -> list[str]:
    qis = list(qis)
    missing = [q for q in qis if q not in frame.columns]
    if missing:
        raise InputError(f"unknown column; the table has: {', '.join(map(str, frame.columns))}", column=missing[0])
    return qis


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
