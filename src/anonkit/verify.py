"""The independent verifier: recompute every privacy model from a released table alone.

``verify`` starts from the published frame and the schema only. It re-derives the equivalence
classes by grouping the released quasi-identifier values as text (so it accepts full-domain
generalizations, intervals and sets alike), builds the class statistics itself and applies the
models' formulas. It shares no code with the algorithms except those formulas
(architecture guide: "the verifier is independent").

Rows whose quasi-identifiers are all ``*`` are suppressed records (ARX's marking) and form no class.
The reference distribution of t-closeness, β-likeness and δ-disclosure is that of the input table
(spec §1.3). When only the release is at hand it is taken from the release itself, suppressed
(marked) rows included; pass ``reference`` (the input frame, or the sensitive columns of it) to use
the true input distribution when suppressed rows were dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit._kernels import group_columns
from anonkit._values import as_text, factorize_text
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import (
    BetaLikeness,
    Criterion,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    TCloseness,
)
from anonkit.schema import AttrType, Schema
from anonkit.stats import ClassStats, build_domain, class_stats

SUPPRESSED = "*"


@dataclass
class ModelResult:
    """How one model fares on a release."""

    model: str
    passed: bool
    achieved: float
    failing_classes: int
    failing_records: int


@dataclass
class Verification:
    """The verifier's verdict: ``ok`` if every model holds on every released class."""

    ok: bool
    records: int
    released: int
    suppressed: int
    classes: int
    results: list[ModelResult] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.ok

    def summary(self) -> str:
        lines = [
            f"{'OK' if self.ok else 'VIOLATED'}: {self.released} records released in {self.classes} classes, "
            f"{self.suppressed} suppressed"
        ]
        for r in self.results:
            status = "holds" if r.passed else f"fails in {r.failing_classes} classes ({r.failing_records} records)"
            lines.append(f"  {r.model}: {status}; achieved {r.achieved:g}")
        return "\n".join(lines)


def _qi_columns(frame: pd.DataFrame, qis: Iterable[str]) -> list[str]:
    qis = list(qis)
    missing = [q for q in qis if q not in frame.columns]
    if missing:
        raise InputError(f"unknown column; the table has: {', '.join(map(str, frame.columns))}", column=missing[0])
    return qis


def _suppressed_rows(frame: pd.DataFrame, qis: list[str]) -> np.ndarray:
    if not qis:
        return np.zeros(len(frame), dtype=bool)
    mask = np.ones(len(frame), dtype=bool)
    for q in qis:
        codes, labels = factorize_text(frame[q])
        star = np.flatnonzero(labels == SUPPRESSED)
        if not star.size:
            return np.zeros(len(frame), dtype=bool)
        mask &= codes == star[0]
    return mask


def _group(frame: pd.DataFrame, columns: list[str]) -> tuple[np.ndarray, int]:
    if not columns:
        return np.zeros(len(frame), dtype=np.int64), 1 if len(frame) else 0
    cols, sizes = [], []
    for c in columns:
        codes, labels = factorize_text(frame[c])
        cols.append(codes)
        sizes.append(len(labels))
    return group_columns(cols, sizes)


def released_stats(
    frame: pd.DataFrame,
    qis: Iterable[str],
    sensitive: Mapping[str, tuple[bool, list[str] | None, Hierarchy | None]],
    *,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
) -> tuple[ClassStats, np.ndarray, np.ndarray]:
    """Classes of a released frame: stats, class of every released row, and the suppressed mask.

    ``sensitive[name] = (numeric, order, hierarchy)`` describes each sensitive attribute's domain.
    """
    qis = _qi_columns(frame, qis)
    frame = frame.reset_index(drop=True)
    supp = _suppressed_rows(frame, qis)
    released = frame.loc[~supp].reset_index(drop=True)
    cls, n_classes = _group(released, qis)
    if len(released) == 0:
        n_classes = 0
    domains, pairs = {}, {}
    for name, (numeric, order, hierarchy) in sensitive.items():
        if name not in frame.columns:
            raise InputError("unknown sensitive column", column=name)
        ref = None
        if reference is not None:
            ref = as_text(pd.Series(list(reference[name]), dtype=object))
        domain, codes = build_domain(
            name,
            as_text(frame[name]),
            numeric=numeric,
            order=order,
            hierarchy=hierarchy,
            reference_text=ref,
        )
        domains[name] = domain
        rcodes = codes[~supp]
        pairs[name] = (np.arange(len(released)), rcodes, None)
    stats = class_stats(cls, n_classes, None, pairs, domains)
    return stats, cls, supp


def _sensitive_spec(schema: Schema, names: Iterable[str]) -> dict[str, tuple[bool, list[str] | None, Hierarchy | None]]:
    out = {}
    for name in names:
        a = schema.attributes.get(name)
        out[name] = (
            a is not None and a.type == AttrType.NUMERIC,
            a.order if a is not None else None,
            a.hierarchy if a is not None else None,
        )
    return out


def verify(
    frame: pd.DataFrame,
    schema: Schema,
    models: Iterable[Criterion],
    *,
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
) -> Verification:
    """Check that the released ``frame`` satisfies every model in ``models``.

    Parameters
    ----------
    frame:
        The released table (quasi-identifiers generalized; suppressed rows dropped or all ``*``).
    schema:
        Which columns are quasi-identifiers and sensitive; sensitive hierarchies for hierarchical EMD.
    models:
        The privacy models to check.
    reference:
        Source of the reference sensitive distribution (the input table); default: the release.

    Returns
    -------
    Verification
        ``ok`` and, per model, whether it holds, the achieved parameter and the failing classes.
    """
    models = list(models)
    identifiers = [c for c in schema.identifiers if c in frame.columns]
    if identifiers:
        raise InputError("an identifier is present in the release", column=identifiers[0])
    qis = schema.quasi
    sens = {m.attribute for m in models if m.attribute is not None}
    spec = _sensitive_spec(schema, sorted(sens))
    stats, cls, supp = released_stats(frame, qis, spec, reference=reference)
    results = []
    for m in models:
        st, record_class = stats, cls
        if m.qis is not None:
            sub = frame.reset_index(drop=True).loc[~supp].reset_index(drop=True)
            record_class, n_sub = _group(sub, _qi_columns(sub, m.qis))
            sizes = np.bincount(record_class, minlength=n_sub).astype(float)
            st = ClassStats(sizes, {}, stats.domains)
        ok = m.passes(st)
        failing = np.flatnonzero(~ok)
        results.append(
            ModelResult(
                m.describe(),
                bool(ok.all()),
                m.achieved(st) if st.n_classes else float("nan"),
                int(failing.size),
                int(st.sizes[failing].sum()),
            )
        )
    return Verification(
        ok=all(r.passed for r in results),
        records=len(frame),
        released=int((~supp).sum()),
        suppressed=int(supp.sum()),
        classes=int(stats.n_classes),
        results=results,
    )


def check(
    frame: pd.DataFrame,
    qis: Iterable[str],
    sensitive: Iterable[str] = (),
    *,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    numeric: Iterable[str] = (),
    reference: pd.DataFrame | Mapping[str, Iterable[object]] | None = None,
) -> dict:
    """Achieved parameters of any table: what ``anonkit check`` reports.

    Returns a dict with ``records``, ``suppressed``, ``classes``, ``k``, ``avg_class_size``,
    ``uniques`` and, under ``sensitive[name]``: ``l_distinct``, ``l_entropy`` (Shannon),
    ``l_entropy_grassberger``, ``t_equal``, ``t_ordered``, ``t_hierarchical`` (with a hierarchy),
    ``beta_basic``, ``beta_enhanced``, ``delta_disclosure``.
    """
    hierarchies = dict(hierarchies or {})
    numeric = set(numeric)
    sensitive = list(sensitive)
    spec = {s: (s in numeric, None, hierarchies.get(s)) for s in sensitive}
    stats, _cls, supp = released_stats(frame, list(qis), spec, reference=reference)
    sizes = stats.sizes
    out: dict = {
        "records": len(frame),
        "released": int((~supp).sum()),
        "suppressed": int(supp.sum()),
        "classes": int(stats.n_classes),
        "k": int(sizes.min()) if len(sizes) else 0,
        "avg_class_size": float(sizes.mean()) if len(sizes) else 0.0,
        "uniques": int((sizes == 1).sum()),
        "sensitive": {},
    }
    for s in sensitive:
        r = {
            "l_distinct": DistinctLDiversity(s, 1).achieved(stats),
            "l_entropy": EntropyLDiversity(s, 1).achieved(stats),
            "l_entropy_grassberger": EntropyLDiversity(s, 1, "grassberger").achieved(stats),
            "t_equal": TCloseness(s, 1, "equal").achieved(stats),
            "t_ordered": TCloseness(s, 1, "ordered").achieved(stats),
            "beta_basic": BetaLikeness(s, 1).achieved(stats),
            "beta_enhanced": BetaLikeness(s, 1, enhanced=True).achieved(stats),
            "delta_disclosure": DeltaDisclosure(s, 1).achieved(stats),
        }
        if s in hierarchies:
            r["t_hierarchical"] = TCloseness(s, 1, "hierarchical").achieved(stats)
        if stats.n_classes == 0:
            r = {key: None for key in r}
        out["sensitive"][s] = r
    return out
