"""The run's summary, built in one place for every engine: the counts, the generalization per
quasi-identifier, the measures and score, the models and their verification, the warnings, the
algorithm's plain notes (:func:`release_summary`), and the summary of a run whose models cannot be
met (:func:`failure_summary`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from anonkit import metrics as _m
from anonkit._values import is_missing
from anonkit._verify_wildcard import wildcard_counts
from anonkit.algorithms.spec import NO_CLASS_FIGURES, Algorithm
from anonkit.metrics import compute_metrics
from anonkit.metrics.distortion import published_figures, released_leaves
from anonkit.metrics.risk import prosecutor_risk
from anonkit.models import Criterion
from anonkit.release import Release, measuring
from anonkit.risk.thresholds import DEFAULT_HIGHEST_RISK, default_highest_risk
from anonkit.schema import AttrType
from anonkit.stats import table_memo
from anonkit.table import Table
from anonkit.verifier import Verification

__all__ = ["RISK_THRESHOLD", "dropped_warnings", "failure_summary", "flat_numeric_warnings", "generalization",
           "measured_summary", "missing_sensitive", "model_warnings", "persons_summary", "plain", "plain_notes",
           "recordless_summary"]


def persons_summary(table: Table, release: Release, seed: int, seconds: float) -> dict[str, object]:
    """What a release of data with several records per person reports (issue 12, spec §2.7): the
    persons (input, released, reconciled), and the 1:M measures — NCP per person, query accuracy of
    seeded COUNT queries, the record-intersection attack, record linkability — and the time."""
    from anonkit.metrics.one_to_many import one_to_many_measures

    assert table.person is not None
    released = np.unique(table.person[release.record_class >= 0]).size
    measures = one_to_many_measures(table, release, seed=seed)
    return {
        "persons": table.n_persons,
        "released_persons": int(released),
        "reconciled": table.reconciled,
        "one_to_many": {**measures, "seconds": round(seconds, 6)},
    }


def plain_notes(notes: dict) -> dict:
    """The algorithm's notes a person or a JSON reader can use: numbers, text, flags and short lists
    of them (per-record arrays and tables stay in the :class:`Release`)."""
    def plain(v: object) -> bool:
        return isinstance(v, bool | int | float | str | np.integer | np.floating) or v is None

    out = {}
    for k, v in notes.items():
        if plain(v):
            out[k] = v
        elif isinstance(v, list | tuple) and len(v) <= 100 and all(
            plain(x) or (isinstance(x, list | tuple) and all(plain(y) for y in x)) for x in v
        ):
            out[k] = [list(x) if isinstance(x, list | tuple) else x for x in v]
    return out


#: the re-identification risk above which a record counts as "at risk" without a k-anonymity model
#: (prosecutor model, 1 in 5); with one it is 1/k (:func:`anonkit.risk.thresholds.default_highest_risk`)
RISK_THRESHOLD = DEFAULT_HIGHEST_RISK


def failure_summary(
    table: Table, release: Release | None, algorithm: str, models: list[Criterion], warnings: list[str], message: str
) -> dict:
    """The summary of a run whose models cannot be met: the counts and the reason, no measures
    (there is no release to measure)."""
    return {
        "algorithm": release.algorithm if release is not None else algorithm,
        "satisfied": False,
        "verified": False,
        "message": message,
        "records": table.n_records,
        "released": 0,
        "suppressed": table.n_records,
        "would_suppress": None if release is None else release.n_suppressed,
        "models": [m.describe() for m in models],
        "warnings": warnings,
        "output": None,
    }


def model_warnings(table: Table, models: list[Criterion]) -> list[str]:
    """What the user should know about how the models read the values: missing sensitive values
    that count as a value toward diversity, ordered distance over text ordered alphabetically."""
    out = []
    for name in table.sensitive:
        # (a count of the input alone: kept with the encoded table for its other runs)
        missing = table_memo(table, ("missing cells", name), lambda n=name: missing_sensitive(table, n))
        about = [m for m in models if m.attribute == name]
        if missing and about:
            out.append(
                f"sensitive attribute {name!r}: {missing:,} missing value(s) count as one value of their own toward "
                f"{', '.join(m.describe() for m in about)}; fill them, or set input.missing: error to refuse them"
            )
        attr = table.schema[name]
        ordered = [m for m in about if getattr(m, "distance", None) == "ordered"]
        if ordered and attr.type not in (AttrType.NUMERIC, AttrType.DATE) and not attr.order:
            out.append(
                f"{ordered[0].describe()}: {name!r} is nominal, so the ordered distance orders its values "
                "alphabetically (ARX's rule for text); give it an 'order' or type numeric, or use distance equal"
            )
    return out


def missing_sensitive(table: Table, name: str) -> int:
    """The records whose sensitive attribute ``name`` is missing (:func:`~anonkit._values.is_missing`: NaN,
    None or the empty text): rows, each counted as the records it stands for (``Table.weights``: a Spark
    table's rows are its distinct combinations), read from the encoding instead of the cells:
    :class:`Table` codes every sensitive cell by its canonical text (:func:`~anonkit._values.factorize_text`,
    after ``strip``: a missing cell is the text ``""``) into its domain's labels, so the rows coded as the
    label ``""`` are the missing cells of :attr:`Table.frame`. A table without that encoding of ``name`` is
    read cell by cell."""
    codes = table.sensitive_codes.get(name)
    domain = table.domains.get(name)
    if codes is None or domain is None or len(codes) != table.n:
        missing = is_missing(table.frame[name])
    else:
        empty = np.flatnonzero(np.asarray(domain.labels, dtype=object) == "")
        if not empty.size:
            return 0
        missing = codes == empty[0]
    if table.weights is not None:
        return int(table.weights[missing].sum())
    return int(np.count_nonzero(missing))


def flat_numeric_warnings(table: Table, spec: Algorithm) -> list[str]:
    """A full-domain algorithm (the lattice family) can publish a numeric or date quasi-identifier
    without a hierarchy only as itself or ``*`` (the flat ``{values} → *`` hierarchy :class:`Table`
    gives it): say so, naming the column and the builder that gives it levels in between."""
    if spec.family != "lattice":
        return []
    out = []
    for q in table.qi:
        attr = table.schema[q]
        if q in table.numeric and attr.hierarchy is None:
            builder = "dates" if attr.type == AttrType.DATE else "intervals"
            out.append(
                f"quasi-identifier {q!r} is {attr.type.value if attr.type else 'numeric'} without a hierarchy, so "
                f"{spec.name} can publish it only unchanged or as '*' (the flat {{values}} → * hierarchy): give it "
                f"hierarchy: {{builder: {builder}, …}} for levels in between"
            )
    return out


def dropped_warnings(release: Release) -> list[str]:
    """Insensitive columns an algorithm left out because its ``insensitive: drop`` option said so."""
    dropped = release.notes.get("dropped_columns") or []
    if not dropped:
        return []
    return [f"{len(dropped)} insensitive column(s) not published (algorithm.insensitive: drop): {', '.join(dropped)}"]


def generalization(table: Table, release: Release, examples: int = 3) -> dict[str, dict]:
    """Per quasi-identifier what the release publishes: its level (full-domain), the number of
    distinct published labels, the most frequent ones, and the share of released values changed.

    Computed from each class's label (a text id per class) and each leaf's, not from text per record:
    the published texts and the text each leaf is published as are the modification rate's
    (:func:`~anonkit.metrics.distortion.published_figures`, once per summary), and the released records
    are the release's count (``n − suppressed`` when every row is one record: the rows whose class is
    ≥ 0); the records' classes are read only when a label is not a function of the leaf."""
    out: dict[str, dict] = {}
    rc = release.record_class
    cls: np.ndarray | None = None
    w = None
    if table.weights is None and table.n_records == len(rc):
        total = release.n_released  # (every row one record: the rows not suppressed, as len(rc[rc >= 0]))
        if total <= 0:
            return out
    else:
        kept = rc >= 0
        if not kept.any():
            return out
        cls = rc[kept]
        w = None if table.weights is None else table.weights[kept]
        total = len(cls) if w is None else int(w.sum())
    for j, name in enumerate(table.qi):
        h = table.hierarchies[j]
        text_id, texts, changed, shown = published_figures(table, release, j)
        if shown is None:
            if cls is None:
                cls = rc[rc >= 0]
            per_text = np.bincount(text_id[cls], weights=w, minlength=len(texts))
        else:  # every released record at one level: the records counted per leaf
            a = released_leaves(table, release, j)
            held = a > 0
            per_text = np.bincount(shown[held], weights=a[held], minlength=len(texts))
        # the most frequent first, equal counts by label (not by class numbering, which engines differ in)
        top = np.lexsort((np.asarray(texts, dtype=str), -per_text))[:examples]
        level = None if release.transformation is None else release.transformation.get(name)
        out[name] = {
            "level": level,
            "height": h.height,
            "labels": int(np.count_nonzero(per_text)),
            "examples": [str(texts[i]) for i in top if per_text[i] > 0],
            "changed": changed / total,
        }
    return out


def plain(value: float | tuple[float, ...]) -> float | list[float]:
    return list(value) if isinstance(value, tuple) else float(value)


def measured_summary(measured: Release, models: list[Criterion], search_metric: _m.SearchMetric,
                     verification: Verification, score: Any = None, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The measured part of every engine's summary, from the release to measure (the local engine's
    counted release, or the Spark classes' counted release): the generalization per quasi-identifier,
    the score (``score`` when the search gave one), the metric, every measure with the records at risk
    (against the audit's default threshold, so the two count alike), that threshold, and the
    verifier's results.

    ``skip`` (the plan's ``measures.skip``, checked by :func:`anonkit.metrics.check_skipped`) names
    optional measures left out: they are absent from ``metrics`` and listed with their reason under
    ``skipped_measures`` (never silently); with nothing skipped there is no such key, and the summary
    is what it was before measures could be skipped."""
    names = [name for name in _m.METRICS if name not in skip]
    with measuring():  # one release, unchanged while measured: shared figures computed once
        metrics = compute_metrics(measured.table, measured, names, gs=search_metric.gs,
                                  aggregate=search_metric.aggregate)
        risk_threshold = default_highest_risk(models)
        metrics["records_at_risk"] = prosecutor_risk(measured.table, measured,
                                                     threshold=risk_threshold).records_at_risk
        out = {
            "generalization": generalization(measured.table, measured),
            "score": score if score is not None else plain(_m.score(measured.table, measured, search_metric)),
            "metric": dataclasses.asdict(search_metric),
            "metrics": metrics,
            "risk_threshold": risk_threshold,
            "verification": [{"model": r.model, "holds": r.passed, "achieved": r.achieved}
                             for r in verification.results],
        }
    if skip:
        out["skipped_measures"] = {name: _m.OPTIONAL_MEASURES[name] for name in skip}
    return out


def recordless_summary(table: Table, published: pd.DataFrame, verification: Verification) -> dict[str, Any]:
    """The measured part of the summary of a release whose rows are no records (a synthetic table,
    :attr:`~anonkit.algorithms.spec.Algorithm.class_figures` false): no class figure at all (they would
    read every row as a class of one and call it 100 % at risk, 0 % loss), ``not_applicable`` saying
    which figures do not apply and why, the utility as the one- and two-way total variation distances
    of the marginals (:func:`anonkit.metrics.synthetic.marginal_distances`: counts per value, cheap),
    and the verifier's checks without an "achieved" figure (they hold or not; there is nothing to count)."""
    from anonkit.metrics.synthetic import marginal_distances  # only a synthetic release reads it

    columns = [c for c in published.columns if c in table.frame.columns]
    out: dict[str, Any] = {
        "not_applicable": NO_CLASS_FIGURES,
        "verification": [{"model": r.model, "holds": r.passed, "achieved": None} for r in verification.results],
    }
    if columns and len(published) and table.n_records:
        m = marginal_distances(table.frame[columns], published[columns], columns)
        out["synthetic_utility"] = {k: m[k] for k in ("one_way_mean", "one_way_max", "two_way_mean", "two_way_max",
                                                      "one_way", "worst_pairs", "bins")}
    return out


def wildcard_privacy(summary: dict[str, Any], published: pd.DataFrame, quasi: list[str], marker: str,
                     strata: list[str]) -> None:
    """The privacy measures of a release whose ``marker`` cells match any value (local suppression:
    the ``suppress`` family, sdcMicro's semantics), recounted from the published table as the verifier
    and the audit count: a record's class is every published record compatible with it (``fk``,
    within its stratum). The class-based figures would read ``*`` as a value and call the records it
    hides unique. Replaced in ``summary`` (top level and ``metrics``): the smallest class (min ``fk``),
    the average class (mean ``fk`` over records), the prosecutor risks (``1/fk``: highest, average),
    the records above the risk threshold, sample uniqueness (``fk = 1``) and record linkage (a
    matching attack links a record to one of its ``fk`` compatible records: ``100 · mean(1/fk)`` %)."""
    keys = published[quasi].assign(**{f"\x00stratum{i}": "\x00" + published[c].astype(str)
                                      for i, c in enumerate(strata)})
    keys = keys.astype(object).where(keys.notna(), "\x00missing").astype(str)
    fk, _ = wildcard_counts(keys, marker)
    if not len(fk):
        return
    risk = 1.0 / fk
    metrics = summary.get("metrics")
    metrics = metrics if isinstance(metrics, dict) else {}
    threshold = summary.get("risk_threshold", DEFAULT_HIGHEST_RISK)
    figures = {"min_class_size": float(fk.min()), "avg_class_size": float(fk.mean()),
               "prosecutor_highest": float(risk.max()), "prosecutor_average": float(risk.mean()),
               "records_at_risk": float((risk > threshold).sum()), "sample_uniqueness": float((fk == 1).mean())}
    if "record_linkage" in metrics:  # an optional measure: only where it was computed
        figures["record_linkage"] = 100.0 * float(risk.mean())
    metrics.update(figures)
    summary["min_class_size"] = int(fk.min())
