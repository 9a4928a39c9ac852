"""The audit: risk models and attack simulations on a release, whoever made it, with verdicts.

:func:`audit` works from what is published (one table, or the linked tables of a bucketized or 1:M
release), the original input, the schema and the config's privacy models:

1. **Models** — the independent verifier recomputes every model from the published table
   (:func:`anonkit.verifier.verify`); for linked tables the models judge the published groups
   (sizes and sensitive histograms, :mod:`anonkit.analytics.published`).
2. **Risk** (:mod:`anonkit.risk`, ARX's definitions) — prosecutor, journalist and marketer risk from
   the published class sizes (journalist and marketer against a population table when one is given:
   its records consistent with each class, :func:`anonkit.analytics.cover.population_counts`);
   sample uniqueness; population uniqueness (Pitman, Zayatz, SNB, Dankar's rule) when the
   population size is known; the per-record risk distribution and the class-size histogram; with a
   ``weight`` or ``household`` column, sdcMicro's survey measures on the published cells (``risk.survey``:
   individual, global and household risk, SUDA2; :mod:`anonkit.audit.survey`).
3. **Attacks** (:mod:`anonkit.analytics`) — homogeneity, similarity and skewness on the published
   classes; singling-out, linkability and attribute inference (anonymeter's three, adapted to
   generalized cells) with a baseline and, given records of the population not in the release, a
   control set; unsorted matching against a second release; background knowledge when the
   publisher's private link and the adversary's priors are at hand (``anonkit anonymize``).
4. **Verdicts** against the thresholds (:mod:`anonkit.audit.verdicts`).

How the cells are read follows the release's algorithm (:func:`anonkit.audit.inputs.release_reading`):
a ``local-suppression`` release's ``*`` matches any value, so its classes are each record's
compatible rows (:mod:`anonkit.audit.wildcard`, the verifier's ``fk``); a kl-diversity per-person
table's ``{a;b}`` sensitive cells are judged as its verifier reads them and attacked through what
each class publishes about the input's values (:mod:`anonkit.analytics.transactions`).

The result is a JSON-ready dict (the schema the report renders): ``thresholds``, ``population``,
``risk``, ``attacks`` (each :meth:`~anonkit.analytics.outcome.AttackOutcome.to_dict`), ``verdicts``,
``ok``, ``notes`` and ``seconds`` per part.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit._verify_rows import read_codes
from anonkit.analytics import class_attacks as ca
from anonkit.analytics.adversary import inference_attack, linkability_attack, singling_out_attack
from anonkit.analytics.cover import population_counts, shared_reading
from anonkit.analytics.matching import unsorted_matching_attack
from anonkit.analytics.nearest import FORM as NEAREST_FORM
from anonkit.analytics.nearest import nn_inference_attack, nn_linkability_attack, nn_singling_out_attack
from anonkit.analytics.outcome import AttackOutcome
from anonkit.analytics.published import PublishedRelease, published_buckets, published_table
from anonkit.analytics.transactions import transaction_schema, transaction_table
from anonkit.analytics.wildcard import wildcard_table
from anonkit.audit.inputs import (
    RECORDLESS_ATTACKS,
    RECORDLESS_RISK,
    AuditInputs,
    release_reading,
    release_records,
)
from anonkit.audit.survey import survey_figures
from anonkit.audit.verdicts import effective_thresholds, threshold_basis, thresholds_from, verdicts
from anonkit.audit.wildcard import wildcard_models, wildcard_risk
from anonkit.config import AuditThresholds
from anonkit.errors import InputError
from anonkit.models import Criterion
from anonkit.models.population import covering_schema, needs_population
from anonkit.plan import Plan
from anonkit.risk import (
    class_size_histogram,
    population_uniqueness,
    reidentification_risk,
    risk_distribution,
    sample_uniqueness,
)
from anonkit.verifier import Verification, same_release_codes, verify

__all__ = ["ATTACKS", "DEFAULT_TARGETS", "audit", "audit_class_sizes", "audit_frames", "model_results",
           "release_survey_figures", "risk_of_sizes"]

#: every attack the audit knows, in the order it runs them
ATTACKS = ("homogeneity", "similarity", "skewness", "background-knowledge", "singling-out", "linkability",
           "inference", "unsorted-matching")
#: targets the singling-out, linkability and inference attacks sample (anonymeter's default order)
DEFAULT_TARGETS = 2000

Step = Callable[[int, int, str], None]


def _check_attacks(names: Sequence[str] | None) -> list[str]:
    if names is None:
        return list(ATTACKS)
    unknown = [a for a in names if a not in ATTACKS]
    if unknown:
        raise InputError(f"unknown attack {unknown[0]!r}; known: {', '.join(ATTACKS)}", key="audit.attacks")
    return [a for a in ATTACKS if a in names]


def _published(inputs: AuditInputs) -> PublishedRelease:
    """The release's classes as an attacker reads them (reference distribution: the input's)."""
    schema = inputs.schema
    reference = {s: inputs.original[s] for s in schema.sensitive if s in inputs.original.columns}
    release = inputs.release
    if isinstance(release, dict) and len(release) == 1:  # one table given by name
        release = next(iter(release.values()))
    if isinstance(release, dict):
        frames = list(release.values())
        if len(frames) != 2:
            raise InputError(f"a bucketized release has two tables, this one {len(frames)}", key="RELEASE")
        return published_buckets(frames[0], frames[1], schema, reference=reference)
    if inputs.wildcard is not None:  # suppressed cells match any value: classes are the compatible rows
        return wildcard_table(release, schema, marker=inputs.wildcard, reference=reference, strata=inputs.strata)
    if inputs.transactions:  # one row per person, the sensitive cell the person's set of values
        return transaction_table(release, schema, reference=reference)
    if inputs.nearest and isinstance(release, pd.DataFrame):  # issue 29: a synthetic value need not be an input value
        reference = {s: _with_new_values(v, release[s]) if s in release.columns else v for s, v in reference.items()}
    return published_table(release, schema, reference=reference, needs_sensitive=False)


def _with_new_values(reference: pd.Series, published: pd.Series) -> pd.Series:
    """The reference's values, then each published value (as text) the reference lacks, once: the
    domain of a synthetic table's sensitive attribute covers both; a perturbed table whose values are
    all the input's keeps its reference as it was."""
    known = set(reference.astype(str))
    new = pd.Series(published[~published.astype(str).isin(known)].drop_duplicates().to_numpy(dtype=object))
    return reference if new.empty else pd.concat([reference.astype(object), new], ignore_index=True)


def _reading_notes(inputs: AuditInputs) -> list[str]:
    """Say so when a release read without wildcards (its algorithm does not suppress cells, or is not
    known) has ``*`` in some of its unsuppressed rows of a quasi-identifier only: each such ``*`` is
    read as a value."""
    frame = inputs.release
    if inputs.wildcard is not None or not isinstance(frame, pd.DataFrame):
        return []
    qis = [q for q in inputs.schema.quasi if q in frame.columns]
    stars = {q: _stars(frame[q]) for q in qis}
    marked = np.logical_and.reduce(list(stars.values())) if qis else np.zeros(len(frame), dtype=bool)
    for q in qis:  # rows with every quasi-identifier '*' are suppressed records (ARX's marking), not values
        star = stars[q][~marked]
        if star.any() and not star.all():
            return [f"{q!r} publishes '*' in some rows: read as a value of its own (a release of the suppress "
                    "family, whose '*' matches any value, is read so when its config names that algorithm)"]
    return []


def _run_attacks(names: list[str], inputs: AuditInputs, published: PublishedRelease, qt: pd.DataFrame,
                 sensitive: list[str], one_table: bool, priors: Any, rows: np.ndarray | None,
                 attacks: Sequence[str] | None, targets: int, seed: int, tick: Callable[[int, str], None],
                 seconds: dict[str, float], notes: list[str], out: list[dict[str, Any]]) -> None:
    """Every attack of ``names`` in the audit's order, each outcome into ``out`` (``tick(i, what)``: the
    progress, the attacks counted from 2)."""
    schema = inputs.schema
    for i, name in enumerate(names, start=2):
        tick(i, f"attack: {name}")
        if name in ("homogeneity", "similarity", "skewness"):
            _class_attacks(name, published, sensitive, seconds, notes, out)
        elif name == "background-knowledge":
            if priors is None or rows is None:
                notes.append("background-knowledge: not run — it needs the adversary's priors and the publisher's "
                             "private link (run the audit from anonkit anonymize with a background-knowledge model)")
                continue
            _attack(name, lambda: ca.attack_background_knowledge(published, priors, rows=rows,
                                                                 source=inputs.original), seconds, notes, out)
        elif name in ("singling-out", "linkability"):  # by nearest neighbour on a perturbed or synthetic release
            fn = {"singling-out": (nn_singling_out_attack if inputs.nearest else singling_out_attack),
                  "linkability": (nn_linkability_attack if inputs.nearest else linkability_attack)}[name]
            _attack(name, lambda fn=fn: fn(qt, inputs.original, schema, control=inputs.control, n_attacks=targets,
                                           seed=seed), seconds, notes, out)
        elif name == "inference":
            _inference_attacks(inputs, sensitive, one_table, targets, seed, seconds, notes, out)
        elif name == "unsorted-matching":
            if inputs.other is None:
                if attacks is not None:
                    notes.append("unsorted-matching: not run — it needs a second release of the same input "
                                 "(--other)")
                continue
            if not one_table:
                notes.append("unsorted-matching: not run on linked tables")
                continue
            _attack(name, lambda: unsorted_matching_attack(inputs.release, inputs.other, inputs.original, schema,
                                                           seed=seed), seconds, notes, out)


def _stars(column: pd.Series) -> np.ndarray:
    """Which cells of ``column`` are the text ``*``: read from the audit's codes of a pyarrow text column
    (its distinct texts compared: the models' recount encoded it already), compared in place for another
    text column (an object copy of it cost a pass in Python per quasi-identifier, in every audit), by its
    categories for a categorical one (1.5 CPU-s of an audit at 3 M rows as objects), as objects otherwise."""
    if isinstance(column.dtype, pd.StringDtype):
        if column.dtype.storage == "pyarrow":  # the audit's codes of the column (a missing cell's text is "")
            codes, labels = read_codes(column)
            return np.asarray(labels == "*", dtype=bool)[codes]
        return (column == "*").fillna(False).to_numpy(dtype=bool)
    if isinstance(column.dtype, pd.CategoricalDtype):  # a compact frame: its categories compared, not its cells
        star = np.append(np.asarray(column.cat.categories.astype(object) == "*", dtype=bool), False)
        return star[np.asarray(column.cat.codes)]  # (code −1, a missing cell, indexes the appended False)
    return (column.astype(object) == "*").to_numpy()


def _models(inputs: AuditInputs, published: PublishedRelease, models: list[Criterion]) -> tuple[
        list[dict[str, Any]], list[str]]:
    """Every model recomputed from what is published."""
    notes: list[str] = []
    if not models:
        return [], notes
    record_level = [m for m in models if m.spec.record_level]
    counted = [m for m in models if not m.spec.record_level and needs_population([m])]
    class_models = [m for m in models if not m.spec.record_level and m not in counted]
    if record_level:
        notes.append(f"{record_level[0].describe()} is judged from each record's prior and needs the publisher's "
                     "private link: verified by anonkit anonymize, not from the published table")
    one_table = isinstance(inputs.release, pd.DataFrame)
    if counted and (inputs.population is None or not one_table):
        # k-map, δ-presence: counted in the population (input.subset), which the release does not hold
        notes.append(f"{counted[0].describe()} is judged on the population's counts: verified by anonkit anonymize "
                     "(and anonkit check --population), not from the published table alone")
        counted = []
    out = []
    if one_table and inputs.wildcard is not None:
        if counted:
            notes.append(f"{counted[0].describe()} is counted in the population class by class: not judged on a "
                         "release whose suppressed cells match any value (verified by anonkit anonymize)")
        judged, more = wildcard_models(published, class_models)
        return judged, notes + more
    if one_table and inputs.transactions:  # the transaction texts as values, as the algorithm's verifier reads them
        return model_results(verify(inputs.release, transaction_schema(inputs.schema, inputs.release),
                                    class_models + counted, suppressed="drop")), notes
    if one_table:
        reference = {s: inputs.original[s] for s in inputs.schema.sensitive if s in inputs.original.columns}
        out = model_results(verify(inputs.release, inputs.schema, class_models, reference=reference))
        if counted:  # recounted in the population from the published cells (the verifier's recount)
            schema = covering_schema(inputs.schema, inputs.population)  # type: ignore[arg-type]
            out += model_results(verify(inputs.release, schema, counted, population=inputs.population))
        return out, notes
    stats = published.stats
    for m in class_models:
        if m.qis is not None:
            notes.append(f"{m.describe()} names attributes: not judged on linked tables")
            continue
        if published.unit == "person" and m.name == "theta-sensitivity":
            # the sensitive table of a 1:M release mixes each person's representative with their
            # history: θ is judged on the representatives, through the private link (verify_buckets)
            notes.append(f"{m.describe()} is judged on each person's representative, which the published "
                         "sensitive table does not single out: verified by anonkit anonymize (verify_buckets)")
            continue
        ok = m.passes(stats)
        failing = np.flatnonzero(~ok)
        out.append({"model": m.describe(), "holds": bool(ok.all()),
                    "achieved": _num(m.achieved(stats)) if stats.n_classes else None,
                    "failing_records": int(stats.sizes[failing].sum())})
    notes.append("linked tables: the models are judged on the published groups (sizes and sensitive counts)")
    return out, notes


def model_results(verification: Verification) -> list[dict[str, Any]]:
    """The audit's model rows from the verifier's results: each model, whether it holds, what it
    achieves and the records in classes that fail it."""
    return [{"model": r.model, "holds": bool(r.passed), "achieved": _num(r.achieved),
             "failing_records": int(r.failing_records)} for r in verification.results]


def _num(value: object) -> float | None:
    v = float(value)  # type: ignore[arg-type]
    return None if not np.isfinite(v) else v


def _population_sizes(inputs: AuditInputs, published: PublishedRelease) -> np.ndarray | None:
    """Per published class, the population table's records consistent with it (one-table releases)."""
    if inputs.population_table is None or not isinstance(inputs.release, pd.DataFrame):
        return None
    per_row = population_counts(inputs.release, inputs.population_table, inputs.schema)
    row_class = np.asarray(published.row_class)
    sizes = np.zeros(published.n_classes, dtype=np.int64)
    kept = row_class >= 0
    sizes[row_class[kept]] = np.asarray(per_row)[kept]
    return sizes


def _risk(inputs: AuditInputs, published: PublishedRelease, thresholds: AuditThresholds,
          population: int | None) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    pop_sizes = _population_sizes(inputs, published)
    if published.compatible is not None:
        return wildcard_risk(published, thresholds, population, pop_sizes)
    notes: list[str] = []
    if inputs.population_table is not None and pop_sizes is None:
        notes.append("the population table is matched on one-table releases only: journalist risk is the "
                     "prosecutor's for linked tables")
    risk, pop, more = risk_of_sizes(published.sizes, thresholds, population, pop_sizes)
    return risk, pop, notes + more


def risk_of_sizes(sizes: np.ndarray, thresholds: AuditThresholds, population: int | None,
                  pop_sizes: np.ndarray | None = None) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    """The audit's risk section from the published classes' sizes alone (and, when a population
    table was matched, each class's population count): the re-identification risks (prosecutor,
    journalist, marketer), uniqueness, the risk distribution and the class-size histogram."""
    notes: list[str] = []
    sizes = np.asarray(sizes, dtype=np.int64)
    reid = reidentification_risk(sizes, population_sizes=pop_sizes, population=population,
                                 threshold=thresholds.highest_risk)
    uniq = None
    if population is not None:
        uniq = population_uniqueness(sizes, population=population).to_dict()
    else:
        notes.append("no population size (audit.population or --population): population uniqueness not estimated")
    hist = class_size_histogram(sizes)
    dist = risk_distribution(sizes, pop_sizes)
    risk = {
        "prosecutor": reid.prosecutor.to_dict(),
        "journalist": reid.journalist.to_dict(),
        "marketer": reid.marketer.to_dict(),
        "sample_uniqueness": sample_uniqueness(sizes),
        "population_uniqueness": uniq or {"pitman": None, "zayatz": None, "snb": None, "dankar": None,
                                          "model": None},
        "distribution": [{"from": b["lower"], "to": b["upper"], "records": b["records"]}
                         for b in dist.to_dict()["bins"]],
        "distribution_attacker": dist.attacker,
        "class_sizes": [{"size": s, "classes": c, "records": r}
                        for s, c, r in zip(hist.sizes, hist.classes, hist.records, strict=True)],
        "records": int(reid.records),
        "classes": int(reid.classes),
        "note": reid.note,
    }
    n = int(sizes.sum())
    source = "table" if pop_sizes is not None else ("size" if population is not None else "sample")
    pop = {"size": population, "sampling_fraction": (n / population) if population else 1.0, "source": source}
    return risk, pop, notes


def release_survey_figures(inputs: AuditInputs, thresholds: AuditThresholds) -> tuple[dict[str, Any] | None,
                                                                                    list[str]]:
    """sdcMicro's measures on the release's published quasi-identifier cells (:mod:`anonkit.audit.survey`)
    when the schema has a weight or household column: the weights are the release's published weight
    column, the households its renumbered household column (a dropped one is not in the release: the
    household risk is then not computed, and a note says so)."""
    schema = inputs.schema
    if schema.weight is None and schema.household is None:
        return None, []
    if not isinstance(inputs.release, pd.DataFrame):
        return None, ["survey risk (sdcMicro's measures): not computed on linked tables"]
    frame, notes = inputs.release, []
    weight = schema.weight if schema.weight is not None and schema.weight in frame.columns else None
    household = schema.household if schema.household is not None and schema.household in frame.columns else None
    if schema.weight is not None and weight is None:
        notes.append(f"the weight column {schema.weight!r} is not in the release: the survey risk takes the release "
                     "as the population (risk 1/fk)")
    if schema.household is not None and household is None:
        notes.append(f"the household column {schema.household!r} is not published (publish: drop): household risk "
                     "not computed")
    qis = [q for q in schema.quasi if q in frame.columns]
    if not qis:
        return None, [*notes, "survey risk (sdcMicro's measures): the release publishes no quasi-identifier"]
    try:
        out = survey_figures(frame, qis, weight=weight, household=household, suda=True,
                             threshold=thresholds.individual_risk)
    except InputError as exc:
        if "too large to search" not in str(exc):  # SUDA2's size limit: the other figures still stand
            raise
        out = survey_figures(frame, qis, weight=weight, household=household, threshold=thresholds.individual_risk)
        notes.append(f"SUDA2: not run — {exc}")
    return out, notes


def _attack(name: str, job: Callable[[], AttackOutcome], seconds: dict[str, float], notes: list[str],
            out: list[dict[str, Any]]) -> None:
    t = time.perf_counter()
    try:
        outcome = job()
    except InputError as exc:  # not applicable to this release: say why, do not fail the audit
        notes.append(f"{name}: not run — {exc}")
        return
    seconds[name] = round(time.perf_counter() - t, 6)
    out.append(outcome.to_dict())
    interrupt.check()


def audit(
    inputs: AuditInputs,
    *,
    models: Sequence[Criterion] = (),
    thresholds: AuditThresholds | None = None,
    population: int | None = None,
    attacks: Sequence[str] | None = None,
    seed: int = 0,
    targets: int = DEFAULT_TARGETS,
    priors: Any = None,
    rows: np.ndarray | None = None,
    step: Step | None = None,
) -> dict[str, Any]:
    """Audit a release (see the module docstring); returns the audit dict.

    ``models`` are the config's privacy models; ``population`` the size of the population the input
    was sampled from; ``attacks`` a subset of :data:`ATTACKS` (default: all that apply); ``seed``
    the attacks' sampling; ``targets`` how many records the anonymeter-style attacks attack;
    ``priors`` (input-aligned, ``n × S``) and ``rows`` (the private link: published row → input
    row) enable the background-knowledge attack. ``thresholds`` are completed by
    :func:`~anonkit.audit.verdicts.effective_thresholds` (the highest risk from the k-anonymity
    model when not given); the dict names where that one came from (``highest_risk_from``).

    The release is read once for the whole audit (:func:`~anonkit.verifier.same_release_codes`): the
    attacks' classes, the models' recount, the ``*`` check and singling-out's uniqueness read each
    published column's codes and the quasi-identifiers' grouping made once, each from the published
    cells alone.
    """
    with same_release_codes():
        return _audit(inputs, models=models, thresholds=thresholds, population=population, attacks=attacks,
                      seed=seed, targets=targets, priors=priors, rows=rows, step=step)


def _audit(inputs: AuditInputs, *, models: Sequence[Criterion], thresholds: AuditThresholds | None,
           population: int | None, attacks: Sequence[str] | None, seed: int, targets: int, priors: Any,
           rows: np.ndarray | None, step: Step | None) -> dict[str, Any]:
    """:func:`audit`'s work, inside its block (see there)."""
    basis, sources = threshold_basis(thresholds, models), thresholds_from(thresholds, models)
    thresholds = effective_thresholds(thresholds, models)
    names = _check_attacks(attacks)
    unjudged: list[str] = []
    if not inputs.records:  # a synthetic table: no classes, so no class attack and no class risk (RECORDLESS_RISK)
        names = [a for a in names if a in RECORDLESS_ATTACKS]
        # differential privacy is a property of the mechanism that drew the table, not of the table's classes
        unjudged = [m.describe() for m in models if getattr(m, "enforced_by", None) is not None]
        models = [m for m in models if getattr(m, "enforced_by", None) is None]
    tick = step or (lambda _d, _t, _w: None)
    total = 2 + len(names)
    seconds: dict[str, float] = {}
    notes: list[str] = []
    t0 = time.perf_counter()
    tick(0, total, "reading the release's classes")
    published = _published(inputs)
    model_results, model_notes = _models(inputs, published, list(models))
    notes += _reading_notes(inputs) + [f"{m}: not judged on a synthetic table (a property of the mechanism that "
                                       "drew it, enforced by the algorithm)" for m in unjudged]
    notes += model_notes
    seconds["models"] = round(time.perf_counter() - t0, 6)
    tick(1, total, "risk models")
    t = time.perf_counter()
    risk, pop, risk_notes = (_risk(inputs, published, thresholds, population) if inputs.records else
                             ({"records": int(published.sizes.sum()), "not_applicable": RECORDLESS_RISK},
                              {"size": population, "sampling_fraction": 1.0, "source": "sample"}, [RECORDLESS_RISK]))
    notes += risk_notes
    survey, survey_notes = release_survey_figures(inputs, thresholds)
    if survey is not None:
        risk["survey"] = survey
    notes += survey_notes
    seconds["risk"] = round(time.perf_counter() - t, 6)
    interrupt.check()

    schema = inputs.schema
    one_table = isinstance(inputs.release, pd.DataFrame)
    qt = inputs.release if one_table else next(iter(inputs.release.values()))  # type: ignore[union-attr]
    if not one_table:  # the quasi table without its group id (not an attribute of the original)
        qt = qt[[c for c in qt.columns if c in inputs.original.columns]]
    if inputs.transactions:  # a set {a;b} is no cell the matching attacks read: they match the other columns
        qt = qt[[c for c in qt.columns if c not in schema.sensitive]]
        notes.append("per-person transactions: singling-out and linkability match the published columns but the "
                     "sensitive set; inference is not run (its guess would be a set, never a value)")
    out: list[dict[str, Any]] = []
    sensitive = [s for s in schema.sensitive if s in published.sensitive]
    # the attacks read the same columns: each factorized and resolved once (the input's once per job, inside
    # a lasting_reading block: the run's, its advice's reruns' and its fixes' trials' audits)
    with shared_reading(inputs.original):
        _run_attacks(names, inputs, published, qt, sensitive, one_table, priors, rows, attacks, targets, seed,
                     lambda i, what: tick(i, total, what), seconds, notes, out)
    if inputs.control is None and any(a["name"] in ("singling-out", "linkability", "inference") for a in out):
        notes.append("no control set (audit.control or --control: records of the population not in the release): "
                     "singling-out, linkability and inference measure their risk against the baseline guesser")
    population_given = population is not None or pop["source"] == "table"
    checks = verdicts(models=model_results, risk=risk, attacks=out, thresholds=thresholds,
                      population_given=population_given)
    seconds["total"] = round(time.perf_counter() - t0, 6)
    tick(total, total, "done")
    form = _attack_form(inputs, out, notes)
    return {
        "release": inputs.release_location,
        "thresholds": thresholds.model_dump(),
        "highest_risk_from": basis if inputs.records else RECORDLESS_RISK,
        "thresholds_from": sources,
        "population": pop,
        "models": model_results,
        "risk": risk,
        "attack_form": form,
        "attacks": out,
        "verdicts": checks,
        "ok": all(v["holds"] for v in checks),
        "notes": notes,
        "seconds": seconds,
    }


def _attack_form(inputs: AuditInputs, out: list[dict[str, Any]], notes: list[str]) -> str:
    """Which form the singling-out, linkability and inference attacks took (the audit's ``attack_form``);
    a note says so when the nearest-neighbour form ran."""
    if not inputs.nearest:
        return "cover (released cells cover the original values)"
    if any(a["name"] in ("singling-out", "linkability") or a["name"].startswith("inference") for a in out):
        notes.append(f"singling-out, linkability and inference: {NEAREST_FORM} (the release publishes exact-looking "
                     "values that are not the original ones; anonymeter's form)")
    return NEAREST_FORM


def _class_attacks(name: str, published: PublishedRelease, sensitive: list[str], seconds: dict[str, float],
                   notes: list[str], out: list[dict[str, Any]]) -> None:
    """The homogeneity, similarity or skewness attack on each published sensitive attribute."""
    if not sensitive:
        notes.append(f"{name}: not run — the release publishes no sensitive attribute")
        return
    fn = {"homogeneity": ca.attack_homogeneity, "similarity": ca.attack_similarity,
          "skewness": ca.attack_skewness}[name]
    for s in sensitive:
        label = name if len(sensitive) == 1 else f"{name} ({s})"
        _attack(label, lambda fn=fn, s=s, label=label: _renamed(fn(published, s), label), seconds, notes, out)


def _inference_attacks(inputs: AuditInputs, sensitive: list[str], one_table: bool, targets: int, seed: int,
                       seconds: dict[str, float], notes: list[str], out: list[dict[str, Any]]) -> None:
    """The inference attack on each published sensitive attribute (one-table releases)."""
    if not one_table:
        notes.append("inference: not run on linked tables (the sensitive values sit in the sensitive "
                     "table; the homogeneity, similarity and skewness attacks read them per group)")
        return
    if inputs.transactions:
        return
    for s in sensitive:
        label = "inference" if len(sensitive) == 1 else f"inference ({s})"
        fn = nn_inference_attack if inputs.nearest else inference_attack
        _attack(label, lambda s=s, label=label, fn=fn: _renamed(fn(
            inputs.release, inputs.original, inputs.schema, s, control=inputs.control, n_attacks=targets,
            seed=seed), label), seconds, notes, out)


def _renamed(outcome: AttackOutcome, name: str) -> AttackOutcome:
    if outcome.name == name:
        return outcome
    import dataclasses

    return dataclasses.replace(outcome, name=name)


def audit_frames(plan: Plan, release: pd.DataFrame | dict[str, pd.DataFrame], *,
                 step: Step | None = None) -> dict[str, Any]:
    """The plan's audit (default settings without an ``audit:`` section) of a release already read
    (the report of a past run): the input as the plan reads it (its ``--input`` included), its schema,
    the population table and control set its config names, its models as built."""
    from anonkit._values import strip_cells
    from anonkit.audit.inputs import read_extra, research_subset
    from anonkit.plan.load import config_schema, load_input

    config, base, spec = plan.config, plan.base, plan.audit
    assert config is not None, "an audit reads a config's plan"
    frame, defaults = load_input(config, base, plan.input_path)
    if plan.strip:
        frame = frame.apply(strip_cells) if len(frame.columns) else frame
    schema = config_schema(config, base, defaults, frame)
    frame, population = research_subset(config, base, frame)
    inputs = AuditInputs(schema=schema, original=frame, release=release,
                         population_table=read_extra(spec.population_table, config, base, "audit.population_table"),
                         control=read_extra(spec.control, config, base, "audit.control"), population=population,
                         **release_reading(plan.algorithm, plan.options), **release_records(plan.algorithm))
    return audit(inputs, models=list(plan.models), thresholds=spec.thresholds, population=spec.population,
                 attacks=spec.attacks, seed=spec.seed, targets=spec.targets, step=step)


def audit_class_sizes(sizes: np.ndarray, model_results: list[dict[str, Any]], *, models: Sequence[Criterion],
                      thresholds: AuditThresholds | None = None, population: int | None = None,
                      release: str | None = None, why: str = "") -> dict[str, Any]:
    """The audit's quick checks of a release known only by its classes' sizes and the verifier's
    model results (a release counted on a distributed engine: the original rows are not on this
    machine): the models and the risk models against the thresholds, as :func:`audit` judges them;
    no attack (each reads the original rows), said in a note with ``why``. The dict has
    :func:`audit`'s shape."""
    basis, sources = threshold_basis(thresholds, models), thresholds_from(thresholds, models)
    thresholds = effective_thresholds(thresholds, models)
    t0 = time.perf_counter()
    risk, pop, notes = risk_of_sizes(sizes, thresholds, population)
    notes.append("attacks: not run" + (f" — {why}" if why else ""))
    checks = verdicts(models=model_results, risk=risk, attacks=[], thresholds=thresholds,
                      population_given=population is not None)
    return {
        "release": release,
        "thresholds": thresholds.model_dump(),
        "highest_risk_from": basis,
        "thresholds_from": sources,
        "population": pop,
        "models": model_results,
        "risk": risk,
        "attacks": [],
        "verdicts": checks,
        "ok": all(v["holds"] for v in checks),
        "notes": notes,
        "seconds": {"risk": round(time.perf_counter() - t0, 6), "total": round(time.perf_counter() - t0, 6)},
    }
