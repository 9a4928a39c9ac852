"""The verifier's record-level models (the background-knowledge model of spec §1.7): they are judged
from the input records of each class, so :func:`anonkit.verifier.verify` needs the input
(``source``) and, for every released row, the input row it came from (``rows``). These helpers check
that link and compute each class's divergence from the priors; the verifier still derives the
classes itself from the released text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit._verify_inputs import DomainSpec
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.schema import Role, Schema
from anonkit.stats import build_domain

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from anonkit.knowledge import Priors


def released_rows(
    frame: pd.DataFrame, supp: np.ndarray, source: pd.DataFrame | None, rows: ArrayLike | None, model: Criterion
) -> np.ndarray:
    """The ``source`` row of every released (not suppressed) row of ``frame``, checked."""
    if source is None or rows is None:
        raise InputError(
            f"{model.describe()} is judged from the input records of each class: pass source= (the input "
            "frame) and rows= (the input row of every released row, Release.published_rows(...))",
            key="rows" if source is not None else "source",
        )
    link = np.asarray(rows)
    if link.ndim != 1 or len(link) != len(frame):
        raise InputError(f"rows must give one input row per released row: {len(frame)} expected, got {link.shape}")
    if len(link) and link.dtype.kind not in "iu":
        raise InputError(f"rows must be integer row positions of the input, got dtype {link.dtype}")
    link = link.astype(np.int64)
    bad = np.flatnonzero((link < 0) | (link >= len(source)))
    if bad.size:
        raise InputError(
            f"rows holds a position outside the input (0 … {len(source) - 1})", row=int(bad[0]) + 1,
            value=int(link[bad[0]]),
        )
    _, first, counts = np.unique(link, return_index=True, return_counts=True)
    if (counts > 1).any():
        raise InputError("rows links two released rows to the same input record", value=int(link[first[counts > 1][0]]))
    return link[~supp]


def _input_schema(schema: Schema, source: pd.DataFrame) -> Schema:
    """``schema`` without the identifiers ``source`` no longer holds (a Table's frame has none)."""
    cols = {str(c) for c in source.columns}
    return Schema({n: a for n, a in schema.attributes.items() if n in cols or a.role != Role.IDENTIFIER})


def _record_priors(
    model: Any, schema: Schema, source: pd.DataFrame, priors: Priors | ArrayLike | None, dspec: DomainSpec
) -> tuple[np.ndarray, np.ndarray]:
    """``(n × S)`` prior of every ``source`` row and the sensitive labels of its columns (``dspec``:
    how the sensitive domain is built when ``priors`` is an array whose columns follow it)."""
    from anonkit.knowledge import Priors
    from anonkit.table import Table

    name = model.attribute
    if priors is None:
        priors = model.priors(Table(source, _input_schema(schema, source)))
    if isinstance(priors, Priors):
        if priors.sensitive is not None and priors.sensitive != name:
            raise InputError(f"the priors are about {priors.sensitive!r}, the model about {name!r}", key="priors")
        p, labels = priors.per_record(), np.asarray(priors.labels, dtype=object)
    else:
        if name not in source.columns:
            raise InputError("the input lacks the sensitive attribute", column=name)
        domain, _ = build_domain(name, as_text(source[name]), numeric=dspec.numeric, order=dspec.order,
                                 hierarchy=dspec.hierarchy)
        p, labels = np.asarray(priors, dtype=np.float64), np.asarray(domain.labels, dtype=object)
    if p.shape != (len(source), len(labels)):
        raise InputError(
            f"priors must have one row per input record and one column per value of {name!r}: "
            f"expected ({len(source)}, {len(labels)}), got {p.shape}",
            key="priors",
        )
    return p, labels


def _input_codes(source: pd.DataFrame, name: str, labels: np.ndarray) -> np.ndarray:
    """The code of every ``source`` row's sensitive value among ``labels`` (the priors' columns)."""
    if name not in source.columns:
        raise InputError("the input lacks the sensitive attribute", column=name)
    index = {v: i for i, v in enumerate(as_text(np.asarray(labels, dtype=object)))}
    text = as_text(source[name])
    codes = np.array([index.get(v, -1) for v in text], dtype=np.int64)
    if (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        raise InputError("sensitive value of the input is not among the priors' labels", column=name,
                         value=text[i], row=i + 1)
    return codes


def record_divergence(
    model: Any,
    frame: pd.DataFrame,
    schema: Schema,
    cls: np.ndarray,
    n_classes: int,
    supp: np.ndarray,
    source: pd.DataFrame,
    linked: np.ndarray,
    priors: Priors | ArrayLike | None,
    dspec: DomainSpec,
) -> np.ndarray:
    """The divergence of every class (spec §1.7) of a record-level model: class ``c`` holds the input
    records ``linked[cls == c]``; their priors and input sensitive values decide. A released
    sensitive value that differs from its input record's is an error (``rows`` links the wrong
    records)."""
    name = model.attribute
    released_text = as_text(frame[name].reset_index(drop=True))[~supp]
    input_text = as_text(source[name].reset_index(drop=True))[linked] if name in source.columns else None
    if input_text is None:
        raise InputError("the input lacks the sensitive attribute", column=name)
    differs = np.flatnonzero(released_text != input_text)
    if differs.size:
        raise InputError(
            "rows does not link the release to the input: a released sensitive value differs from its input "
            "record's",
            column=name,
            value=released_text[differs[0]],
        )
    p, labels = _record_priors(model, schema, source, priors, dspec)
    sa = _input_codes(source, name, labels)
    record_class = np.full(len(source), -1, dtype=np.int64)
    record_class[linked] = cls
    return np.asarray(model.class_divergence(p, record_class, n_classes, sa), dtype=np.float64)
