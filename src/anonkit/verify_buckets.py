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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np
import pandas as pd

from anonkit._values import as_text, read_dates
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import Criterion, KAnonymity, ThetaSensitivity
from anonkit.schema import AttrType, Schema
from anonkit.stats import build_domain
from anonkit.verifier import ModelResult, Verification

TOL = 1e-12


@dataclass
class BucketResult(ModelResult):
    """A :class:`~anonkit.verifier.ModelResult` with what failed, in words."""

    detail: str = ""


@dataclass
class BucketVerification(Verification):
    """A :class:`~anonkit.verifier.Verification` whose summary shows every failing check's detail."""

    def summary(self) -> str:
        lines = [
            f"{'OK' if self.ok else 'VIOLATED'}: {self.released} persons released in {self.classes} buckets, "
            f"{self.suppressed} suppressed"
        ]
        for r in self.results:
            status = "holds" if r.passed else (f"fails in {r.failing_classes} buckets ({r.failing_records} rows)"
                                               if r.failing_classes else "fails")
            detail = getattr(r, "detail", "")
            lines.append(f"  {r.model}: {status}" + (f" — {detail}" if detail and not r.passed else ""))
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------- labels
def _number(text: str, kind: str | None) -> int | Decimal | None:
    """``text`` as an exact number (a date as integer nanoseconds since 1970-01-01, UTC when it
    names a time zone, when ``kind`` is ``date``), else None. Exact: a published bound and the
    value it must cover are compared without rounding (integers beyond 2⁵³, sub-second times)."""
    if kind == AttrType.DATE.value:
        try:
            stamp = pd.Timestamp(str(text).strip())
        except (ValueError, TypeError, OverflowError):
            return None
        if pd.isna(stamp):
            return None
        if stamp.tz is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return int(stamp.value)
    try:
        x = Decimal(str(text).strip())
    except (InvalidOperation, ValueError):
        return None
    return x if x.is_finite() else None


#: where a date interval's upper bound starts: ``-`` before a four-digit year and ``-``
_DATE_BOUND = re.compile(r"-(?=\d{4}-)")


def label_covers(label: str, value: str, hierarchy: Hierarchy | None = None, kind: str | None = None) -> bool:
    """Whether the published ``label`` truthfully covers the original ``value``: the value itself (as
    text, or as the same number), the label of one of its ancestors in ``hierarchy`` (``*`` when there
    is none: the trivial hierarchy ``{values} → *``), an interval ``[lo-hi]`` holding it (numbers,
    or dates when ``kind`` is ``date``), or a set ``{a,b}`` listing it."""
    label, value = str(label), str(value)
    if label == value:
        return True
    if hierarchy is not None:
        leaf = hierarchy.index().get(value)
        if leaf is not None:
            for level in range(1, hierarchy.height + 1):
                if hierarchy.labels[level][hierarchy.maps[level, leaf]] == label:
                    return True
    elif label == "*":
        return True
    if len(label) >= 2 and label[0] == "{" and label[-1] == "}":
        return value in label[1:-1].split(",")
    x = _number(value, kind)
    if x is None:
        return False
    if len(label) >= 2 and label[0] == "[" and label[-1] == "]":
        inner = label[1:-1]
        dates = kind == AttrType.DATE.value
        cuts = [m.start() for m in _DATE_BOUND.finditer(inner)] if dates else range(1, len(inner) - 1)
        for pos in cuts:
            if inner[pos] != "-" or pos < 1:
                continue
            lo, hi = _number(inner[:pos], kind), _number(inner[pos + 1:], kind)
            if lo is not None and hi is not None and lo <= hi:
                return lo <= x <= hi
        return False
    y = _number(label, kind)
    return y is not None and y == x


def _date_texts(texts: np.ndarray, column: str, format: str | None) -> np.ndarray:
    """The source's date cells as ISO text, read as the table read them (:func:`anonkit._values.read_dates`:
    the day/month order that fits the whole column, or ``format``), so ``05/02/2020`` read day first is
    compared as 2020-02-05; cells that are not dates (missing ones) stay as they are."""
    present = np.array([str(t).strip() != "" for t in texts], dtype=bool)
    out = np.asarray(texts, dtype=object).copy()
    try:
        stamps = read_dates(out[present], column, format=format)
    except InputError:
        return out
    out[present] = [stamp.isoformat() for stamp in stamps]
    return out


def _labels_cover(labels: np.ndarray, values: np.ndarray, hierarchy: Hierarchy | None, kind: str | None) -> np.ndarray:
    """:func:`label_covers` of every (label, value) pair, each distinct pair judged once."""
    pairs = pd.MultiIndex.from_arrays([pd.Index(labels, dtype=object), pd.Index(values, dtype=object)])
    codes, uniq = pd.factorize(pairs)
    verdict = np.array([label_covers(a, b, hierarchy, kind) for a, b in uniq], dtype=bool)
    return verdict[codes] if len(codes) else np.zeros(0, dtype=bool)


# ---------------------------------------------------------------------------------------- helpers
def _variance(cat_hist: np.ndarray) -> np.ndarray:
    """Population variance of the category codes of every row of a ``B × C`` histogram."""
    grid = np.arange(cat_hist.shape[1], dtype=np.float64)
    n = cat_hist.sum(axis=1)
    safe = np.where(n > 0, n, 1)
    mean = cat_hist @ grid / safe
    return np.maximum(cat_hist @ grid**2 / safe - mean**2, 0.0)


def _theta_result(model: ThetaSensitivity, cat_hist: np.ndarray, real: np.ndarray, rows: np.ndarray,
                  names: np.ndarray, what: str) -> BucketResult:
    """θ-sensitivity of every bucket: ``real`` persons ≥ k, variance of ``cat_hist`` ≥ θ, distinct rule."""
    n_cat = cat_hist.shape[1]
    theta = model.theta(n_cat)
    var = _variance(cat_hist)
    ok = (real >= model.k) & (var >= theta - TOL) & (cat_hist.sum(axis=1) > 0)
    if model.distinct:
        ok &= np.count_nonzero(cat_hist, axis=1) >= min(int(model.k), n_cat)
    bad = np.flatnonzero(~ok)
    detail = ""
    if bad.size:
        b = int(bad[0])
        detail = (f"{bad.size} bucket(s) fail; e.g. bucket {names[b]}: {int(real[b])} real persons, "
                  f"{what} variance {var[b]:.6g} vs θ = {theta:.6g}, {int(np.count_nonzero(cat_hist[b]))} categories")
    return BucketResult(f"{model.describe()} ({what})", not bad.size, float(var.min()) if len(var) else float("nan"),
                        int(bad.size), int(rows[bad].sum()), detail)


def _check(name: str, bad: int, detail: str, records: int = 0) -> BucketResult:
    return BucketResult(name, bad == 0, float(bad), int(bad), int(records), detail if bad else "")


def _category_domain(schema: Schema, sensitive: str, texts: Sequence[np.ndarray]) -> tuple[int, list[np.ndarray]]:
    """The number of categories of ``sensitive`` and the category code of every value of ``texts``
    (one array per input), from the schema's ``categories``/``category_order``.

    Raises
    ------
    InputError
        The attribute has no categories, or a value has none.
    """
    attr = schema.attributes.get(sensitive)
    if attr is None or attr.categories is None:
        raise InputError("the sensitive attribute has no categories in the schema (θ-sensitivity needs them)",
                         column=sensitive, key="categories")
    allt = np.concatenate([np.asarray(t, dtype=object) for t in texts])
    domain, codes = build_domain(sensitive, allt, categories=attr.categories, category_order=attr.category_order)
    assert domain.category is not None
    cats = np.asarray(domain.category, dtype=np.int64)[codes]
    out, at = [], 0
    for t in texts:
        out.append(cats[at: at + len(t)])
        at += len(t)
    return len(domain.category_labels), out


def _cat_hist(bucket_id: np.ndarray, cats: np.ndarray, weights: np.ndarray, n_b: int, n_cat: int) -> np.ndarray:
    """``B × C`` histogram of category codes ``cats`` (with ``weights``) per bucket."""
    out = np.zeros((n_b, n_cat), dtype=np.int64)
    np.add.at(out, (bucket_id, cats), weights)
    return out


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
    results: list[ModelResult] = []
    if (source is None) != (persons is None):
        raise InputError("the private link needs both source= and persons=",
                         key="source" if source is None else "persons")
    forbidden = [*schema.identifiers, *([schema.person] if schema.person else [])]
    leaked = [f"{name}.{c}" for name, frame in (("qt", qt), ("st", st)) for c in frame.columns if str(c) in forbidden]
    results.append(_check("structure: no identifier or person column", len(leaked),
                          f"published: {', '.join(leaked)}"))
    quasi = set(schema.quasi)
    extra_qt = [str(c) for c in qt.columns if str(c) not in quasi and str(c) != bucket]
    missing_qt = [] if bucket in qt.columns else [bucket]
    results.append(_check("structure: QT columns are quasi-identifiers and the bucket", len(extra_qt) + len(missing_qt),
                          f"extra: {extra_qt}, missing: {missing_qt}"))
    want = {bucket, sensitive, count}
    have = {str(c) for c in st.columns}
    results.append(_check("structure: ST columns are bucket, sensitive value, count",
                          len(want ^ have) + (len(st.columns) - len(have)),
                          f"extra: {sorted(have - want)}, missing: {sorted(want - have)}"))

    def done(released: int = 0, suppressed: int = 0, classes: int = 0) -> BucketVerification:
        return BucketVerification(all(r.passed for r in results), len(qt), released, suppressed, classes, results)

    if missing_qt or not want <= have:
        for m in models:
            results.append(BucketResult(m.describe(), False, float("nan"), 0, 0,
                                        "the tables lack the columns to judge it"))
        return done()

    # ---- buckets and counts
    qb = as_text(qt[bucket])
    sb = as_text(st[bucket])
    sv = as_text(st[sensitive])
    ids, uniq = pd.factorize(np.concatenate([qb, sb]))
    n_b = len(uniq)
    q_id, s_id = ids[: len(qb)], ids[len(qb):]
    in_qt = np.bincount(q_id, minlength=n_b) > 0
    in_st = np.bincount(s_id, minlength=n_b) > 0
    results.append(_check("structure: QT and ST hold the same buckets", int((in_qt != in_st).sum()),
                          f"only in QT: {list(uniq[in_qt & ~in_st][:5])}, "
                          f"only in ST: {list(uniq[in_st & ~in_qt][:5])}"))
    raw = pd.to_numeric(pd.Series(st[count]), errors="coerce").to_numpy(dtype=np.float64)
    bad_count = ~np.isfinite(raw) | (raw < 1) | (raw != np.round(raw))
    counts = np.where(bad_count, 0, raw).astype(np.int64)
    dup = pd.MultiIndex.from_arrays([sb, sv]).duplicated()
    results.append(_check("structure: ST counts are whole numbers ≥ 1, one row per (bucket, value)",
                          int(bad_count.sum() + dup.sum()),
                          f"{int(bad_count.sum())} bad count(s), {int(dup.sum())} repeated (bucket, value) row(s)"))
    qt_rows = np.bincount(q_id, minlength=n_b)
    st_total = np.bincount(s_id, weights=counts, minlength=n_b).astype(np.int64)

    # ---- the manifest's fakes
    fake = np.zeros(len(qt), dtype=bool)
    fake_qt_values: list[tuple[int, str]] = []  # (bucket id, value) of every fake QT line
    if manifest is not None:
        problems: list[str] = []
        cols = {"table", "row", "bucket", "value"}
        if not cols <= {str(c) for c in manifest.columns}:
            problems.append(f"manifest columns must include {sorted(cols)}")
        else:
            mt = as_text(manifest["table"])
            mrow = pd.to_numeric(pd.Series(manifest["row"]), errors="coerce").to_numpy(dtype=np.float64)
            mb = as_text(manifest["bucket"])
            mv = as_text(manifest["value"])
            st_fakes = np.zeros(len(st), dtype=np.int64)
            q_lines: list[tuple[str, str]] = []
            s_lines: list[tuple[str, str]] = []
            for t, r, b, v in zip(mt, mrow, mb, mv, strict=True):
                if t not in ("qt", "st") or not np.isfinite(r) or r != int(r):
                    problems.append(f"bad line {t!r} {r!r}")
                    continue
                r = int(r)
                if t == "qt":
                    if not 0 <= r < len(qt) or qb[r] != b or fake[r]:
                        problems.append(f"qt row {r} is not a distinct QT row of bucket {b}")
                        continue
                    fake[r] = True
                    q_lines.append((b, v))
                else:
                    if not 0 <= r < len(st) or sb[r] != b or sv[r] != v:
                        problems.append(f"st row {r} is not the ST row of ({b}, {v})")
                        continue
                    st_fakes[r] += 1
                    s_lines.append((b, v))
            over = np.flatnonzero(st_fakes > counts)
            if over.size:
                problems.append(f"{over.size} ST row(s) hold fewer values than fakes listed")
            if sorted(q_lines) != sorted(s_lines):
                problems.append("the fakes listed for QT and for ST differ")
            index = {u: i for i, u in enumerate(uniq)}
            fake_qt_values = [(index[b], v) for b, v in q_lines if b in index]
        results.append(_check("manifest: every fake is a published row of its bucket and value", len(problems),
                              "; ".join(problems[:3])))

    # ---- the link
    link = source is not None and persons is not None
    suppressed = 0
    if link:
        assert source is not None and persons is not None
        who = np.asarray(list(persons), dtype=object)
        if len(who) != len(qt):
            raise InputError(f"persons must give one person per QT row: {len(qt)} expected, got {len(who)}",
                             key="persons")
        is_fake = np.array([p is None or (not isinstance(p, str) and bool(pd.isna(p))) for p in who], dtype=bool)
        if manifest is not None:
            results.append(_check("link: the fake rows are the manifest's", int((is_fake != fake).sum()),
                                  f"{int((is_fake & ~fake).sum())} unlisted fake row(s), "
                                  f"{int((fake & ~is_fake).sum())} listed row(s) with a person"))
        fake = is_fake
    real = qt_rows - np.bincount(q_id[fake], minlength=n_b)

    # ---- k per bucket
    for m in models:
        if isinstance(m, KAnonymity):
            bad = np.flatnonzero(real < m.k)
            results.append(BucketResult(f"{m.describe()} (persons per bucket)", not bad.size,
                                        float(real.min()) if n_b else float("nan"), int(bad.size),
                                        int(qt_rows[bad].sum()),
                                        f"{bad.size} bucket(s) with fewer than {m.k} real persons" if bad.size else ""))
        elif not isinstance(m, ThetaSensitivity):
            results.append(BucketResult(m.describe(), False, float("nan"), 0, 0, "not a model of a bucketized release"))
    thetas = [m for m in models if isinstance(m, ThetaSensitivity)]

    if not link:
        if history:
            short = np.flatnonzero(st_total < qt_rows)
            results.append(_check("structure: every bucket's ST counts at least one value per QT row", short.size,
                                   f"{short.size} bucket(s) count fewer values than rows", int(qt_rows[short].sum())))
            for m in thetas:
                results.append(BucketResult(m.describe(), False, float("nan"), 0, 0,
                                            "θ is judged on the representatives, which the published tables do "
                                            "not tell from the history values: pass source= and persons="))
        else:
            off = np.flatnonzero(st_total != qt_rows)
            results.append(_check("structure: every bucket's ST counts one value per QT row", off.size,
                                  f"{off.size} bucket(s) whose ST total differs from their QT rows",
                                  int(qt_rows[off].sum())))
            for m in thetas:
                try:
                    n_cat, (st_cat,) = _category_domain(schema, m.sensitive, [sv])
                except InputError as exc:
                    results.append(BucketResult(m.describe(), False, float("nan"), 0, 0, str(exc)))
                    continue
                results.append(_theta_result(m, _cat_hist(s_id, st_cat, counts, n_b, n_cat), real, qt_rows, uniq,
                                             "ST values"))
        return done(int(real.sum()), 0, n_b)

    # ---- with the link: persons, truthfulness, ST contents, θ on the representatives
    assert source is not None
    src = source.reset_index(drop=True)
    person_col = schema.person
    if person_col is not None:
        if person_col not in src.columns:
            raise InputError("source lacks the person column", column=person_col, key="source")
        src_person = as_text(src[person_col])
    else:
        src_person = np.arange(len(src)).astype(str).astype(object)
    for c in [sensitive, *[q for q in qt.columns if q in quasi]]:
        if c not in src.columns:
            raise InputError("source lacks a column of the release", column=str(c), key="source")
    who_text = np.full(len(qt), "", dtype=object)
    who_text[~fake] = as_text(np.asarray(who[~fake], dtype=object))
    p_codes, p_uniq = pd.factorize(src_person)
    p_index = {u: i for i, u in enumerate(p_uniq)}
    row_person = np.array([p_index.get(t, -1) if not f else -2 for t, f in zip(who_text, fake, strict=True)],
                          dtype=np.int64)
    unknown = int((row_person == -1).sum())
    real_persons = row_person[row_person >= 0]
    _, dup_counts = np.unique(real_persons, return_counts=True)
    duplicated = int((dup_counts > 1).sum())
    results.append(_check("link: every released person has exactly one QT row", unknown + duplicated,
                          f"{unknown} QT row(s) name no person of the source, {duplicated} person(s) in several rows"))
    suppressed = len(p_uniq) - len(np.unique(real_persons))
    # the person's first source row
    first = np.full(len(p_uniq), len(src), dtype=np.int64)
    np.minimum.at(first, p_codes, np.arange(len(src)))
    ok_rows = np.flatnonzero(row_person >= 0)
    src_rows = first[row_person[ok_rows]]
    untrue = 0
    where: list[str] = []
    for q in qt.columns:
        if q not in quasi:
            continue
        attr = schema.attributes[q]
        kind = attr.type.value if attr.type is not None else None
        original = _date_texts(as_text(src[q]), q, attr.format) if kind == AttrType.DATE.value else as_text(src[q])
        covered = _labels_cover(as_text(qt[q])[ok_rows], original[src_rows], attr.hierarchy, kind)
        if (~covered).any():
            untrue += int((~covered).sum())
            i = int(np.flatnonzero(~covered)[0])
            where.append(f"{q}: QT row {int(ok_rows[i])} shows {as_text(qt[q])[ok_rows[i]]!r} for "
                         f"{as_text(src[q])[src_rows[i]]!r}")
    results.append(_check("link: QT labels cover the persons' values", untrue, "; ".join(where[:3])))

    # expected ST: representatives (+ history) of the members, plus the fakes
    src_values = as_text(src[sensitive])
    try:
        n_cat, (src_cat, st_cat, fake_cat) = _category_domain(
            schema, sensitive, [src_values, sv, np.array([v for _, v in fake_qt_values], dtype=object)])
    except InputError as exc:
        for m in thetas:
            results.append(BucketResult(m.describe(), False, float("nan"), 0, 0, str(exc)))
        results.append(_check("link: ST = representatives + history + fakes", 1, str(exc)))
        return done(int(real.sum()), suppressed, n_b)
    keys = np.lexsort((np.arange(len(src)), -src_cat, p_codes))
    uniq_p, at = np.unique(p_codes[keys], return_index=True)
    rep = np.full(len(p_uniq), -1, dtype=np.int64)
    rep[uniq_p] = keys[at]
    bucket_of_person = np.full(len(p_uniq), -1, dtype=np.int64)
    bucket_of_person[row_person[ok_rows]] = q_id[ok_rows]
    fake_text = np.array([v for _, v in fake_qt_values], dtype=object)
    v_codes, v_uniq = pd.factorize(np.concatenate([src_values, sv, fake_text]))
    n_v = len(v_uniq)
    src_v = v_codes[: len(src)]
    st_v = v_codes[len(src): len(src) + len(sv)]
    fake_v = v_codes[len(src) + len(sv):]
    published = np.zeros(n_b * n_v, dtype=np.int64)
    np.add.at(published, s_id * n_v + st_v, counts)
    expected = np.zeros(n_b * n_v, dtype=np.int64)
    member_rows = np.flatnonzero(bucket_of_person[p_codes] >= 0) if history else rep[bucket_of_person >= 0]
    np.add.at(expected, bucket_of_person[p_codes[member_rows]] * n_v + src_v[member_rows], 1)
    fake_hist_v = np.zeros(n_b * n_v, dtype=np.int64)
    if manifest is not None:
        np.add.at(fake_hist_v, np.array([b for b, _ in fake_qt_values], dtype=np.int64) * n_v + fake_v, 1)
        diff = published - expected - fake_hist_v
        off = np.flatnonzero(diff.reshape(n_b, n_v).any(axis=1))
    else:
        excess = published - expected
        fake_rows = np.bincount(q_id[fake], minlength=n_b)
        grid = excess.reshape(n_b, n_v)
        off = np.flatnonzero((grid < 0).any(axis=1) | (grid.sum(axis=1) != fake_rows))
        fake_hist_v = np.maximum(excess, 0)
    results.append(_check("link: ST = representatives" + (" + history" if history else "") + " + fakes", off.size,
                          f"{off.size} bucket(s) whose ST differs, e.g. bucket {uniq[off[0]] if off.size else ''!r}",
                          int(qt_rows[off].sum()) if off.size else 0))
    # θ on the representatives' categories and the fakes'
    cat_of_v = np.zeros(n_v, dtype=np.int64)
    cat_of_v[v_codes[: len(src)]] = src_cat
    cat_of_v[st_v] = st_cat
    if fake_v.size:
        cat_of_v[fake_v] = fake_cat
    cat_hist = np.zeros((n_b, n_cat), dtype=np.int64)
    members = rep[bucket_of_person >= 0]
    np.add.at(cat_hist, (bucket_of_person[p_codes[members]], src_cat[members]), 1)
    fb, fv = np.divmod(np.flatnonzero(fake_hist_v), n_v)
    np.add.at(cat_hist, (fb, cat_of_v[fv]), fake_hist_v[fb * n_v + fv])
    for m in thetas:
        results.append(_theta_result(m, cat_hist, real, qt_rows, uniq, "representatives and fakes"))
    return done(int(real.sum()), suppressed, n_b)

