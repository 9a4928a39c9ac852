"""Reading a published release into its classes: what an attacker sees, whoever made the release.

An attacker who knows a target's quasi-identifiers finds the target's *class* in the release and
reads the sensitive values published for that class. This module turns a publication into exactly
that view, from the published text alone (no :class:`~anonkit.table.Table`, no algorithm):

* **one table** (:func:`published_table`): quasi-identifiers generalized to hierarchy node labels,
  intervals ``[20-39]``, sets ``{a,b}`` or ``*``. Rows with identical quasi-identifier text form a
  class; rows whose quasi-identifiers are all ``*`` are suppressed records and form none. The
  grouping and the sensitive domains are the independent verifier's
  (:func:`anonkit.verifier.released_stats`), so an attack sees the classes the verifier judges.
* **two linked tables** (:func:`published_buckets`): a quasi table (Anatomy's ``qit``,
  angelization's ``qt``) with a group id, and a sensitive table (``st``) listing per group each
  sensitive value with its count. A group is a class. In a 1:M release (``unit="person"``) every
  quasi-table row is a person and the ST may count several values per person (their history).

:func:`published_release` reads an anonkit :class:`~anonkit.release.Release` the way it is
published (its linked tables when it has them, else :meth:`~anonkit.release.Release.to_frame`), and
:func:`private_rows` gives the publisher's private link from published rows to input records where
the release records one (attacks that need the truth, e.g. background knowledge, take it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from anonkit._values import as_text, factorize_text, looks_numeric, parse_numeric
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.release import Release
from anonkit.schema import AttrType, Schema
from anonkit.stats import ClassStats, SensitiveDomain, build_domain
from anonkit.verifier import DomainSpec, released_stats

__all__ = [
    "PublishedRelease",
    "Reference",
    "Unit",
    "domain_specs",
    "private_rows",
    "published_buckets",
    "published_release",
    "published_table",
]

#: what one row of the (quasi) table stands for
Unit = Literal["record", "person"]
#: the release's own reference values for the sensitive attributes (``None``: the release's)
Reference = pd.DataFrame | Mapping[str, Iterable[object]] | None


@dataclass(frozen=True)
class PublishedRelease:
    """The classes of a published release, as an attacker reads them.

    Attributes
    ----------
    kind:
        ``"table"`` (one generalized table) or ``"buckets"`` (a quasi table and a sensitive table).
    unit:
        What a published row is: a ``"record"``, or a ``"person"`` (1:M releases: one quasi-table
        row per person).
    row_class:
        The class (``0 … C−1``) of every published row — of the table, or of the quasi table — in
        published order; ``−1`` for a suppressed row.
    stats:
        ``stats.sizes``: the published rows of every class (records, or persons); ``stats.hist[a]``:
        the ``C × S`` published counts of every value of sensitive attribute ``a``;
        ``stats.domains[a]``: its domain (values in order, the reference distribution, the hierarchy
        ancestors).
    specs:
        How every sensitive domain was built (numeric, declared order, hierarchy).
    class_ids:
        The group id of every class as published (``kind="buckets"``); ``None`` for a table.
    compatible:
        A release read with wildcards (:func:`anonkit.analytics.wildcard.wildcard_table`): its
        classes are the distinct published patterns (``stats.sizes`` their rows), ``compatible``
        the published rows compatible with each (a ``marker`` cell matching any value) and
        ``stats.hist`` the sensitive counts of those compatible rows. ``None``: classes are exact.
    released:
        Per sensitive attribute, the published counts of each value over the whole release (the
        baselines' distribution); ``None``: the histograms' column sums, which are those counts
        when classes are disjoint.
    marker:
        The wildcard text of a release read with wildcards.
    """

    kind: Literal["table", "buckets"]
    unit: Unit
    row_class: np.ndarray
    stats: ClassStats
    specs: dict[str, DomainSpec]
    class_ids: np.ndarray | None = None
    compatible: np.ndarray | None = None
    released: dict[str, np.ndarray] | None = None
    marker: str | None = None

    # ------------------------------------------------------------------ sizes
    @property
    def n_classes(self) -> int:
        return self.stats.n_classes

    @property
    def sizes(self) -> np.ndarray:
        """Published rows (records or persons) of every class, as integers."""
        return np.rint(self.stats.sizes).astype(np.int64)

    @property
    def n_rows(self) -> int:
        """Published rows, suppressed ones included."""
        return len(self.row_class)

    @property
    def n_released(self) -> int:
        """Published rows that belong to a class."""
        return int((self.row_class >= 0).sum())

    # ------------------------------------------------------------------ sensitive attributes
    @property
    def sensitive(self) -> tuple[str, ...]:
        return tuple(self.stats.hist)

    def attribute(self, name: str | None = None) -> str:
        """``name`` checked, or the only sensitive attribute when ``name`` is ``None``."""
        names = self.sensitive
        if name is None:
            if len(names) != 1:
                raise InputError(f"the release has {len(names)} sensitive attributes ({', '.join(names)}): "
                                 "name the one to attack", key="sensitive")
            return names[0]
        if name not in names:
            raise InputError(f"not a sensitive attribute of the release ({', '.join(names) or 'none'})", column=name)
        return name

    def histogram(self, name: str | None = None) -> np.ndarray:
        """The ``C × S`` published counts of every sensitive value per class."""
        return self.stats.hist[self.attribute(name)]

    def value_totals(self, name: str | None = None) -> np.ndarray:
        """The published count of every sensitive value over the whole release (what a release-blind
        baseline knows): :attr:`released` when set (overlapping classes), else the histogram's sums."""
        name = self.attribute(name)
        if self.released is not None:
            return np.asarray(self.released[name], dtype=np.float64)
        return self.stats.hist[name].sum(axis=0)

    def domain(self, name: str | None = None) -> SensitiveDomain:
        return self.stats.domains[self.attribute(name)]

    def hierarchy(self, name: str | None = None) -> Hierarchy | None:
        return self.specs[self.attribute(name)].hierarchy

    def positions(self, name: str | None = None) -> np.ndarray | None:
        """Where every domain value lies on a line: its number (a numeric attribute), its rank (an
        ordinal one, declared order); ``None`` for a nominal attribute."""
        name = self.attribute(name)
        spec, labels = self.specs[name], self.stats.domains[name].labels
        if spec.numeric:
            return parse_numeric(pd.Series(labels, dtype=object), name)
        if spec.order is not None:
            return np.arange(len(labels), dtype=np.float64)
        return None


# ---------------------------------------------------------------------------------------- specs
def _spec(name: str, schema: Schema | None, values: pd.Series | np.ndarray,
          hierarchies: Mapping[str, Hierarchy] | None) -> DomainSpec:
    """How attribute ``name``'s domain is built: from the schema (type, order, hierarchy, categories), the
    ``hierarchies`` given, and the values (numbers → numeric when the type is not declared)."""
    attr = schema.attributes.get(name) if schema is not None else None
    kind = attr.type if attr is not None else None
    # the values are read only when the type is not declared (an object copy of a column costs a pass over it)
    numeric = kind == AttrType.NUMERIC or (kind is None and looks_numeric(pd.Series(list(values), dtype=object)))
    order = attr.order if attr is not None else None
    hierarchy = (hierarchies or {}).get(name) or (attr.hierarchy if attr is not None else None)
    categories = attr.categories if attr is not None else None
    category_order = attr.category_order if attr is not None else None
    return DomainSpec(bool(numeric), order, hierarchy, categories, category_order)


def _sensitive_names(schema: Schema | None, sensitive: str | Iterable[str] | None, required: bool = True
                     ) -> list[str]:
    if sensitive is not None:
        names = [sensitive] if isinstance(sensitive, str) else [str(s) for s in sensitive]
    else:
        names = schema.sensitive if schema is not None else []
    if not names and required:
        raise InputError("no sensitive attribute: give a schema with a sensitive attribute or name it", key="sensitive")
    return names


# ---------------------------------------------------------------------------------------- one table
def domain_specs(frame: pd.DataFrame, schema: Schema | None, quasi: Iterable[str] | None,
                 sensitive: str | Iterable[str] | None, hierarchies: Mapping[str, Hierarchy] | None,
                 reference: Reference, needs_sensitive: bool = True) -> tuple[list[str], dict[str, DomainSpec]]:
    """The quasi-identifier columns and every sensitive attribute's :class:`DomainSpec` of a one-table
    release (the arguments of :func:`published_table`), each column checked to be in ``frame``."""
    if quasi is None:
        if schema is None:
            raise InputError("which columns are quasi-identifiers? give a schema or quasi=", key="quasi")
        quasi = schema.quasi
    qis = [str(q) for q in quasi]
    names = _sensitive_names(schema, sensitive, required=needs_sensitive)
    for name in [*qis, *names]:
        if name not in frame.columns:
            raise InputError(f"the release lacks a column; it has: {', '.join(map(str, frame.columns))}", column=name)
    specs = {}
    for name in names:
        if reference is not None and name not in reference:
            raise InputError("the reference lacks a sensitive attribute", column=name, key="reference")
        values = reference[name] if reference is not None else frame[name]
        specs[name] = _spec(name, schema, values, hierarchies)
    return qis, specs


def published_table(
    frame: pd.DataFrame,
    schema: Schema | None = None,
    *,
    quasi: Iterable[str] | None = None,
    sensitive: str | Iterable[str] | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    reference: Reference = None,
    needs_sensitive: bool = True,
) -> PublishedRelease:
    """The classes of one published table (``needs_sensitive=False``: a release of quasi-identifiers
    only, as a k-anonymity release without a sensitive attribute is, has classes and sizes too).

    Parameters
    ----------
    frame:
        The published table: generalized quasi-identifiers (any labels), the sensitive values;
        suppressed records dropped, or kept with every quasi-identifier ``*``.
    schema:
        The quasi-identifiers and sensitive attributes (their roles), types, orders, hierarchies.
    quasi, sensitive:
        The column names, instead of (or overriding) the schema's roles.
    hierarchies:
        Sensitive hierarchies beyond the schema's (the similarity attack uses them).
    reference:
        The input's sensitive values (a frame or ``{name: values}``): the domain and the overall
        distribution then come from the input, as spec §1.3 wants; default: the release's own.

    Raises
    ------
    InputError
        No quasi-identifiers or no sensitive attribute named; a named column the frame lacks; a
        published sensitive value absent from ``reference``; a non-numeric value of a numeric
        attribute.
    """
    qis, specs = domain_specs(frame, schema, quasi, sensitive, hierarchies, reference, needs_sensitive)
    frame = frame.reset_index(drop=True)
    stats, cls, supp = released_stats(frame, qis, specs, reference=reference)
    row_class = np.full(len(frame), -1, dtype=np.int64)
    row_class[~supp] = cls
    return PublishedRelease("table", "record", row_class, stats, specs)


# ---------------------------------------------------------------------------------------- two tables
def _column(frame: pd.DataFrame, name: str, table: str) -> None:
    if name not in frame.columns:
        raise InputError(f"the {table} table lacks a column; it has: {', '.join(map(str, frame.columns))}",
                         column=name)


def _group_column(qt: pd.DataFrame, st: pd.DataFrame, excluded: set[str]) -> str:
    shared = [str(c) for c in qt.columns if c in st.columns and str(c) not in excluded]
    if len(shared) != 1:
        raise InputError(f"cannot tell the group id column: the two tables share {shared or 'no column'}; "
                         "pass group=", key="group")
    return shared[0]


def _count_column(st: pd.DataFrame, group: str, names: list[str] | None) -> str:
    rest = [str(c) for c in st.columns if str(c) != group and (names is None or str(c) not in names)]
    if len(rest) == 1 and names is not None:
        return rest[0]
    named = [c for c in rest if c.lstrip("_").lower() == "count"]
    if len(named) != 1:
        raise InputError(f"cannot tell the count column of the sensitive table among {rest}; pass count=",
                         key="count")
    return named[0]


def _counts(st: pd.DataFrame, count: str) -> np.ndarray:
    """The ST counts as whole numbers ≥ 1; a bad one is an error naming its row."""
    raw = st[count]
    nums = pd.to_numeric(pd.Series(raw.to_numpy(dtype=object)), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(nums))
    if bad.size:
        i = int(bad[0])
        raise InputError("a count of the sensitive table is not a number", column=count, value=raw.iloc[i], row=i + 1)
    bad = np.flatnonzero((nums < 1) | (nums != np.round(nums)))
    if bad.size:
        i = int(bad[0])
        raise InputError("a count of the sensitive table is not a whole number ≥ 1", column=count,
                         value=raw.iloc[i], row=i + 1)
    return nums.astype(np.int64)


def published_buckets(
    qt: pd.DataFrame,
    st: pd.DataFrame,
    schema: Schema | None = None,
    *,
    sensitive: str | None = None,
    group: str | None = None,
    count: str | None = None,
    unit: Unit | None = None,
    hierarchies: Mapping[str, Hierarchy] | None = None,
    reference: Reference = None,
) -> PublishedRelease:
    """The classes (groups) of a bucketized release: a quasi table and a sensitive table.

    Parameters
    ----------
    qt:
        The quasi table (Anatomy's ``qit``, angelization's ``qt``): one row per record (or person),
        with its group id.
    st:
        The sensitive table: group id, sensitive value, count — one row per value present in a
        group (repeated (group, value) rows are added up).
    schema:
        Names the sensitive attribute (its role) and gives its type, order, hierarchy, and the
        person column (which makes ``unit`` ``"person"``).
    sensitive, group, count:
        Column names. Default: the schema's sensitive attribute (else the ST column that is neither
        the group nor the count), the one column both tables share, the ST's remaining column (or
        the one named ``count``, any case, leading ``_`` ignored).
    unit:
        ``"record"`` (Anatomy; every group's ST total must equal its quasi-table rows) or
        ``"person"`` (1:M angelization: a quasi-table row per person; the ST counts at least one
        value per row). Default: ``"person"`` when the schema has a person column.
    hierarchies, reference:
        As for :func:`published_table`.

    Raises
    ------
    InputError
        A missing column; a count that is not a whole number ≥ 1 (naming its ST row); a group of the
        ST that the quasi table lacks or the reverse (naming the group and its row); a group whose
        ST total contradicts its quasi-table rows.
    """
    qt = qt.reset_index(drop=True)
    st = st.reset_index(drop=True)
    if sensitive is not None:
        known: list[str] | None = [sensitive]
    else:  # the schema's sensitive attributes the ST publishes
        declared = schema.sensitive if schema is not None else []
        known = [s for s in declared if s in st.columns] or None
        if declared and known is None:
            raise InputError(f"the sensitive table lacks the schema's sensitive attribute; it has: "
                             f"{', '.join(map(str, st.columns))}", column=declared[0])
    if group is None:
        group = _group_column(qt, st, set(known or []))
    _column(qt, group, "quasi")
    _column(st, group, "sensitive")
    if count is None:
        count = _count_column(st, group, known)
    _column(st, count, "sensitive")
    if known is None:
        rest = [str(c) for c in st.columns if str(c) not in (group, count)]
        if len(rest) != 1:
            raise InputError(f"cannot tell the sensitive column of the sensitive table among {rest}; pass sensitive=",
                             key="sensitive")
        known = rest
    if len(known) != 1:
        raise InputError(f"a sensitive table publishes one sensitive attribute, {len(known)} named: "
                         f"{', '.join(known)}; pass sensitive=", key="sensitive")
    name = known[0]
    _column(st, name, "sensitive")
    if unit is None:
        unit = "person" if schema is not None and schema.person is not None else "record"
    if unit not in ("record", "person"):
        raise InputError(f"unit must be 'record' or 'person', got {unit!r}", key="unit")
    counts = _counts(st, count)

    # groups: numbered in the ST's order of first appearance, then the quasi table's
    s_text, q_text = as_text(st[group]), as_text(qt[group])
    ids, uniq = factorize_text(np.concatenate([s_text, q_text]))
    s_id, q_id = ids[: len(st)], ids[len(st):]
    n = len(uniq)
    rows = np.bincount(q_id, minlength=n)
    orphan = np.flatnonzero(rows[s_id] == 0)
    if orphan.size:
        i = int(orphan[0])
        raise InputError("a group of the sensitive table has no row in the quasi table", column=group,
                         value=st[group].iloc[i], row=i + 1)
    totals = np.bincount(s_id, weights=counts, minlength=n).astype(np.int64)
    empty = np.flatnonzero(totals[q_id] == 0)
    if empty.size:
        i = int(empty[0])
        raise InputError("a group of the quasi table has no value in the sensitive table", column=group,
                         value=qt[group].iloc[i], row=i + 1)
    off = np.flatnonzero(totals != rows) if unit == "record" else np.flatnonzero(totals < rows)
    if off.size:
        g = int(off[0])
        want = "equal" if unit == "record" else "be at least"
        raise InputError(f"a group's sensitive-table counts ({int(totals[g])}) must {want} its quasi-table rows "
                         f"({int(rows[g])}) in a release of one row per {unit}", column=group, value=uniq[g])

    # the sensitive domain and the per-group histogram
    values = as_text(st[name])
    ref_text = None if reference is None or name not in reference else as_text(
        pd.Series(list(reference[name]), dtype=object))
    spec = _spec(name, schema, pd.Series(values if ref_text is None else ref_text, dtype=object), hierarchies)
    domain, codes = build_domain(name, values, numeric=spec.numeric, order=spec.order, hierarchy=spec.hierarchy,
                                 reference_text=ref_text, categories=spec.categories,
                                 category_order=spec.category_order)
    s = domain.size
    hist = np.bincount(s_id * s + codes, weights=counts, minlength=n * s).reshape(n, s)
    if ref_text is None:  # the release's own distribution: counts, not ST rows
        domain = dataclasses.replace(domain, reference=hist.sum(axis=0) / max(hist.sum(), 1.0))
    stats = ClassStats(rows.astype(np.float64), {name: hist}, {name: domain})
    return PublishedRelease("buckets", unit, q_id.astype(np.int64), stats, {name: spec}, uniq)


# ---------------------------------------------------------------------------------------- anonkit releases
def published_release(
    release: Release,
    *,
    suppressed: Literal["drop", "mark"] = "drop",
    seed: int = 0,
    reference: bool = True,
) -> PublishedRelease:
    """An anonkit :class:`~anonkit.release.Release` read as it is published: its two linked tables
    when it has them (the first the quasi table, the second the sensitive table; group and count
    columns from ``params`` or found), else :meth:`~anonkit.release.Release.to_frame` with
    ``suppressed`` and ``seed``. With ``reference`` the input's sensitive values give the domain and
    the overall distribution (the publisher knows them); otherwise only what is published counts.
    """
    table = release.table
    schema = table.schema
    ref = {s: table.frame[s] for s in table.sensitive} if reference else None
    if len(release.tables) > 1:  # linked tables; one table declared by name is read as the table
        frames = list(release.tables.values())
        if len(frames) != 2:
            raise InputError(f"a bucketized release publishes two tables, this one {len(frames)}: "
                             f"{', '.join(release.tables)}")
        qt, st = frames
        group = release.params.get("bucket_column")
        count = release.params.get("count_column")
        names = [s for s in table.sensitive if s in st.columns]
        return published_buckets(qt, st, schema, sensitive=names[0] if len(names) == 1 else None,
                                 group=None if group is None else str(group),
                                 count=None if count is None else str(count),
                                 unit="person" if table.person is not None else "record", reference=ref)
    frame = release.to_frame(suppressed=suppressed, seed=seed)
    return published_table(frame, schema, quasi=table.qi, sensitive=table.sensitive, reference=ref)


def private_rows(release: Release, *, suppressed: Literal["drop", "mark"] = "drop", seed: int = 0) -> np.ndarray | None:
    """The publisher's private link: for every row :func:`published_release` reads, the input record
    it stands for (``−1`` for a fake person of a noise-repaired 1:M release). For a 1:M release the
    record is the person's representative (angelization's ``notes["representative"]``). ``None``
    when the release keeps no such link (Anatomy's quasi table). Never publish it.
    """
    if not release.tables:
        return release.published_rows(suppressed=suppressed, seed=seed)
    person = release.notes.get("qt_person")
    representative = release.notes.get("representative")
    if person is None or representative is None:
        return None
    person = np.asarray(person, dtype=np.int64)
    rep = np.asarray(representative, dtype=np.int64)
    return np.where(person >= 0, rep[np.maximum(person, 0)], -1)
