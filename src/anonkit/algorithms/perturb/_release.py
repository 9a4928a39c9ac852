"""The release every perturbative method returns, the checks of its columns before any work, and
the verifier's common part (see :mod:`anonkit.algorithms.perturb`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import pandas as pd

from anonkit._values import labels_look_numeric
from anonkit._verify_perturb import unchanged_results
from anonkit.errors import InputError
from anonkit.metrics.perturbed import text_codes
from anonkit.models import Criterion
from anonkit.release import Release, full_domain_release
from anonkit.schema import AttrType, Role
from anonkit.table import Table
from anonkit.verifier import ModelResult, Verification

#: the name of the one table a perturbative release publishes (what its declaration lists as ``tables``)
PUBLISHED = "perturbed"
PUBLISHED_TABLES = (PUBLISHED,)
#: what every perturbative summary says of the privacy models
MODELS_JUDGED = ("the privacy models are not enforced by perturbation: the audit judges them on the "
                 "published (perturbed) values")


#: a method's checks: (original rows in published order, published table, notes, params) → results
Checks = Callable[[pd.DataFrame, pd.DataFrame, dict[str, Any], dict[str, Any]], list[ModelResult]]
#: a method's reported figures from the same inputs → notes to add
Reported = Callable[[pd.DataFrame, pd.DataFrame, dict[str, Any], dict[str, Any]], dict[str, Any]]


class OneTable(dict):  # type: ignore[type-arg]
    """``Release.tables`` of a perturbative release: the runner's verifier path finds the published
    table by its declared name (``release.tables["perturbed"]``), while as a mapping of *linked*
    tables it is empty, so every path that asks "one table or linked tables?" (the write, the audit,
    the report) reads the release as one table, :meth:`PerturbedRelease.to_frame`."""

    def __init__(self, frame: pd.DataFrame) -> None:
        super().__init__()
        self.frame = frame

    def __missing__(self, key: str) -> pd.DataFrame:
        if key == PUBLISHED:
            return self.frame
        raise KeyError(key)


@dataclass
class PerturbedRelease(Release):
    """A :class:`~anonkit.release.Release` whose published table is the perturbed one: ``published``
    (rows already in their published order) and ``rows`` (the private link: the input record of each
    published row, never published). Its classes are the combinations of the published
    quasi-identifier values (:func:`published_classes`), at level 0 (nothing generalized): the
    summary's class figures (classes, smallest class, records at risk) describe what an attacker
    groups, as the audit does."""

    truthful = False  # its published values are not generalizations of the records' own

    published: pd.DataFrame = field(default_factory=pd.DataFrame)
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: the method's checks on (original rows, published table, the release's notes, its parameters) →
    #: results, run by :func:`verify_perturbed`; what it publishes about itself is read from the notes
    checks: Checks | None = field(default=None, repr=False)
    #: the method's reported (not judged) figures from the same inputs, added to the notes after the checks
    reported: Reported | None = field(default=None, repr=False)
    #: the columns the method changed (every other one must be the input's)
    perturbed: tuple[str, ...] = ()

    def published_rows(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> np.ndarray:
        """The input record of every published row (the order was drawn once, from the run's seed)."""
        return self.rows

    def to_frame(self, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> pd.DataFrame:
        """The published (perturbed) table."""
        return self.published


def check_columns(table: Table, names: Sequence[str], *, key: str, method: str,
                  kind: Literal["categorical", "numeric", "any"]) -> None:
    """Refuse, before any work, a named column the release does not publish (unknown, an identifier
    or a person column), named twice, a survey weight or household column, an id (``new-id``,
    ``pseudonym``: perturbed or grouped by, one person's rows would no longer agree), or of the wrong kind for
    ``method``: PRAM changes categories
    (a numeric or date column without a hierarchy is refused: declare ``type: categorical`` for coded
    categories), noise
    is added to numbers (a categorical or date column, or one whose values are not all numbers, is
    refused)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"{method}: a column is named twice", column=name, key=key)
        seen.add(name)
        if name not in table.frame.columns:
            why = ("is not published (identifiers and person columns never are)" if name in table.schema
                   else "is not a column of the input")
            raise InputError(f"{method}: the column {why}", column=name, key=key)
        a = table.schema[name]
        if a.role == Role.WEIGHT or a.role == Role.HOUSEHOLD:
            raise InputError(f"{method}: a survey {a.role.value} column is not perturbed", column=name, key=key)
        if a.role in (Role.NEW_ID, Role.PSEUDONYM):
            raise InputError(f"{method}: {name} is an id (role {a.role.value}), not a value to perturb or group by: "
                             "name another column", column=name, key=key)
        kind_of = column_kind(table, name, categories=kind == "categorical")
        if kind == "categorical" and kind_of != "categorical":
            raise InputError(f"{method} changes categories but the column is {kind_of}: use add-noise for numbers, "
                             "or declare type: categorical for coded categories", column=name, key=key)
        if kind == "numeric" and kind_of != "numeric":
            raise InputError(f"{method} adds noise to numbers but the column is {kind_of}: use pram for categories",
                             column=name, key=key)


def default_columns(table: Table, columns: Sequence[str] | None, *, method: str,
                    kind: Literal["categorical", "numeric"]) -> list[str]:
    """``columns`` as given, else every quasi-identifier of ``kind`` (sdcMicro perturbs its key or
    numeric variables unless told which), else, for categories, every categorical sensitive
    attribute; refused in one line when there is none."""
    if columns is not None:
        return list(columns)
    cats = kind == "categorical"
    found = [q for q in table.qi if column_kind(table, q, categories=cats) == kind]
    if not found and cats:
        found = [s for s in table.sensitive if column_kind(table, s, categories=cats) == kind]
    if not found:
        raise InputError(f"{method}: name the columns to perturb; the table has no {kind} quasi-identifier to "
                         "perturb by default", key="algorithm.columns")
    return found


def column_kind(table: Table, name: str, *, categories: bool = False) -> str:
    """``numeric``, ``date`` or ``categorical``: the declared (or inferred) type; an attribute without
    one (an insensitive column) is numeric when every value it has is a number. With ``categories``
    (what PRAM asks) a column with a hierarchy is categorical: its values are the hierarchy's leaves."""
    if categories and table.schema[name].hierarchy is not None:
        return "categorical"
    t = table.schema[name].type
    if t is not None:
        return "numeric" if t == AttrType.NUMERIC else "date" if t == AttrType.DATE else "categorical"
    _, texts = text_codes(table.frame[name])  # the distinct texts of the values, each turned into text once
    values = np.array(texts, dtype=object)
    return "numeric" if len(values) and labels_look_numeric(values) else "categorical"


def published_classes(table: Table, frame: pd.DataFrame) -> tuple[np.ndarray, int]:
    """Every record's class — the combination of its *published* quasi-identifier values (as text,
    missing as its own value), what an attacker groups by; −1 when suppressed up front — and the
    number of classes, numbered in the order of their published values (as text)."""
    kept = ~table.presuppressed
    record_class = np.full(table.n, -1, dtype=np.int64)
    if not kept.any():
        return record_class, 0
    if not table.qi:
        record_class[kept] = 0
        return record_class, 1
    every = bool(kept.all())  # then each column is read as it is: no sub-frame copied
    record_class[kept] = _text_key_groups([frame[q] if every else frame[q][kept] for q in table.qi])
    return record_class, int(record_class.max()) + 1


def _text_key_groups(keys: pd.DataFrame | list[pd.Series]) -> np.ndarray:
    """Each row's group among the distinct combinations of its cells' texts (a missing cell is a value of
    its own, after every text), numbered in the sorted order of those combinations: each column's distinct texts
    ranked once (:func:`_text_ranks`), the rows grouped on the ranks."""
    if isinstance(keys, pd.DataFrame):
        keys = [keys[c] for c in keys.columns]
    ranks = [_text_ranks(column) for column in keys]
    combined = np.zeros(len(keys[0]), dtype=np.int64)
    room = np.iinfo(np.int64).max
    span = 1  # the combined ranks lie in [0, span)
    for rank, size in ranks:
        if room // size < 1:
            frame = pd.DataFrame({i: r for i, (r, _) in enumerate(ranks)})
            return frame.groupby(list(frame.columns), sort=True).ngroup().to_numpy()
        combined = combined * size + rank
        room //= size
        span *= size
    if span <= 2 * len(combined) + _DENSE_SPAN:  # few combinations: numbered through a table over them, in order
        seen = np.zeros(span, dtype=np.bool_)
        seen[combined] = True
        return (np.cumsum(seen) - 1)[combined]
    return pd.factorize(combined, sort=True)[0].astype(np.int64)  # np.unique's numbering, by hashing


#: an integer column whose values span at most twice its length plus this many is ranked through a table over
#: the span (coded categories) instead of hashing its values
_DENSE_SPAN = 4096


def _text_ranks(column: pd.Series) -> tuple[np.ndarray, int]:
    """Every cell's rank among the column's distinct texts (sorted; a missing cell ranked after every text) and
    the number of ranks. A numpy integer column is numbered on its values (distinct integers have distinct texts,
    and it has no missing cell: only its few distinct values are turned into text); any other through
    :func:`~anonkit.metrics.perturbed.text_codes`."""
    values = column.to_numpy() if isinstance(column.dtype, np.dtype) and column.dtype.kind in "iu" else None
    if values is not None and len(values):
        lo = int(values.min())
        span = int(values.max()) - lo + 1
        if span <= 2 * len(values) + _DENSE_SPAN:  # a dense range (codes): a table over it, no hashing
            offset = values - lo
            seen = np.zeros(span, dtype=np.bool_)
            seen[offset] = True
            distinct = np.flatnonzero(seen)
            order = text_order([str(v + lo) for v in distinct.tolist()])
            rank_at = np.zeros(span, dtype=np.int64)
            rank_at[distinct[order]] = np.arange(len(distinct))
            return rank_at[offset], len(distinct)
    if values is not None:
        codes, found = pd.factorize(values)
        texts = [str(v) for v in found.tolist()]
        missing = 0
    else:
        codes, texts = text_codes(column)
        missing = 1
    rank_of = np.empty(len(texts) + 1, dtype=np.int64)  # [−1]: a missing cell, its own rank after every text
    rank_of[text_order(texts)] = np.arange(len(texts))
    rank_of[-1] = len(texts)
    return rank_of[codes], len(texts) + missing  # code −1 (missing) reads the last entry


#: the longest text :func:`text_order` sorts as a fixed-width numpy string (4 bytes a character, every text as wide
#: as the longest: a number's text has at most 24 characters); longer texts are sorted as Python objects
_FIXED_WIDTH_CHARS = 32


def text_order(texts: Sequence[str]) -> np.ndarray:
    """The permutation sorting ``texts`` (distinct) as Python sorts them (by code point): numpy's sort of a
    fixed-width string array (``<U``), four to five times faster than sorting the Python objects, where it gives
    the same order — it compares by code point too, but pads with NUL and so cannot tell ``"a"`` from
    ``"a\\x00"``: a text holding a NUL, or longer than :data:`_FIXED_WIDTH_CHARS`, sorts the objects. The texts
    are distinct, so every sort gives the one order (no tie for stability to break)."""
    if not len(texts):
        return np.zeros(0, dtype=np.intp)
    longest = max(map(len, texts))
    if longest <= _FIXED_WIDTH_CHARS and "\x00" not in "".join(texts):  # any NUL at all: the objects
        return np.argsort(np.array(texts, dtype=f"<U{max(longest, 1)}"))
    return np.argsort(np.array(texts, dtype=object), kind="stable")


def perturbed_release(table: Table, frame: pd.DataFrame, *, algorithm: str, seed: int, params: dict[str, Any],
                      described: list[str], perturbed: Sequence[str],
                      checks: Checks, reported: Reported | None = None,
                      notes: dict[str, Any] | None = None, seconds: float = 0.0) -> PerturbedRelease:
    """The release of ``frame`` (the input's columns, input order, the named columns perturbed):
    every record not suppressed up front, rows shuffled with ``seed``; ``described`` says per column
    what the published values are (the summary's message ends with every other column as in the input
    and what the privacy models mean here)."""
    record_class, n_classes = published_classes(table, frame)
    base = full_domain_release(table, [0] * len(table.qi), record_class, n_classes, algorithm=algorithm,
                               params=params, seconds=seconds)
    rows = np.flatnonzero(record_class >= 0).astype(np.int64)
    np.random.default_rng(seed).shuffle(rows)
    published = frame.iloc[rows].reset_index(drop=True)
    message = "; ".join([*described, "every other column as in the input", MODELS_JUDGED])
    values = {f.name: getattr(base, f.name) for f in fields(Release)}
    values.update(message=f"perturbed, not truthful by design: {message}", notes=dict(notes or {}))
    rel = PerturbedRelease(**values, published=published, rows=rows, checks=checks,
                           reported=reported, perturbed=tuple(perturbed))
    rel.tables = OneTable(published)
    rel.notes["perturbation"] = list(described)
    return rel


def verify_perturbed(table: Table, release: Release, models: list[Criterion] | None = None) -> Verification:
    """The verdict on a perturbative release from what it publishes (the declarations' ``verifier=``):
    the published table read back through the declared name, the input rows it stands for (the private
    link), the common checks (:func:`anonkit._verify_perturb.unchanged_results`) and the method's own,
    which read what the release publishes about itself from its notes. The privacy ``models`` are not
    judged here (the audit judges them). When every check holds, the method's reported figures (a
    chi-square test) are added to the notes."""
    if not isinstance(release, PerturbedRelease) or release.checks is None:
        raise TypeError("a perturbative verifier needs the release of a perturbative method")
    published = release.tables[PUBLISHED]
    original = table.frame.iloc[release.rows].reset_index(drop=True)
    results = unchanged_results(original, published, release.perturbed)
    if all(r.passed for r in results):
        results += release.checks(original, published, release.notes, release.params)
    ok = all(r.passed for r in results)
    if ok and release.reported is not None:
        release.notes.update(release.reported(original, published, release.notes, release.params))
    n = len(published)
    return Verification(ok=ok, records=table.n_records, released=n, suppressed=table.n_records - n,
                        classes=release.n_classes, results=results)
