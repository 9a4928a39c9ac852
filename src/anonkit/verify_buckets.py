"""The independent verifier of a bucketized 1:M release: a quasi table (QT) and a sensitive table (ST)
linked by a bucket id, as (θ*, k)-utility angelization publishes them (paper D, Fazal et al., PeerJ
CS 9:e1255, 2023; spec §4.5, §4.7).

:func:`verify_buckets` starts from the two published tables and the schema. It shares no code with
the algorithm: it re-derives the buckets from the tables' text, the categories from the schema
(``categories``/``category_order`` on the sensitive attribute, :func:`~anonkit.stats.build_domain`)
and applies the formulas of the models (:class:`~anonkit.models.ThetaSensitivity`:
variance ≥ θ = λ·V_full(k), 1e-12 tolerance; the distinct rule).

From the published tables alone
-------------------------------
* no identifier and no person column in QT or ST;
* QT columns ⊆ quasi-identifiers + bucket; ST columns exactly bucket, the sensitive attribute, count;
  ST counts are positive whole numbers, one row per (bucket, value);
* QT and ST hold the same buckets;
* every bucket has at least ``k`` real persons (its QT rows minus the fakes the ``manifest`` lists)
  for every k-anonymity and θ-sensitivity model;
* without ``history`` (the ST counts one representative per person): every bucket's ST total equals
  its QT rows and the ST's category-code variance reaches θ (and the distinct rule). With
  ``history`` every bucket's ST total is at least its QT rows, but θ — a property of the
  representatives, which the tables do not tell from the history values — cannot be judged without
  the private link: the θ model then **fails closed** (its detail says to pass the link).

With the private link (``source``, ``persons``)
----------------------------------------------
``source`` is the input (the person column named ``schema.person``; without a person column every
row is its own person and ``persons`` gives row positions), ``persons`` the person of every QT row
(``None``/NaN for a fake). Then also:

* every QT row's person is in the source, every real person has exactly one QT row, and the fake
  rows are exactly the manifest's QT lines (when a manifest is given);
* every QT row's generalized QI labels truthfully cover its person's original values
  (:func:`label_covers`: the value itself, a hierarchy ancestor's label, ``*`` for an attribute
  without a hierarchy, an interval ``[lo-hi]``, a set ``{a,b}``);
* every bucket's ST equals exactly its members' representatives (highest category, ties the earliest
  record; with ``history`` all their values) plus the fakes' values (the manifest's; without one,
  the ST's excess must number the bucket's fake rows);
* the variance of the representatives' category codes, fakes included, reaches θ, and the
  distinct rule holds.

Every failure is a failing :class:`BucketResult` (a :class:`~anonkit.verifier.ModelResult` with a
``detail``); :class:`BucketVerification.summary` prints the details. Wrong *arguments* (a
``persons`` of the wrong length, ``source`` without ``persons``) are an
:class:`~anonkit.errors.InputError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from anonkit._verify_buckets_link import link_rows, linked_results, source_persons, truthful
from anonkit._verify_buckets_tables import TOL as TOL
from anonkit._verify_buckets_tables import (
    BucketResult,
    BucketVerification,
    k_results,
    linked_fakes,
    manifest_fakes,
    read_buckets,
    structure,
    unlinked_results,
)
from anonkit._verify_labels import label_covers as label_covers
from anonkit.errors import InputError
from anonkit.models import Criterion, ThetaSensitivity
from anonkit.schema import Schema
from anonkit.verifier import Verification

__all__ = ["TOL", "BucketResult", "BucketVerification", "label_covers", "verify_buckets"]


# ---------------------------------------------------------------------------------------- verifier
def verify_buckets(
    qt: pd.DataFrame,
    st: pd.DataFrame,
    schema: Schema,
    models: Iterable[Criterion],
    *,
    sensitive: str,
    bucket: str = "bucket",
    count: str = "count",
    history: bool = True,
    manifest: pd.DataFrame | None = None,
    source: pd.DataFrame | None = None,
    persons: Sequence[object] | np.ndarray | None = None,
) -> Verification:
    """Check a QT/ST release against ``models`` (k-anonymity of persons, θ-sensitivity); see the
    module docstring.

    Parameters
    ----------
    qt, st:
        The published quasi table and sensitive table.
    schema:
        Roles (identifiers, the person column, the quasi-identifiers), hierarchies and the sensitive
        attribute's categories.
    models:
        The models the release claims (:func:`Algorithm.implies <anonkit.algorithms.spec.Algorithm>`);
        k-anonymity and θ-sensitivity are judged, others are not bucket models and fail.
    sensitive, bucket, count:
        Column names of the ST.
    history:
        Whether the ST counts the persons' history values too (angelization's ``publish_history``).
    manifest:
        The private list of fakes (columns ``table``, ``row``, ``bucket``, ``value``), if any.
    source, persons:
        The private link (both or neither): the input records and the person of every QT row.

    Returns
    -------
    BucketVerification
        ``ok`` when every check holds; one :class:`BucketResult` per check and model.

    Raises
    ------
    InputError
        ``source`` without ``persons`` (or the reverse), a ``persons`` not one per QT row, a
        ``source`` lacking the person, sensitive or a quasi-identifier column.
    """
    models = list(models)
    qt = qt.reset_index(drop=True)
    st = st.reset_index(drop=True)
    if (source is None) != (persons is None):
        raise InputError("the private link needs both source= and persons=",
                         key="source" if source is None else "persons")
    results, complete = structure(qt, st, schema, sensitive, bucket, count)

    def done(released: int = 0, suppressed: int = 0, classes: int = 0) -> BucketVerification:
        return BucketVerification(all(r.passed for r in results), len(qt), released, suppressed, classes, results)

    if not complete:
        results += [BucketResult(m.describe(), False, float("nan"), 0, 0, "the tables lack the columns to judge it")
                    for m in models]
        return done()
    b, checks = read_buckets(qt, st, sensitive, bucket, count)
    results += checks
    fake = np.zeros(len(qt), dtype=bool)
    fake_qt_values: list[tuple[int, str]] = []  # (bucket id, value) of every fake QT line
    if manifest is not None:
        fake, fake_qt_values, checked = manifest_fakes(manifest, b, len(qt), len(st))
        results.append(checked)
    who = None
    if source is not None and persons is not None:
        who, fake, checked_link = linked_fakes(persons, len(qt), fake if manifest is not None else None)
        if checked_link is not None:
            results.append(checked_link)
    real = b.qt_rows - np.bincount(b.q_id[fake], minlength=b.n_b)
    results += k_results(models, real, b.qt_rows)
    thetas = [m for m in models if isinstance(m, ThetaSensitivity)]
    if source is None or who is None:
        results += unlinked_results(thetas, schema, b, real, history)
        return done(int(real.sum()), 0, b.n_b)
    src, src_person = source_persons(source, schema, sensitive, qt)
    link, checked, suppressed = link_rows(src, src_person, who, fake)
    results += [checked, truthful(qt, schema, link)]
    results += linked_results(thetas, schema, sensitive, b, link, fake, fake_qt_values, real, history,
                              manifest is not None)
    return done(int(real.sum()), suppressed, b.n_b)
