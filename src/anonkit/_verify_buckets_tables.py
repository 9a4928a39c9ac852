"""The bucket verifier's checks on the published tables alone: their columns, the buckets they
hold, the ST counts, the manifest's fakes, k persons per bucket and, without the private link, the
ST totals and θ on the ST values; the result types and the θ formula every check shares.
:func:`anonkit.verify_buckets.verify_buckets` runs them (its module docstring states the rules)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonkit._values import as_text
from anonkit.errors import InputError
from anonkit.models import Criterion, KAnonymity, ThetaSensitivity
from anonkit.schema import Schema
from anonkit.stats import build_domain
from anonkit.verifier import ModelResult, Verification

#: the tolerance of the variance test: θ holds when a bucket's variance is at least θ − TOL
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


# ---------------------------------------------------------------------------------------- helpers
def _variance(cat_hist: np.ndarray) -> np.ndarray:
    """Population variance of the category codes of every row of a ``B × C`` histogram."""
    grid = np.arange(cat_hist.shape[1], dtype=np.float64)
    n = cat_hist.sum(axis=1)
    safe = np.where(n > 0, n, 1)
    mean = cat_hist @ grid / safe
    return np.maximum(cat_hist @ grid**2 / safe - mean**2, 0.0)


def theta_result(model: ThetaSensitivity, cat_hist: np.ndarray, real: np.ndarray, rows: np.ndarray,
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


def check_result(name: str, bad: int, detail: str, records: int = 0) -> BucketResult:
    """A check's result: it holds when nothing is ``bad``; ``detail`` is kept only for a failure."""
    return BucketResult(name, bad == 0, float(bad), int(bad), int(records), detail if bad else "")


def category_domain(schema: Schema, sensitive: str, texts: Sequence[np.ndarray]) -> tuple[int, list[np.ndarray]]:
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


def category_histogram(bucket_id: np.ndarray, cats: np.ndarray, weights: np.ndarray, n_b: int,
                       n_cat: int) -> np.ndarray:
    """``B × C`` histogram of category codes ``cats`` (with ``weights``) per bucket."""
    out = np.zeros((n_b, n_cat), dtype=np.int64)
    np.add.at(out, (bucket_id, cats), weights)
    return out


# ---------------------------------------------------------------------------------------- the tables
@dataclass
class Buckets:
    """The buckets as the published tables' text gives them: ``uniq`` the bucket names (QT's first,
    then ST's), ``q_id``/``s_id`` the bucket of every QT/ST row, ``qb``/``sb``/``sv`` the QT row's
    bucket, the ST row's bucket and value as text, ``counts`` the ST counts (0 where not a whole
    number ≥ 1), ``qt_rows``/``st_total`` the QT rows and the ST count total of every bucket."""

    qb: np.ndarray
    sb: np.ndarray
    sv: np.ndarray
    uniq: np.ndarray
    q_id: np.ndarray
    s_id: np.ndarray
    counts: np.ndarray
    qt_rows: np.ndarray
    st_total: np.ndarray

    @property
    def n_b(self) -> int:
        return len(self.uniq)


def structure(qt: pd.DataFrame, st: pd.DataFrame, schema: Schema, sensitive: str, bucket: str,
              count: str) -> tuple[list[ModelResult], bool]:
    """The column checks (no identifier or person column; QT columns quasi-identifiers and the
    bucket; ST columns bucket, sensitive value, count) and whether the tables have the columns to
    judge anything further."""
    forbidden = schema.never_published
    leaked = [f"{name}.{c}" for name, frame in (("qt", qt), ("st", st)) for c in frame.columns if str(c) in forbidden]
    results: list[ModelResult] = [check_result("structure: no identifier or person column", len(leaked),
                                               f"published: {', '.join(leaked)}")]
    quasi = set(schema.quasi)
    extra_qt = [str(c) for c in qt.columns if str(c) not in quasi and str(c) != bucket]
    missing_qt = [] if bucket in qt.columns else [bucket]
    results.append(check_result("structure: QT columns are quasi-identifiers and the bucket",
                                len(extra_qt) + len(missing_qt), f"extra: {extra_qt}, missing: {missing_qt}"))
    want = {bucket, sensitive, count}
    have = {str(c) for c in st.columns}
    results.append(check_result("structure: ST columns are bucket, sensitive value, count",
                                len(want ^ have) + (len(st.columns) - len(have)),
                                f"extra: {sorted(have - want)}, missing: {sorted(want - have)}"))
    return results, not (missing_qt or not want <= have)


def read_buckets(qt: pd.DataFrame, st: pd.DataFrame, sensitive: str, bucket: str,
                 count: str) -> tuple[Buckets, list[BucketResult]]:
    """The buckets of the two tables, with the checks that QT and ST hold the same buckets and that
    the ST counts are whole numbers ≥ 1, one row per (bucket, value)."""
    qb = as_text(qt[bucket])
    sb = as_text(st[bucket])
    sv = as_text(st[sensitive])
    ids, uniq = pd.factorize(np.concatenate([qb, sb]))
    n_b = len(uniq)
    q_id, s_id = ids[: len(qb)], ids[len(qb):]
    in_qt = np.bincount(q_id, minlength=n_b) > 0
    in_st = np.bincount(s_id, minlength=n_b) > 0
    results = [check_result("structure: QT and ST hold the same buckets", int((in_qt != in_st).sum()),
                            f"only in QT: {list(uniq[in_qt & ~in_st][:5])}, "
                            f"only in ST: {list(uniq[in_st & ~in_qt][:5])}")]
    raw = pd.to_numeric(pd.Series(st[count]), errors="coerce").to_numpy(dtype=np.float64)
    bad_count = ~np.isfinite(raw) | (raw < 1) | (raw != np.round(raw))
    counts = np.where(bad_count, 0, raw).astype(np.int64)
    dup = pd.MultiIndex.from_arrays([sb, sv]).duplicated()
    results.append(check_result("structure: ST counts are whole numbers ≥ 1, one row per (bucket, value)",
                                int(bad_count.sum() + dup.sum()),
                                f"{int(bad_count.sum())} bad count(s), "
                                f"{int(dup.sum())} repeated (bucket, value) row(s)"))
    qt_rows = np.bincount(q_id, minlength=n_b)
    st_total = np.bincount(s_id, weights=counts, minlength=n_b).astype(np.int64)
    return Buckets(qb, sb, sv, uniq, q_id, s_id, counts, qt_rows, st_total), results


# ---------------------------------------------------------------------------------------- the manifest
def _manifest_lines(manifest: pd.DataFrame, b: Buckets, fake: np.ndarray, st_fakes: np.ndarray,
                    problems: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The manifest's (bucket, value) lines for QT and for ST; marks every listed QT row in ``fake``,
    counts every listed ST row in ``st_fakes`` and adds a problem for a line that is not a published
    row of its bucket and value."""
    mt = as_text(manifest["table"])
    mrow = pd.to_numeric(pd.Series(manifest["row"]), errors="coerce").to_numpy(dtype=np.float64)
    mb = as_text(manifest["bucket"])
    mv = as_text(manifest["value"])
    q_lines: list[tuple[str, str]] = []
    s_lines: list[tuple[str, str]] = []
    for t, r, bk, v in zip(mt, mrow, mb, mv, strict=True):
        if t not in ("qt", "st") or not np.isfinite(r) or r != int(r):
            problems.append(f"bad line {t!r} {r!r}")
            continue
        r = int(r)
        if t == "qt":
            if not 0 <= r < len(fake) or b.qb[r] != bk or fake[r]:
                problems.append(f"qt row {r} is not a distinct QT row of bucket {bk}")
                continue
            fake[r] = True
            q_lines.append((bk, v))
        else:
            if not 0 <= r < len(st_fakes) or b.sb[r] != bk or b.sv[r] != v:
                problems.append(f"st row {r} is not the ST row of ({bk}, {v})")
                continue
            st_fakes[r] += 1
            s_lines.append((bk, v))
    return q_lines, s_lines


def manifest_fakes(manifest: pd.DataFrame, b: Buckets, n_qt: int,
                   n_st: int) -> tuple[np.ndarray, list[tuple[int, str]], BucketResult]:
    """The QT rows the manifest lists as fakes, the (bucket id, value) of every fake QT line, and
    the check that every fake is a published row of its bucket and value."""
    fake = np.zeros(n_qt, dtype=bool)
    fake_qt_values: list[tuple[int, str]] = []
    problems: list[str] = []
    cols = {"table", "row", "bucket", "value"}
    if not cols <= {str(c) for c in manifest.columns}:
        problems.append(f"manifest columns must include {sorted(cols)}")
    else:
        st_fakes = np.zeros(n_st, dtype=np.int64)
        q_lines, s_lines = _manifest_lines(manifest, b, fake, st_fakes, problems)
        over = np.flatnonzero(st_fakes > b.counts)
        if over.size:
            problems.append(f"{over.size} ST row(s) hold fewer values than fakes listed")
        if sorted(q_lines) != sorted(s_lines):
            problems.append("the fakes listed for QT and for ST differ")
        index = {u: i for i, u in enumerate(b.uniq)}
        fake_qt_values = [(index[bk], v) for bk, v in q_lines if bk in index]
    return fake, fake_qt_values, check_result("manifest: every fake is a published row of its bucket and value",
                                              len(problems), "; ".join(problems[:3]))


def linked_fakes(persons: Sequence[object] | np.ndarray, n_qt: int,
                 listed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, BucketResult | None]:
    """The person of every QT row, which rows are fakes (no person: ``None`` or NaN) and, with a
    manifest (``listed``: the rows it lists), the check that the fakes are the manifest's."""
    who = np.asarray(list(persons), dtype=object)
    if len(who) != n_qt:
        raise InputError(f"persons must give one person per QT row: {n_qt} expected, got {len(who)}",
                         key="persons")
    is_fake = np.array([p is None or (not isinstance(p, str) and bool(pd.isna(p))) for p in who], dtype=bool)
    if listed is None:
        return who, is_fake, None
    return who, is_fake, check_result("link: the fake rows are the manifest's", int((is_fake != listed).sum()),
                                      f"{int((is_fake & ~listed).sum())} unlisted fake row(s), "
                                      f"{int((listed & ~is_fake).sum())} listed row(s) with a person")


# ---------------------------------------------------------------------------------------- the models
def k_results(models: list[Criterion], real: np.ndarray, qt_rows: np.ndarray) -> list[BucketResult]:
    """k-anonymity of persons per bucket; a model that is neither k-anonymity nor θ-sensitivity fails."""
    out = []
    for m in models:
        if isinstance(m, KAnonymity):
            bad = np.flatnonzero(real < m.k)
            out.append(BucketResult(f"{m.describe()} (persons per bucket)", not bad.size,
                                    float(real.min()) if len(real) else float("nan"), int(bad.size),
                                    int(qt_rows[bad].sum()),
                                    f"{bad.size} bucket(s) with fewer than {m.k} real persons" if bad.size else ""))
        elif not isinstance(m, ThetaSensitivity):
            out.append(BucketResult(m.describe(), False, float("nan"), 0, 0, "not a model of a bucketized release"))
    return out


def unlinked_results(thetas: list[ThetaSensitivity], schema: Schema, b: Buckets, real: np.ndarray,
                     history: bool) -> list[BucketResult]:
    """Without the private link: the ST totals against the QT rows, and θ on the ST values when they
    are the representatives (without ``history``; with it θ fails closed)."""
    out = []
    if history:
        short = np.flatnonzero(b.st_total < b.qt_rows)
        out.append(check_result("structure: every bucket's ST counts at least one value per QT row", short.size,
                                f"{short.size} bucket(s) count fewer values than rows", int(b.qt_rows[short].sum())))
        for m in thetas:
            out.append(BucketResult(m.describe(), False, float("nan"), 0, 0,
                                    "θ is judged on the representatives, which the published tables do "
                                    "not tell from the history values: pass source= and persons="))
        return out
    off = np.flatnonzero(b.st_total != b.qt_rows)
    out.append(check_result("structure: every bucket's ST counts one value per QT row", off.size,
                            f"{off.size} bucket(s) whose ST total differs from their QT rows",
                            int(b.qt_rows[off].sum())))
    for m in thetas:
        try:
            n_cat, (st_cat,) = category_domain(schema, m.sensitive, [b.sv])
        except InputError as exc:
            out.append(BucketResult(m.describe(), False, float("nan"), 0, 0, str(exc)))
            continue
        hist = category_histogram(b.s_id, st_cat, b.counts, b.n_b, n_cat)
        out.append(theta_result(m, hist, real, b.qt_rows, b.uniq, "ST values"))
    return out
