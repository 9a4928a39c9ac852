"""The bucket verifier's checks that need the private link (the source and the person of every QT
row): every released person in exactly one QT row, truthful QT labels, every bucket's ST exactly
its members' representatives (and history) plus the fakes, and θ on the representatives.
:func:`anonkit.verify_buckets.verify_buckets` runs them (its module docstring states the rules)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit._verify_buckets_tables import (
    BucketResult,
    Buckets,
    category_domain,
    check_result,
    theta_result,
)
from anonkit._verify_labels import date_texts, labels_cover
from anonkit.errors import InputError
from anonkit.models import ThetaSensitivity
from anonkit.schema import AttrType, Schema


@dataclass
class Link:
    """The QT rows tied to the source: ``src`` the source, ``p_codes`` the person of every source row
    (``n_persons`` of them), ``row_person`` the person of every QT row (−1 unknown, −2 fake),
    ``ok_rows`` the QT rows of known persons and ``src_rows`` their persons' first source rows."""

    src: pd.DataFrame
    p_codes: np.ndarray
    n_persons: int
    row_person: np.ndarray
    ok_rows: np.ndarray
    src_rows: np.ndarray


def source_persons(source: pd.DataFrame, schema: Schema, sensitive: str,
                   qt: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """The source and the person of every source row (its position without a person column).

    Raises
    ------
    InputError
        The source lacks the person column, the sensitive attribute or a quasi-identifier of QT.
    """
    src = source.reset_index(drop=True)
    person_col = schema.person
    if person_col is not None:
        if person_col not in src.columns:
            raise InputError("source lacks the person column", column=person_col, key="source")
        src_person = as_text(src[person_col])
    else:
        src_person = np.arange(len(src)).astype(str).astype(object)
    quasi = set(schema.quasi)
    for c in [sensitive, *[q for q in qt.columns if q in quasi]]:
        if c not in src.columns:
            raise InputError("source lacks a column of the release", column=str(c), key="source")
    return src, src_person


def link_rows(src: pd.DataFrame, src_person: np.ndarray, who: np.ndarray,
              fake: np.ndarray) -> tuple[Link, BucketResult, int]:
    """Every QT row tied to its person's first source row, the check that every released person has
    exactly one QT row, and the number of source persons without one (suppressed)."""
    who_text = np.full(len(who), "", dtype=object)
    who_text[~fake] = as_text(np.asarray(who[~fake], dtype=object))
    p_codes, p_uniq = pd.factorize(src_person)
    p_index = {u: i for i, u in enumerate(p_uniq)}
    row_person = np.array([p_index.get(t, -1) if not f else -2 for t, f in zip(who_text, fake, strict=True)],
                          dtype=np.int64)
    unknown = int((row_person == -1).sum())
    real_persons = row_person[row_person >= 0]
    _, dup_counts = np.unique(real_persons, return_counts=True)
    duplicated = int((dup_counts > 1).sum())
    result = check_result("link: every released person has exactly one QT row", unknown + duplicated,
                          f"{unknown} QT row(s) name no person of the source, {duplicated} person(s) in several rows")
    suppressed = len(p_uniq) - len(np.unique(real_persons))
    first = np.full(len(p_uniq), len(src), dtype=np.int64)  # the person's first source row
    np.minimum.at(first, p_codes, np.arange(len(src)))
    ok_rows = np.flatnonzero(row_person >= 0)
    src_rows = first[row_person[ok_rows]]
    return Link(src, p_codes, len(p_uniq), row_person, ok_rows, src_rows), result, suppressed


def truthful(qt: pd.DataFrame, schema: Schema, link: Link) -> BucketResult:
    """Whether every QT row's generalized labels cover its person's original values."""
    src, ok_rows, src_rows = link.src, link.ok_rows, link.src_rows
    quasi = set(schema.quasi)
    untrue = 0
    where: list[str] = []
    for q in qt.columns:
        if q not in quasi:
            continue
        attr = schema.attributes[q]
        kind = attr.type.value if attr.type is not None else None
        original = date_texts(as_text(src[q]), q, attr.format) if kind == AttrType.DATE.value else as_text(src[q])
        covered = labels_cover(as_text(qt[q])[ok_rows], original[src_rows], attr.hierarchy, kind)
        if (~covered).any():
            untrue += int((~covered).sum())
            i = int(np.flatnonzero(~covered)[0])
            where.append(f"{q}: QT row {int(ok_rows[i])} shows {as_text(qt[q])[ok_rows[i]]!r} for "
                         f"{as_text(src[q])[src_rows[i]]!r}")
    return check_result("link: QT labels cover the persons' values", untrue, "; ".join(where[:3]))


@dataclass
class _Expected:
    """What the ST must hold: ``rep`` the representative source row of every person, ``bucket_of_person``
    every person's bucket (−1 none), ``v_codes`` the code of every value (source rows, then ST rows,
    then fake QT lines; ``n_v`` codes) and ``fake_hist_v`` the fakes' count per (bucket, value)."""

    rep: np.ndarray
    bucket_of_person: np.ndarray
    v_codes: np.ndarray
    n_v: int
    fake_hist_v: np.ndarray


def _st_contents(link: Link, b: Buckets, src_cat: np.ndarray, src_values: np.ndarray,
                 fake_qt_values: list[tuple[int, str]], fake: np.ndarray, history: bool,
                 has_manifest: bool) -> tuple[BucketResult, _Expected]:
    """The check that every bucket's ST is exactly its members' representatives (highest category,
    ties the earliest record; with ``history`` all their values) plus the fakes' values, and what
    it found (:class:`_Expected`)."""
    n_b, n_src = b.n_b, len(link.src)
    p_codes, sv = link.p_codes, b.sv
    keys = np.lexsort((np.arange(n_src), -src_cat, p_codes))
    uniq_p, at = np.unique(p_codes[keys], return_index=True)
    rep = np.full(link.n_persons, -1, dtype=np.int64)
    rep[uniq_p] = keys[at]
    bucket_of_person = np.full(link.n_persons, -1, dtype=np.int64)
    bucket_of_person[link.row_person[link.ok_rows]] = b.q_id[link.ok_rows]
    fake_text = np.array([v for _, v in fake_qt_values], dtype=object)
    v_codes, v_uniq = pd.factorize(np.concatenate([src_values, sv, fake_text]))
    n_v = len(v_uniq)
    st_v = v_codes[n_src: n_src + len(sv)]
    published = np.zeros(n_b * n_v, dtype=np.int64)
    np.add.at(published, b.s_id * n_v + st_v, b.counts)
    expected = np.zeros(n_b * n_v, dtype=np.int64)
    member_rows = np.flatnonzero(bucket_of_person[p_codes] >= 0) if history else rep[bucket_of_person >= 0]
    np.add.at(expected, bucket_of_person[p_codes[member_rows]] * n_v + v_codes[:n_src][member_rows], 1)
    fake_hist_v = np.zeros(n_b * n_v, dtype=np.int64)
    if has_manifest:
        np.add.at(fake_hist_v, np.array([bk for bk, _ in fake_qt_values], dtype=np.int64) * n_v
                  + v_codes[n_src + len(sv):], 1)
        diff = published - expected - fake_hist_v
        off = np.flatnonzero(diff.reshape(n_b, n_v).any(axis=1))
    else:
        excess = published - expected
        fake_rows = np.bincount(b.q_id[fake], minlength=n_b)
        grid = excess.reshape(n_b, n_v)
        off = np.flatnonzero((grid < 0).any(axis=1) | (grid.sum(axis=1) != fake_rows))
        fake_hist_v = np.maximum(excess, 0)
    result = check_result("link: ST = representatives" + (" + history" if history else "") + " + fakes", off.size,
                          f"{off.size} bucket(s) whose ST differs, e.g. bucket {b.uniq[off[0]] if off.size else ''!r}",
                          int(b.qt_rows[off].sum()) if off.size else 0)
    return result, _Expected(rep, bucket_of_person, v_codes, n_v, fake_hist_v)


def linked_results(thetas: list[ThetaSensitivity], schema: Schema, sensitive: str, b: Buckets, link: Link,
                   fake: np.ndarray, fake_qt_values: list[tuple[int, str]], real: np.ndarray, history: bool,
                   has_manifest: bool) -> list[BucketResult]:
    """With the private link: the ST contents, and θ on the representatives' categories and the
    fakes' (see the module docstring)."""
    src_values = as_text(link.src[sensitive])
    try:
        n_cat, (src_cat, st_cat, fake_cat) = category_domain(
            schema, sensitive, [src_values, b.sv, np.array([v for _, v in fake_qt_values], dtype=object)])
    except InputError as exc:
        failed = [BucketResult(m.describe(), False, float("nan"), 0, 0, str(exc)) for m in thetas]
        return [*failed, check_result("link: ST = representatives + history + fakes", 1, str(exc))]
    result, e = _st_contents(link, b, src_cat, src_values, fake_qt_values, fake, history, has_manifest)
    rep, bucket_of_person, v_codes, n_v, fake_hist_v = e.rep, e.bucket_of_person, e.v_codes, e.n_v, e.fake_hist_v
    n_src, n_sv = len(link.src), len(b.sv)
    cat_of_v = np.zeros(n_v, dtype=np.int64)
    cat_of_v[v_codes[:n_src]] = src_cat
    cat_of_v[v_codes[n_src: n_src + n_sv]] = st_cat
    fake_v = v_codes[n_src + n_sv:]
    if fake_v.size:
        cat_of_v[fake_v] = fake_cat
    cat_hist = np.zeros((b.n_b, n_cat), dtype=np.int64)
    members = rep[bucket_of_person >= 0]
    np.add.at(cat_hist, (bucket_of_person[link.p_codes[members]], src_cat[members]), 1)
    fb, fv = np.divmod(np.flatnonzero(fake_hist_v), n_v)
    np.add.at(cat_hist, (fb, cat_of_v[fv]), fake_hist_v[fb * n_v + fv])
    return [result, *(theta_result(m, cat_hist, real, b.qt_rows, b.uniq, "representatives and fakes")
                      for m in thetas)]
