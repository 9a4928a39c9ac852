"""A per-person release whose sensitive cell is the person's *set* of values, read as an attacker reads it.

kl-diversity (1:M data) publishes one row per person: the generalized quasi-identifiers and, as the
sensitive cell, the person's generalized *transaction* ``{a;b;…}`` — items separated by
:data:`SEPARATOR` inside braces, each item a sensitive value, a category of values (the attribute's
``categories``) or :data:`ROOT` (any value). The audit reads it two ways:

* **the models** are judged as the algorithm's own verifier judges them
  (:func:`transaction_schema`): every published transaction text is one value of a plain categorical
  sensitive attribute, the quasi-identifiers are text, and every row is a released person (a person
  generalized to ``*`` everywhere is a class, not a suppression);
* **the attacks** (homogeneity, similarity, skewness) read what each class publishes about the
  input's values (:func:`transaction_table`): every published item counts one record, spread
  uniformly over the values it covers (a value: itself; a category: its values; ``*``: every
  value) — the histogram the algorithm records as ``Release.sensitive_histogram``, recounted here
  from the published text alone. Items are parsed once per distinct transaction, never per person.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit.analytics.published import PublishedRelease, Reference, domain_specs
from anonkit.errors import InputError
from anonkit.schema import Attribute, AttrType, Role, Schema
from anonkit.stats import ClassStats, SensitiveDomain, build_domain
from anonkit.verifier import released_stats

__all__ = ["ROOT", "SEPARATOR", "transaction_schema", "transaction_table"]

#: the separator of a published transaction's items, ``{a;b}``
SEPARATOR = ";"
#: the item that covers every value
ROOT = "*"


def _sensitive(schema: Schema, frame: pd.DataFrame) -> str:
    names = [s for s in schema.sensitive if s in frame.columns]
    if len(names) != 1:
        raise InputError(f"a per-person table publishes the transactions of one sensitive attribute; this release has "
                         f"{len(names)} of the schema's ({', '.join(names) or 'none'})", key="RELEASE")
    return names[0]


def transaction_schema(schema: Schema, frame: pd.DataFrame) -> Schema:
    """The schema the models of a per-person table are judged under: its quasi-identifiers as text
    (categorical, no hierarchy), the transaction column a plain categorical sensitive attribute (its
    values the published texts), every other column of the schema it publishes insensitive."""
    sa = _sensitive(schema, frame)
    attrs = {}
    for name, attr in schema.attributes.items():
        if name not in frame.columns:
            continue
        role = attr.role if name in schema.quasi or name == sa else Role.INSENSITIVE
        attrs[name] = Attribute(name, role, AttrType.CATEGORICAL)
    return Schema(attrs)


def _items(text: str, index: dict[str, int], domain: SensitiveDomain, column: str, row: int) -> list[np.ndarray]:
    """The values every item of one published transaction covers."""
    if len(text) < 2 or text[0] != "{" or text[-1] != "}":
        raise InputError("a published transaction is not a set '{a;b}'", column=column, value=text, row=row)
    out = []
    for item in text[1:-1].split(SEPARATOR):
        if item == ROOT:
            out.append(np.arange(domain.size))
        elif item in index:
            out.append(np.array([index[item]]))
        elif domain.category is not None and item in domain.category_labels:
            out.append(np.flatnonzero(domain.category == domain.category_labels.index(item)))
        else:
            raise InputError("a published transaction names an item that is neither a value of the input, a "
                             "category nor '*'", column=column, value=item, row=row)
    return out


def transaction_table(frame: pd.DataFrame, schema: Schema, *, reference: Reference = None) -> PublishedRelease:
    """The classes of a per-person table (module docstring): persons grouped by their published
    quasi-identifier text, every row a released person; the histogram of what each class publishes
    over the input's values (``reference``: the input's sensitive values, required).

    Raises
    ------
    InputError
        Not exactly one sensitive attribute published, no reference, a cell that is not ``{…}``, an
        item that is neither a value, a category nor ``*``.
    """
    sa = _sensitive(schema, frame)
    if reference is None or sa not in reference:
        raise InputError("reading a per-person table's transactions needs the input's values", column=sa,
                         key="reference")
    qis, specs = domain_specs(frame, schema, None, sa, None, reference)
    frame = frame.reset_index(drop=True)
    exact, row_class, _ = released_stats(frame, qis, {}, marked=False)
    spec = specs[sa]
    ref = as_text(pd.Series(list(reference[sa]), dtype=object))
    domain, _ = build_domain(sa, ref, numeric=spec.numeric, order=spec.order, hierarchy=spec.hierarchy,
                             reference_text=ref, categories=spec.categories, category_order=spec.category_order)
    index = {str(v): i for i, v in enumerate(domain.labels)}
    cells = frame[sa].astype(object).where(frame[sa].notna(), "").astype(str).to_numpy()
    tx, texts = pd.factorize(cells)
    first = np.full(len(texts), len(frame), dtype=np.int64)
    np.minimum.at(first, tx, np.arange(len(frame)))
    per_tx = np.zeros((len(texts), domain.size))
    for t, text in enumerate(texts):  # once per distinct transaction
        for values in _items(str(text), index, domain, sa, int(first[t]) + 1):
            per_tx[t, values] += 1.0 / len(values)
    pair, persons = np.unique(np.asarray(row_class, dtype=np.int64) * len(texts) + tx, return_counts=True)
    hist = np.zeros((exact.n_classes, domain.size))
    np.add.at(hist, pair // len(texts), per_tx[pair % len(texts)] * persons[:, None])
    stats = ClassStats(exact.sizes.copy(), {sa: hist}, {sa: domain})
    return PublishedRelease("table", "person", np.asarray(row_class, dtype=np.int64), stats, specs)
