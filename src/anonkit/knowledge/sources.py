"""Priors from what a user has at hand (spec §3): any accepted form turned into
:class:`~anonkit.knowledge.Priors` over a table's records (:func:`as_priors`), a prior table read from
a file (:func:`matrix_file_priors`) and external data encoded like the table (:func:`external_table`).
Used by the pipeline and by the background-knowledge algorithms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from anonkit._values import as_text
from anonkit.errors import InputError
from anonkit.knowledge.priors import Priors, _validate_rows, matrix_priors
from anonkit.schema import Role, Schema
from anonkit.table import Table


def as_priors(table: Table, sensitive: str, priors: Priors | ArrayLike | pd.DataFrame) -> Priors:
    """``priors`` as :class:`~anonkit.knowledge.Priors` over ``table``'s records and the domain of
    ``sensitive`` (spec §3): a ``Priors`` is checked (and its columns reordered to the domain when
    its labels are the same values in another order); a frame indexed by QI tuples or an
    ``(m × S)`` array goes through :func:`~anonkit.knowledge.matrix_priors`; an ``(n × S)`` array is
    one prior per record (equal QI tuples may hold different beliefs)."""
    if sensitive not in table.domains:
        raise InputError("not a sensitive attribute of the table", column=sensitive)
    labels = table.domains[sensitive].labels
    if isinstance(priors, Priors):
        if priors.sensitive is not None and priors.sensitive != sensitive:
            raise InputError(f"the priors are about {priors.sensitive!r}, the model about {sensitive!r}", key="priors")
        if priors.n != table.n:
            raise InputError(f"the priors cover {priors.n} records, the table has {table.n}", key="priors")
        have, want = list(as_text(np.asarray(priors.labels, dtype=object))), list(as_text(labels))
        if have == want:
            return priors
        if sorted(have) != sorted(want) or len(have) != priors.per_tuple.shape[1]:
            raise InputError(f"the priors' labels {have} are not the values of {sensitive!r}: {want}", key="priors")
        cols = [have.index(v) for v in want]
        return Priors(priors.per_tuple[:, cols], priors.inverse, labels, sensitive)
    if isinstance(priors, pd.DataFrame):
        return matrix_priors(table, sensitive, priors)
    p = np.asarray(priors, dtype=np.float64)
    if p.ndim == 2 and p.shape[0] == table.n:
        _validate_rows(p, len(labels), "prior array")
        rows, inverse = np.unique(p, axis=0, return_inverse=True)
        return Priors(rows, inverse.reshape(-1), labels, sensitive)
    return matrix_priors(table, sensitive, p)




def external_table(table: Table, sensitive: str, data: pd.DataFrame) -> Table:
    """``data`` (background-knowledge data outside the input, spec §3) encoded like ``table``: its
    quasi-identifiers with the same hierarchies and types, and the sensitive attribute ``sensitive``;
    other columns are ignored."""
    keep = {n: a for n, a in table.schema.attributes.items() if a.role == Role.QUASI or n == sensitive}
    missing = [n for n in keep if n not in {str(c) for c in data.columns}]
    if missing:
        raise InputError("the external data lacks a column", column=missing[0])
    columns = [c for c in data.columns if str(c) in keep]  # other columns are ignored, never encoded
    return Table(data[columns], Schema(keep), missing=table.missing)


def matrix_file_priors(table: Table, sensitive: str, data: pd.DataFrame) -> Priors:
    """Priors from a table the user supplies (config ``prior: {kind: matrix, path: FILE}``, spec §3).

    Columns: one per value of ``sensitive`` (named by the value; values not given get probability
    0), plus either one per quasi-identifier (named by it: one row per distinct QI tuple of the
    input, matched as text — :func:`~anonkit.knowledge.matrix_priors`) or none (then one row per
    input record, in input order). Every row sums to 1.
    """
    data = data.copy()
    data.columns = [str(c) for c in data.columns]
    qis = [q for q in table.qi if q in data.columns]
    if qis and len(qis) < len(table.qi):
        absent = [q for q in table.qi if q not in qis]
        raise InputError(
            "the prior table needs a column for every quasi-identifier (rows keyed by QI tuple) or for none "
            "(one row per input record)",
            column=absent[0],
        )
    values = data.drop(columns=qis)
    if values.shape[1] == 0:
        raise InputError("the prior table has no column of sensitive values")
    numbers = pd.DataFrame(index=values.index)
    for col in values.columns:
        parsed = pd.to_numeric(values[col], errors="coerce")
        bad = np.flatnonzero(parsed.isna().to_numpy())
        if bad.size:
            raise InputError("prior is not a number", column=col, value=values[col].iloc[bad[0]], row=int(bad[0]) + 1)
        numbers[col] = parsed.astype(np.float64)
    if qis:
        index = pd.MultiIndex.from_frame(data[qis]) if len(qis) > 1 else pd.Index(data[qis[0]], name=qis[0])
        return matrix_priors(table, sensitive, numbers.set_axis(index, axis=0))
    if len(numbers) != table.n:
        raise InputError(
            f"a prior table without quasi-identifier columns needs one row per input record: {table.n} expected, "
            f"has {len(numbers)}"
        )
    labels = list(as_text(table.domains[sensitive].labels))
    p = np.zeros((table.n, len(labels)))
    for col in numbers.columns:
        if col not in labels:
            raise InputError("prior table column is neither a quasi-identifier nor a sensitive value", column=col)
        p[:, labels.index(col)] = numbers[col].to_numpy()
    return as_priors(table, sensitive, p)
