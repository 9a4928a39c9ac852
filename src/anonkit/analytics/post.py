"""Post-analytics: what a release still leaks, and fake records that hide it (paper C, Arca &
Hewett 2021, §5; spec §4.4 "Post-analytics").

After anonymization the quasi-identifiers cannot single anybody out (the models hold), but a
*critical* attribute (a sensitive value the attacker wants) may still be inferred: in a class whose
records nearly all share one value, belonging to the class reveals it (the homogeneity attack when
the share is 1). :func:`post_analytics` reports

* the normalized leakage (:mod:`anonkit.analytics.leakage`) of every published attribute before
  and after anonymization — the drop is the privacy the anonymization bought;
* for every critical attribute ``S`` and every released class, the share of its most frequent value
  and the conditional entropy ``H(S | class)`` in bits; a class whose share is ≥ ``rho`` (default
  0.8) is *vulnerable to inference*, and the individuals in it are counted;
* one alert line per critical attribute with vulnerable classes.

A class is the set of released records that agree on every published column except the critical
ones (what an attacker can tell apart), so the analysis needs no schema: it works on any release
(``anonkit analyze RELEASE --original DATA --critical S``).

:func:`inject_fakes` repairs a vulnerable class by adding the smallest number ``f`` of fake
records with the class's published values and, for each critical attribute, values other than the
class's dominant one, drawn (seeded) from the distribution of those other values over the whole
release, so that ``dominant / (size + f) < rho`` for every critical attribute (spec §4.4 worked
check: 4 records all "Yes", ρ = 0.8 → ``f = 2``). The published rows do not mark the fakes; the
manifest returned alongside lists them (a private file, never published by default), so utility
can be measured with and without them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from anonkit._values import factorize_text
from anonkit.analytics.leakage import normalized_leakage
from anonkit.errors import InputError

#: a class whose most frequent critical value reaches this share is vulnerable to inference
DEFAULT_RHO = 0.8


def _classes(frame: pd.DataFrame, key_columns: Sequence[str]) -> tuple[np.ndarray, int]:
    """The class of every row: rows equal on ``key_columns`` (as text) share a class."""
    if not key_columns:
        return np.zeros(len(frame), dtype=np.int64), 1 if len(frame) else 0
    parts = [factorize_text(frame[c]) for c in key_columns]
    key = parts[0][0].astype(np.int64)
    for codes, labels in parts[1:]:
        key, uniques = pd.factorize(key * len(labels) + codes)
        key = key.astype(np.int64)
    ids, uniques = pd.factorize(key)
    return ids.astype(np.int64), len(uniques)


def _column_leakage(frame: pd.DataFrame, columns: Iterable[str]) -> dict[str, float]:
    out = {}
    for c in columns:
        codes, labels = factorize_text(frame[c])
        out[c] = normalized_leakage(np.bincount(codes, minlength=len(labels)))
    return out


@dataclass
class ClassRisk:
    """One released class seen through one critical attribute."""

    attribute: str
    cls: int
    size: int
    dominant: str
    share: float
    entropy: float

    @property
    def as_dict(self) -> dict[str, object]:
        return {"attribute": self.attribute, "class": self.cls, "size": self.size, "dominant": self.dominant,
                "share": self.share, "entropy": self.entropy}


@dataclass
class PostAnalytics:
    """The report of :func:`post_analytics` (``summary`` is what ``--json`` prints)."""

    records: int
    classes: int
    rho: float
    critical: list[str]
    leakage_before: dict[str, float]
    leakage_after: dict[str, float]
    vulnerable: list[ClassRisk] = field(default_factory=list)
    max_share: dict[str, float] = field(default_factory=dict)
    alerts: list[str] = field(default_factory=list)
    #: every (critical attribute, class): size, dominant value, its share, H(S | class) in bits
    classes_table: pd.DataFrame | None = None

    def individuals_at_risk(self, attribute: str | None = None) -> int:
        """Records in classes vulnerable to inference (on ``attribute``, or on any critical one)."""
        seen: dict[int, int] = {}
        for r in self.vulnerable:
            if attribute is None or r.attribute == attribute:
                seen[r.cls] = r.size
        return int(sum(seen.values()))

    @property
    def summary(self) -> dict[str, object]:
        return {
            "records": self.records,
            "classes": self.classes,
            "rho": self.rho,
            "critical": self.critical,
            "leakage_before": self.leakage_before,
            "leakage_after": self.leakage_after,
            "max_share": self.max_share,
            "mean_entropy": {} if self.classes_table is None else {
                s: float(np.average(g["entropy"], weights=g["size"])) if g["size"].sum() else 0.0
                for s, g in self.classes_table.groupby("attribute", sort=False)
            },
            "vulnerable_classes": len({r.cls for r in self.vulnerable}),
            "individuals_at_risk": self.individuals_at_risk(),
            "vulnerable": [r.as_dict for r in self.vulnerable],
            "alerts": self.alerts,
        }


def _check(frame: pd.DataFrame, critical: Sequence[str], rho: float) -> None:
    if not critical:
        raise InputError("name at least one critical attribute", key="critical")
    unknown = [c for c in critical if c not in frame.columns]
    if unknown:
        raise InputError(f"unknown critical attribute; the release has: {', '.join(map(str, frame.columns))}",
                         column=unknown[0], key="critical")
    if not (isinstance(rho, int | float) and not isinstance(rho, bool) and 0 < rho <= 1):
        raise InputError(f"rho must lie in (0, 1], got {rho!r}", key="rho")


def class_risks(frame: pd.DataFrame, critical: Sequence[str], *, key_columns: Sequence[str] | None = None,
                rho: float = DEFAULT_RHO, table: list[pd.DataFrame] | None = None
                ) -> tuple[list[ClassRisk], dict[str, float], int]:
    """Every (critical attribute, class) at or above ``rho``, each attribute's largest share, and
    the number of classes; with ``table`` (a list), every class's figures are appended to it."""
    _check(frame, critical, rho)
    keys = [c for c in frame.columns if c not in critical] if key_columns is None else list(key_columns)
    cls, n_classes = _classes(frame, keys)
    sizes = np.bincount(cls, minlength=n_classes)
    risky: list[ClassRisk] = []
    max_share: dict[str, float] = {}
    for s in critical:
        codes, labels = factorize_text(frame[s])
        hist = np.zeros((n_classes, len(labels)), dtype=np.int64)
        np.add.at(hist, (cls, codes), 1)
        top = hist.argmax(axis=1)
        share = hist[np.arange(n_classes), top] / np.maximum(sizes, 1)
        p = hist / np.maximum(sizes, 1)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0.0).sum(axis=1) + 0.0  # no -0.0
        max_share[s] = float(share.max()) if n_classes else 0.0
        if table is not None:
            table.append(pd.DataFrame({"attribute": s, "class": np.arange(n_classes), "size": sizes,
                                       "dominant": labels[top] if len(labels) else "", "share": share,
                                       "entropy": entropy}))
        for c in np.flatnonzero(share >= rho - 1e-12):
            risky.append(ClassRisk(s, int(c), int(sizes[c]), str(labels[top[c]]), float(share[c]), float(entropy[c])))
    return risky, max_share, n_classes


def post_analytics(
    release: pd.DataFrame,
    critical: Sequence[str],
    *,
    original: pd.DataFrame | None = None,
    rho: float = DEFAULT_RHO,
    key_columns: Sequence[str] | None = None,
) -> PostAnalytics:
    """Post-analytics of a published table (see the module docstring).

    ``original`` (the input, same columns or a superset) gives the leakage before anonymization;
    ``key_columns`` the columns that form classes (default: every column but the critical ones).
    """
    critical = list(critical)
    parts: list[pd.DataFrame] = []
    risky, max_share, n_classes = class_risks(release, critical, key_columns=key_columns, rho=rho, table=parts)
    columns = [str(c) for c in release.columns]
    after = _column_leakage(release, columns)
    before = _column_leakage(original, [c for c in columns if c in original.columns]) if original is not None else {}
    report = PostAnalytics(len(release), n_classes, float(rho), critical, before, after, risky, max_share,
                           classes_table=pd.concat(parts, ignore_index=True) if parts else None)
    for s in critical:
        mine = [r for r in risky if r.attribute == s]
        if mine:
            report.alerts.append(
                f"{s!r} can be inferred: {len(mine)} of {n_classes} classes ({report.individuals_at_risk(s):,} "
                f"individuals) have one value for at least {rho:.0%} of their records; inject fake records "
                "(post_analytics.inject_fake) or generalize further"
            )
    return report


def fakes_needed(dominant: int, size: int, rho: float) -> int:
    """The smallest ``f`` with ``dominant / (size + f) < rho`` (0 when already below)."""
    f = max(0, math.floor(dominant / rho - size) - 1)  # just below the answer, then step up exactly
    while not dominant < rho * (size + f) - 1e-12:
        f += 1
    return f


@dataclass
class FakeInjection:
    """What :func:`inject_fakes` did: the published frame with fakes (rows shuffled with the seed),
    the manifest of fake rows (their position in ``frame`` and their values) and the counts."""

    frame: pd.DataFrame
    manifest: pd.DataFrame
    fakes: int
    classes: int
    unrepairable: list[str]


def inject_fakes(
    release: pd.DataFrame,
    critical: Sequence[str],
    *,
    rho: float = DEFAULT_RHO,
    seed: int = 0,
    key_columns: Sequence[str] | None = None,
) -> FakeInjection:
    """Add to every vulnerable class the fewest fake records that bring each critical attribute's
    dominant share below ``rho`` (see the module docstring). A class whose critical attribute has no
    other value anywhere in the release cannot be repaired: it is listed in ``unrepairable``."""
    critical = list(critical)
    risky, _, n_classes = class_risks(release, critical, key_columns=key_columns, rho=rho)
    rng = np.random.default_rng(seed)
    keys = [c for c in release.columns if c not in critical] if key_columns is None else list(key_columns)
    cls, _ = _classes(release, keys)
    frame = release.reset_index(drop=True)
    texts = {s: np.asarray(factorize_text(frame[s])[1])[factorize_text(frame[s])[0]] for s in critical}
    fakes: list[pd.DataFrame] = []
    unrepairable: list[str] = []
    for c in sorted({r.cls for r in risky}):
        members = np.flatnonzero(cls == c)
        size = len(members)
        need = 0
        dominant: dict[str, str] = {}
        for s in critical:
            values, counts = np.unique(texts[s][members], return_counts=True)
            top = int(counts.argmax())
            dominant[s] = str(values[top])
            need = max(need, fakes_needed(int(counts[top]), size, rho))
        if need == 0:
            continue
        rows = frame.iloc[rng.choice(members, size=need)].copy()  # the class's published values
        ok = True
        for s in critical:
            others = texts[s][texts[s] != dominant[s]]
            if others.size == 0:
                unrepairable.append(f"class {c}: {s!r} has no value but {dominant[s]!r} in the release")
                ok = False
                break
            values, counts = np.unique(others, return_counts=True)
            rows[s] = rng.choice(values, size=need, p=counts / counts.sum())
        if ok:
            fakes.append(rows)
    if not fakes:
        return FakeInjection(frame, frame.iloc[:0].assign(row=pd.Series(dtype=np.int64)), 0, n_classes, unrepairable)
    fake = pd.concat(fakes, ignore_index=True)
    combined = pd.concat([frame, fake], ignore_index=True)
    is_fake = np.r_[np.zeros(len(frame), dtype=bool), np.ones(len(fake), dtype=bool)]
    order = rng.permutation(len(combined))
    published = combined.iloc[order].reset_index(drop=True)
    positions = np.flatnonzero(is_fake[order])
    manifest = published.iloc[positions].reset_index(drop=True)
    manifest.insert(0, "row", positions + 1)
    return FakeInjection(published, manifest, len(fake), n_classes, unrepairable)
