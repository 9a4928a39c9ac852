"""(θ*, k)-utility angelization for 1:M data (several records per person).

Paper D: R. Fazal, R. Khan, A. Anjum, M. H. Syed, A. Khan, S. Rehman, "Improved angelization technique
against background knowledge attack for 1:M microdata", *PeerJ Computer Science* 9:e1255, 2023
(spec ``algorithms.md`` §4.5), on the simplified angelization of ANGEL (Tao, Chen, Xiao, Zhou,
Zhang, TKDE 2009; spec §4.7: bucket = batch). Only the paper's outline and its Algorithm 1 survive;
the steps below are the spec's reconstruction.

The model: **θ-sensitive k-anonymity of persons** (spec §1.5, :class:`~anonkit.models.ThetaSensitivity`):
every bucket holds at least ``k`` persons, and the population variance of the category codes of its
persons' *representatives* is at least θ = λ·V_full(k) — the sensitive values' ordinal categories
(``categories`` on the attribute, paper D's Asymptomatic 0 < Low 1 < Mild 2 < High 3 < Severe 4).

Steps (spec §4.5)
-----------------
1. Every person's **representative** is the value of its highest category (ties: its earliest
   record); its other values are its *history*.
2. The persons are sorted (``order``: ``qi`` lexicographic on the QIs — a numeric QI by value, any
   other by hierarchy leaf order —, ``hilbert`` along the Hilbert curve; ties by person) and cut into
   buckets of ``k`` consecutive persons, the remainder (< k) joining the last bucket.
3. Failing buckets are repaired (``repair``): ``swap`` — the exchange of one member with one member
   of the *next* bucket that makes both pass with the smallest summed NCP of the two buckets
   (|bucket| · Σ NCP, spec §2.1; ties: the larger smaller variance, then the lower person ids), else
   a merge with the next bucket (the last bucket merges with the previous one); ``merge`` — merge
   directly; ``noise`` — fake persons added to the bucket (see
   :mod:`~anonkit.algorithms.bucket.theta_cut`, which implements the cut and the repair).
4. Every bucket's QIs are generalized (numeric: the interval of its persons' values; others: the
   lowest common ancestor, :func:`~anonkit.algorithms.local.partition_release`'s rules).

What is published (``Release.tables``)
-------------------------------------
* ``"qt"`` — one row per person (plus one per fake person), the bucket's generalized QI labels (as
  :meth:`Release.class_labels` prints them), the insensitive columns (each person's value, or the
  set ``{a;b}`` of its values when its records differ, :mod:`anonkit.algorithms._carried`; a fake
  person shows those of a real member of its bucket drawn with the seed, so the column does not tell
  fakes apart; ``insensitive: drop`` leaves them out) and ``bucket`` (1-based), rows shuffled with
  ``numpy.random.default_rng(seed)`` (seed ``None`` → 0): no row order leaks persons;
* ``"st"`` — ``bucket``, the sensitive value (text), ``count``: one row per (bucket, value) present,
  by bucket then domain order; the counts are the representatives, the history values
  (``publish_history``) and the fakes' values.

The person column never reaches a table; a second sensitive attribute is refused (it would not be
published). ``bucket``/``count`` are prefixed with ``_`` if an input
column has that name (``params["bucket_column"]``, ``params["count_column"]``).

The :class:`~anonkit.release.Release`: ``record_class`` is every record's bucket (all of a person's
records share it, −1 for records suppressed up front), the classes carry the buckets'
generalization (so :meth:`Release.to_frame` is a fallback view, not the publication);
``sensitive_histogram`` is the ``B × m`` ST counts; ``manifest`` (noise only, else ``None``) lists
every fake: ``table`` (``qt``/``st``), ``row`` (0-based, in that published table), ``bucket``,
``value``. ``notes``: ``persons``, ``buckets``, ``theta``, ``lambda``, ``k``, ``swaps``, ``merges``,
``noise_records``, ``history_values``, ``order``, ``repair``, ``min_variance`` (the smallest bucket
variance, fakes included), ``presuppressed_persons``; and, private (arrays, never in a summary),
``qt_person`` (the person code of every QT row, −1 for a fake) and ``representative`` (the
representative record of every person, −1 if suppressed up front) — :func:`private_link` turns them
into :func:`anonkit.verify_buckets.verify_buckets`'s link, with which the declaration's ``verifier``
judges every release the pipeline returns.

Decisions (beyond or against the spec)
--------------------------------------
* ``k`` is the largest k of the k-anonymity models (on any attribute set: a coarser grouping of
  buckets of ``k`` persons has ``k`` persons too) and of the θ-sensitivity model; θ uses the θ
  model's own k (the bucket k when the model is implied). Any other model kind is refused: the
  release guarantees k-anonymity (of persons) and θ-sensitivity only.
* λ: the option ``lambda``, else the θ model's, else :data:`~anonkit.models.theta.DEFAULT_LAMBDA`;
  an option that disagrees with the model is an error (``algorithm.lambda``).
* Fewer than ``k`` persons is an :class:`~anonkit.errors.InputError` (``precheck`` says so before
  any work). θ unreachable even with every person in one bucket (e.g. every representative in one
  category) gives an unsatisfied release that publishes nothing (``satisfied`` false, the reason in
  ``message`` and ``notes["unsatisfied"]``); ``precheck`` detects it too (swap and merge; noise can
  add the other categories — unless the data's values fall in too few categories, which it detects
  too). Fakes only take categories that have a value in the data; noise that cannot lift a bucket
  (after 64 + 4·|bucket| fakes) is unsatisfied the same way.
* A fake person of category ``c`` holds the first value of ``c`` in the domain order; its QT row
  shows its bucket's generalized labels. Fakes never count toward ``k``.
* Without a person column every record is its own person (1:1 data).
* The swap objective is each bucket's NCP summed over its persons (|bucket| · Σ_A NCP_A, numeric
  ranges over the persons, spec §2.1): with it the spec's worked example gives exactly its figures
  (1.88 + 1.09 before, 7.41 + 6.39 after the swap P3 ↔ P6; ``tests/test_angelization.py``).
  "Lower ids" in the ties are the person codes (first appearance in the input) of the member of the
  failing bucket, then of the next bucket's member. The last bucket is never swapped with the
  previous one (the spec swaps with the next only); it merges into it.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Annotated, Literal

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit.algorithms._carried import DEFAULT_INSENSITIVE, Insensitive, carried, dropped, one_sensitive, person_values
from anonkit.algorithms.bucket import theta_cut as tc
from anonkit.algorithms.local import generalize_classes
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.release import Release, nothing_released
from anonkit.table import Table
from anonkit.verifier import Verification
from anonkit.verify_buckets import BucketResult, verify_buckets

NAME = "angelization"
Repair = Literal["swap", "merge", "noise"]


# ---------------------------------------------------------------------------------------- persons
def person_codes(table: Table) -> np.ndarray:
    """The person of every record (every record its own person without a person column)."""
    return table.person if table.person is not None else np.arange(table.n, dtype=np.int64)


def representatives(table: Table, categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(persons, rep)``: the persons with a record not suppressed up front (ascending codes) and
    each one's representative record — its highest category (``categories`` per record), ties its
    earliest record."""
    person = np.asarray(person_codes(table), dtype=np.int64)
    active = np.flatnonzero(~table.presuppressed)
    keys = np.lexsort((active, -np.asarray(categories, dtype=np.int64)[active], person[active]))
    ordered = active[keys]
    persons, first = np.unique(person[ordered], return_index=True)
    return persons.astype(np.int64), ordered[first].astype(np.int64)


# ---------------------------------------------------------------------------------------- declaration
def _plan(table: Table, models: list[Criterion], options: Mapping[str, object]) -> tc.Plan:
    lam = options.get("lam", options.get("lambda"))
    return tc.resolve_plan(table, models, lam=lam, sensitive=options.get("sensitive"),  # type: ignore[arg-type]
                           algorithm=NAME, allow_other=False)


def _implies(table: Table, models: list[Criterion], options: Mapping[str, object]) -> list[Criterion]:
    """The models the release guarantees: ``models`` and, when none is given, θ-sensitive
    k-anonymity of the sensitive attribute with the bucket ``k`` and λ."""
    return list(_plan(table, models, options).implied)


def _precheck(table: Table, models: list[Criterion], options: Mapping[str, object]) -> str | None:
    """Before the work: fewer persons than ``k``; θ (or the distinct rule) unreachable even with
    every person in one bucket (swap and merge)."""
    plan = _plan(table, models, options)
    cat = table.domains[plan.sensitive].category[table.sensitive_codes[plan.sensitive]]  # type: ignore[index]
    persons, rep = representatives(table, cat)
    if len(persons) < plan.k:
        return f"{NAME} needs at least k = {plan.k} persons, the table has {len(persons)}: lower k"
    if options.get("repair", tc.DEFAULT_REPAIR) == "noise":
        return tc.noise_verdict(np.bincount(table.domains[plan.sensitive].category, minlength=plan.n_categories) > 0,
                                plan)
    return tc.total_verdict(cat[rep], plan, units="persons")


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    """After a failure: the reason the release gives."""
    why = release.notes.get("unsatisfied")
    return str(why) if why else None


def _verifier(table: Table, release: Release, models: list[Criterion]) -> Verification:
    """The independent verdict on what is published: :func:`anonkit.verify_buckets.verify_buckets` of
    the QT and ST, with the manifest and the private link (:func:`private_link`)."""
    source, persons = private_link(release)
    p = release.params
    extra = list(p.get("insensitive_columns", []))
    qt = release.tables["qt"]
    verdict = verify_buckets(qt.drop(columns=extra), release.tables["st"], table.schema, models,
                             sensitive=p["sensitive"], bucket=p["bucket_column"], count=p["count_column"],
                             history=p["publish_history"], manifest=release.manifest, source=source,
                             persons=persons)
    for c in extra:
        bad = _untrue_insensitive(qt[c], source, table.schema.person, persons, c)
        verdict.results.append(BucketResult(f"link: QT column {c!r} holds each person's values", bad == 0,
                                            float(bad), int(bad), 0, f"{bad} row(s) differ" if bad else ""))
        verdict.ok = verdict.ok and bad == 0
    return verdict


def _untrue_insensitive(published: pd.Series, source: pd.DataFrame, person_col: str | None, persons: np.ndarray,
                        column: str) -> int:
    """QT rows of real persons whose insensitive cell is not the person's value (or the ``{a;b}`` set of
    its distinct values), recounted from the source with pandas."""
    who = source[person_col] if person_col is not None else pd.Series(np.arange(len(source)))
    text = source[column].astype("string").fillna("")
    sets = pd.DataFrame({"p": who.to_numpy(), "v": text.to_numpy()}).query("v != ''").groupby("p")["v"].agg(
        lambda v: sorted(set(v)))
    bad = 0
    for cell, p in zip(published.tolist(), persons.tolist(), strict=True):
        if p is None:
            continue
        want = sets.get(p, [])
        shown = "" if cell is None or (isinstance(cell, float) and cell != cell) else str(cell)
        expected = "" if not want else (want[0] if len(want) == 1 else "{" + ";".join(want) + "}")
        bad += shown != expected
    return bad


@algorithm(
    NAME,
    family="bucket",
    summary="1:M data: one representative value per person (its highest category), buckets of k persons "
    "whose representatives' categories vary by at least θ = λ·V_full(k), published as a quasi table (qt) and a "
    "sensitive table (st) linked by bucket (paper D)",
    label="(θ*,k)-utility angelization",
    persons=True,
    needs=("person",),
    tables=("qt", "st"),
    randomized=True,
    enforces=("k-anonymity", "theta-sensitivity"),
    implies=_implies,
    precheck=_precheck,
    explain=_explain,
    verifier=_verifier,
)
def angelization(
    table: Table,
    models: list[Criterion],
    *,
    lam: Annotated[float | None, Field(alias="lambda", gt=0, le=1)] = None,
    order: tc.Order = tc.DEFAULT_ORDER,
    repair: Repair = tc.DEFAULT_REPAIR,
    publish_history: bool = True,
    sensitive: str | None = None,
    seed: int | None = None,
    insensitive: Insensitive = DEFAULT_INSENSITIVE,
) -> Release:
    """(θ*, k)-utility angelization; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input (with a person column) and the models: k-anonymity and θ-sensitivity only.
    lam:
        λ of θ = λ·V_full(k) (config key ``lambda``). Default: the θ-sensitivity model's, else 0.5.
    order:
        How persons are sorted before the cut: qi (lexicographic on the QIs) or hilbert (Hilbert curve).
    repair:
        How a bucket below θ is repaired: swap (best swap with the next bucket, else merge), merge, or noise
        (fake persons).
    publish_history:
        Whether the ST counts the persons' non-representative values too (default true).
    sensitive:
        The sensitive attribute (default: the θ model's, else the only one); it needs categories.
    seed:
        Shuffles the QT rows (``None``: seed 0).
    insensitive:
        keep publishes the insensitive columns in the QT (per person); drop leaves them out.

    Raises
    ------
    InputError
        Fewer persons than ``k``; no ``k``; a model other than k-anonymity and θ-sensitivity; a
        sensitive attribute without categories; ``lambda`` disagreeing with the θ model.
    """
    started = time.perf_counter()
    plan = tc.resolve_plan(table, models, lam=lam, sensitive=sensitive, algorithm=NAME, allow_other=False)
    sa = plan.sensitive
    one_sensitive(table, sa, NAME)
    extra = carried(table, insensitive)
    domain = table.domains[sa]
    assert domain.category is not None
    scode = np.asarray(table.sensitive_codes[sa], dtype=np.int64)
    m = domain.size
    cat = np.asarray(domain.category, dtype=np.int64)[scode]
    persons, rep = representatives(table, cat)
    n_persons = len(persons)
    k = plan.k
    if n_persons < k:
        raise InputError(f"{NAME} needs at least k = {k} persons, the table has {n_persons}", key="k", value=k)
    ucodes = cat[rep]
    sorted_units = tc.unit_order(table, rep, persons, order)
    n_cat = plan.n_categories
    first_value = np.full(n_cat, -1, dtype=np.int64)
    for v in range(m - 1, -1, -1):
        first_value[domain.category[v]] = v
    swaps = merges = 0
    if repair == "noise":
        lo, hi = tc.cut(n_persons, k)
        unit_bucket = np.empty(n_persons, dtype=np.int64)
        unit_bucket[sorted_units] = np.repeat(np.arange(len(lo), dtype=np.int64), hi - lo)
        n_buckets = len(lo)
        fakes, ok = tc.noise(tc.category_histogram(ucodes, unit_bucket, n_buckets, n_cat), plan, first_value >= 0)
        why = None if ok else (tc.noise_verdict(first_value >= 0, plan)
                               or f"noise cannot lift every bucket to θ = {plan.theta:.6g}; use repair: swap or merge")
    else:
        fixed = tc.repair(sorted_units, k, ucodes, persons, plan, repair, tc.ncp_space(table, rep))
        swaps, merges, ok = fixed.swaps, fixed.merges, fixed.ok
        unit_bucket = fixed.bucket_of(n_persons)
        n_buckets = len(fixed.lo)
        fakes = np.zeros((n_buckets, n_cat), dtype=np.int64)
        why = None if ok else (tc.total_verdict(ucodes, plan, units="persons")
                               or f"θ = {plan.theta:.6g} cannot be reached")
    params = {
        "k": k, "lambda": plan.lam, "theta": plan.theta, "order": order, "repair": repair,
        "publish_history": publish_history, "sensitive": sa, "seed": seed, "insensitive": insensitive,
        "insensitive_columns": extra,
    }
    notes: dict[str, object] = {
        "persons": n_persons, "theta": plan.theta, "lambda": plan.lam, "k": k, "swaps": swaps, "merges": merges,
        "order": order, "repair": repair,
        "presuppressed_persons": int(np.unique(person_codes(table)).size) - n_persons,
    }
    if not ok:
        rel = nothing_released(table, NAME, f"the models cannot be met: {why}", params=params,
                               seconds=time.perf_counter() - started)
        rel.notes.update(notes, buckets=0, noise_records=0, history_values=0, unsatisfied=why)
        return rel

    # every record joins its person's bucket
    unit_of_person = np.full(int(person_codes(table).max()) + 1, -1, dtype=np.int64)
    unit_of_person[persons] = np.arange(n_persons)
    person = np.asarray(person_codes(table), dtype=np.int64)
    record_unit = np.where(table.presuppressed, -1, unit_of_person[person])
    record_class = np.where(record_unit >= 0, unit_bucket[np.maximum(record_unit, 0)], -1).astype(np.int64)
    levels, nodes, bounds, sets = generalize_classes(table, record_class, n_buckets, "interval", "lca")
    rel = Release(table, record_class, levels, nodes, NAME, satisfied=True, message="the models hold",
                  params=params, class_bounds=bounds, class_sets=sets)

    # the sensitive table: representatives, history, fakes
    hist_st = np.bincount(unit_bucket * m + scode[rep], minlength=n_buckets * m)
    is_rep = np.zeros(table.n, dtype=bool)
    is_rep[rep] = True
    history = np.flatnonzero((record_class >= 0) & ~is_rep)
    if publish_history:
        hist_st = hist_st + np.bincount(record_class[history] * m + scode[history], minlength=n_buckets * m)
    fb, fc = np.nonzero(fakes)
    fake_bucket = np.repeat(fb, fakes[fb, fc]).astype(np.int64)
    fake_value = first_value[np.repeat(fc, fakes[fb, fc])]
    if fake_bucket.size:
        hist_st = hist_st + np.bincount(fake_bucket * m + fake_value, minlength=n_buckets * m)
    hist_st = hist_st.reshape(n_buckets, m)
    taken = [*table.qi, *extra, sa]
    bucket_col = tc.column_name(tc.BUCKET, taken)
    count_col = tc.column_name(tc.COUNT, [bucket_col, sa])
    rel.params.update(bucket_column=bucket_col, count_column=count_col)
    g_idx, v_idx = np.nonzero(hist_st)
    labels = np.asarray(domain.labels, dtype=object)
    st = pd.DataFrame({
        bucket_col: (g_idx + 1).astype(np.int64),
        sa: pd.Series(labels[v_idx], dtype=object),
        count_col: hist_st[g_idx, v_idx].astype(np.int64),
    })

    # the quasi table: one row per person and per fake, shuffled
    by_bucket = np.lexsort((persons, unit_bucket))
    row_bucket = np.concatenate([unit_bucket[by_bucket], fake_bucket]).astype(np.int64)
    row_person = np.concatenate([persons[by_bucket], np.full(fake_bucket.size, -1, dtype=np.int64)])
    row_value = np.concatenate([np.full(n_persons, -1, dtype=np.int64), fake_value])
    shuffle = np.random.default_rng(0 if seed is None else seed).permutation(len(row_bucket))
    row_bucket, row_person, row_value = row_bucket[shuffle], row_person[shuffle], row_value[shuffle]
    qt = pd.DataFrame({q: pd.Series(rel.class_labels(j)[row_bucket], dtype=object) for j, q in enumerate(table.qi)})
    if extra:
        shown_person = _stand_ins(row_person, row_bucket, seed)
        active = np.where(table.presuppressed, -1, person)
        for c in extra:
            qt[c] = pd.Series(person_values(table, c, active, int(person.max()) + 1)[shown_person], dtype=object)
    qt[bucket_col] = row_bucket + 1
    rel.tables = {"qt": qt, "st": st}
    rel.sensitive_histogram = hist_st.astype(np.float64)
    if repair == "noise":
        q_rows = np.flatnonzero(row_person < 0)
        st_keys = g_idx.astype(np.int64) * m + v_idx
        fake_keys = fake_bucket.astype(np.int64) * m + fake_value
        s_rows = np.searchsorted(st_keys, np.sort(fake_keys))
        rel.manifest = pd.DataFrame({
            "table": ["qt"] * q_rows.size + ["st"] * s_rows.size,
            "row": np.concatenate([q_rows, s_rows]).astype(np.int64),
            "bucket": np.concatenate([row_bucket[q_rows], g_idx[s_rows]]).astype(np.int64) + 1,
            "value": pd.Series(np.concatenate([labels[row_value[q_rows]], labels[v_idx[s_rows]]]), dtype=object),
        })
    all_codes = tc.category_histogram(ucodes, unit_bucket, n_buckets, n_cat) + fakes
    grid = np.arange(n_cat, dtype=np.float64)
    size = all_codes.sum(axis=1)
    mean = all_codes @ grid / size
    variance = np.maximum(all_codes @ grid**2 / size - mean**2, 0.0)
    representative = np.full(int(person.max()) + 1, -1, dtype=np.int64)
    representative[persons] = rep
    rel.notes.update(
        notes,
        buckets=n_buckets,
        noise_records=int(fake_bucket.size),
        history_values=int(history.size) if publish_history else 0,
        min_variance=float(variance.min()),
        qt_person=row_person,
        representative=representative,
    )
    if dropped(table, insensitive):
        rel.notes["dropped_columns"] = dropped(table, insensitive)
    rel.seconds = time.perf_counter() - started
    return rel


def _stand_ins(row_person: np.ndarray, row_bucket: np.ndarray, seed: int | None) -> np.ndarray:
    """The person whose insensitive values every QT row shows: its own, and for a fake (−1) a real
    member of its bucket drawn with ``seed`` (a stream apart from the shuffle's)."""
    out = row_person.copy()
    fake = np.flatnonzero(row_person < 0)
    if not fake.size:
        return out
    real = np.flatnonzero(row_person >= 0)
    real = real[np.argsort(row_bucket[real], kind="stable")]
    lo = np.searchsorted(row_bucket[real], row_bucket[fake])
    hi = np.searchsorted(row_bucket[real], row_bucket[fake], side="right")
    draw = np.random.default_rng([0 if seed is None else seed, 1]).random(fake.size)
    out[fake] = row_person[real[lo + (draw * (hi - lo)).astype(np.int64)]]
    return out


def private_link(release: Release) -> tuple[pd.DataFrame, np.ndarray]:
    """The private link :func:`anonkit.verify_buckets.verify_buckets` checks an angelization against:
    ``source`` (the input records, with the person column named ``schema.person`` holding the person
    codes; without a person column every row is its own person) and ``persons`` (for every QT row its
    person, ``None`` for a fake). Never publish either."""
    table = release.table
    source = table.frame.copy()
    if table.schema.person is not None:
        source[table.schema.person] = table.person
    codes = np.asarray(release.notes["qt_person"])
    persons = np.array([int(p) if p >= 0 else None for p in codes.tolist()], dtype=object)
    return source, persons
