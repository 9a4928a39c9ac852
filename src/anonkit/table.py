"""The :class:`Table`: the input encoded once as integer codes.

Every quasi-identifier becomes an array of leaf codes into its hierarchy, so generalizing to a level
is one lookup (``hierarchy.maps[level][codes]``). Every sensitive attribute becomes codes into its
:class:`~anonkit.stats.SensitiveDomain`. Numeric and date quasi-identifiers also keep their numeric
values for local recoding. Identifiers are dropped here and never reach anything downstream.

The distinct quasi-identifier tuples with their counts and (tuple, sensitive value) pair counts are
computed once (:meth:`Table.distinct`); classes of a full-domain node are then computed on the
distinct tuples, not on the records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from anonkit._arrow_memory import arrow_text
from anonkit._kernels import NUMBA_BELOW, first_rows, group_columns, node_ids, usable_cores
from anonkit._values import (
    exact_dates,
    exact_numbers,
    factorize_text,
    labels_look_numeric,
    near_duplicates,
    parse_dates,
    parse_numeric,
    strip_cells,
)
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.hierarchy.arrow_leaves import leaf_columns
from anonkit.pseudonyms import survey_columns
from anonkit.schema import AttrType, Schema
from anonkit.stats import ClassStats, SensitiveDomain, build_domain, class_stats, class_stats_for

MissingPolicy = Literal["value", "suppress", "error"]
#: what a person whose quasi-identifiers differ between rows is: an error, or their first row's values
PersonQIPolicy = Literal["error", "first"]


@dataclass
class Distinct:
    """Distinct quasi-identifier tuples of a table.

    ``tuples[t, j]`` is the leaf code of QI ``j`` in tuple ``t``; ``counts[t]`` how many records
    have it; ``inverse[i]`` the tuple of record ``i``. ``pairs[a] = (tuple, code, count)`` lists the
    distinct (tuple, sensitive value) pairs of sensitive attribute ``a`` with their counts. ``first[t]``:
    the first record of tuple ``t`` when every tuple has records (:meth:`Table.distinct` gives it; ``None``:
    not known, e.g. a population's tuples without records).
    """

    tuples: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    first: np.ndarray | None = None

    @cached_property
    def matrix(self) -> np.ndarray:
        """The tuples' codes as a ``(d × m)`` C-contiguous array (one row per attribute)."""
        return np.ascontiguousarray(self.tuples.T)

    @cached_property
    def columns(self) -> list[np.ndarray]:
        """The tuples' codes column by column, each contiguous (fast gathers)."""
        return list(self.matrix)

    @property
    def size(self) -> int:
        return len(self.counts)


@dataclass(frozen=True)
class ExactValues:
    """A numeric or date quasi-identifier's values, kept exactly for publishing.

    :attr:`Table.numeric` holds floats (integers beyond 2⁵³ round to their neighbours, date-times
    become float days and drift by up to a microsecond); they serve distances and measures. What
    is *published* comes from here instead, so a released value or interval always covers its
    records' own values: ``rank[i]`` is the position of record ``i``'s value among the column's
    distinct values in increasing order (−1: missing; equal values written differently, ``1`` and
    ``1.0``, share a rank) and ``texts[r]`` the published text of rank ``r`` (a whole number in
    full, another number in its shortest exact form, a date as ``YYYY-MM-DD`` or ISO date-time
    down to the nanosecond). Ranks are ordered as the floats are (rounding is monotone), so the
    lowest and highest rank of a class are its float ``[min, max]``, exactly."""

    rank: np.ndarray
    texts: np.ndarray


class Table:
    """A data frame encoded for anonymization.

    Parameters
    ----------
    frame:
        The input; every schema attribute must be one of its columns.
    schema:
        Roles, types and hierarchies. Every column needs a role: one the schema does not name is an
        error unless the schema has a ``default_role``. An attribute without a ``type`` gets the
        inferred one (:func:`~anonkit._values.labels_look_numeric`: numbers → numeric, else categorical);
        :attr:`schema` is the schema with every type resolved.
    missing:
        ``"value"`` (default): a missing cell (empty or NaN) is a value of its own; ``"suppress"``:
        records with a missing quasi-identifier are suppressed up front: they count as suppressed in
        every report but do not use up ``max_suppression``, which bounds what the models suppress;
        ``"error"``: a missing quasi-identifier or sensitive value is an error.
    strip:
        Remove the whitespace around every text cell (default; ``False`` keeps it, and values that
        differ only by it are then reported in :attr:`warnings`).
    person_qi:
        With a person column (several records per person): a person whose quasi-identifiers differ
        between rows is an error (``"error"``, default) or takes its first row's values
        (``"first"``; :attr:`reconciled` counts them).

    Attributes
    ----------
    warnings:
        Facts about the values a user should know (missing values per column; values that differ
        only by case or whitespace), one sentence each.

    Raises
    ------
    InputError
        Unknown or duplicate columns, a column without a role, values missing from a hierarchy,
        non-numeric or non-finite values in a numeric column, an empty table.
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        schema: Schema,
        *,
        missing: MissingPolicy = "value",
        strip: bool = True,
        person_qi: PersonQIPolicy = "error",
        weights: np.ndarray | None = None,
    ) -> None:
        columns = _check_frame(frame)
        #: records per row when every row stands for several identical records (a distributed
        #: engine's distinct tuples); ``None``: one record per row
        self.weights: np.ndarray | None = _check_weights(weights, len(frame), schema.person)
        schema = schema.in_column_order(columns)
        frame = frame.set_axis(columns, axis=1)
        person_labels = self._set_persons(frame, schema.person)
        survey = survey_columns(frame, schema)
        #: the survey's sampling weight of every record (role weight), or ``None``; not :attr:`weights`
        self.survey_weight: np.ndarray | None = survey.weight
        #: the household of every record (codes ``0 … n_households−1``, role household), or ``None``
        self.household: np.ndarray | None = survey.household
        self.n_households: int = survey.n_households
        frame = _published_part(survey.frame, schema.never_published)
        self.warnings: list[str] = list(survey.notes)
        self.missing = missing
        #: persons whose quasi-identifiers differed between rows and were set to their first row's
        self.reconciled = 0
        coded, leaves = _encode_cells(frame, schema, strip, direct=self.person is None)
        if self.person is not None and schema.quasi:
            self._reconcile(frame, schema.quasi, coded, person_labels, person_qi)  # type: ignore[arg-type]
        self.schema = schema = self._resolve_types(schema, coded, strip)
        self.frame: pd.DataFrame = frame
        #: rows of the encoded arrays (``codes``, ``record_class``…)
        self.n: int = len(self.frame)
        #: input records: ``n``, or the sum of :attr:`weights`
        self.n_records: int = self.n if self.weights is None else int(self.weights.sum())
        self.qi: list[str] = schema.quasi
        self.sensitive: list[str] = schema.sensitive
        self.hierarchies: list[Hierarchy] = []
        self.numeric: dict[str, np.ndarray] = {}
        codes = np.empty((self.n, len(self.qi)), dtype=np.int32)
        self.presuppressed = np.zeros(self.n, dtype=bool)
        for j, name in enumerate(self.qi):
            codes[:, j], h = self._encode_quasi(name, coded[name], leaves.get(name))
            self.hierarchies.append(h)
        self.codes = codes
        self.domains: dict[str, SensitiveDomain] = {}
        self.sensitive_codes: dict[str, np.ndarray] = {}
        for name in self.sensitive:
            self._encode_sensitive(name, coded[name])
        #: each object or pyarrow text sensitive column's cells as encoded (the array the encoding read, held: its
        #: object cells, or its pyarrow array) with their codes and texts (:func:`~anonkit._values.factorize_text`):
        #: the publisher's verifier reads them instead of the cells again
        #: (:func:`anonkit._verify_rows.input_codes_of`, which takes them only for a column over that memory)
        self.encoded_cells: dict[str, tuple[Any, np.ndarray, np.ndarray]] = {
            name: (held, *coded[name]) for name in self.sensitive
            if (held := _encoded_memory(frame[name])) is not None}
        #: what the builders of registered class needs read (:func:`anonkit.stats.register_class_need`),
        #: one value per distinct tuple (a population count per tuple, for δ-presence-like models)
        self.sources: dict[str, object] = {}

    def _set_persons(self, frame: pd.DataFrame, person: str | None) -> np.ndarray | None:
        """Set :attr:`person` and :attr:`n_persons` from the person column (its labels returned), or
        one person per record without one. A record without a person is an error: it could not be
        counted with the other records of its person."""
        #: the person of every record (codes ``0 … n_persons−1``), for data with several records per
        #: person; ``None`` without a person column. The column itself never reaches the frame.
        self.person: np.ndarray | None = None
        self.n_persons: int = len(frame)
        if person is None:
            return None
        codes, labels = factorize_text(frame[person])
        if (labels == "").any():
            i = int(np.flatnonzero(codes == int(np.flatnonzero(labels == "")[0]))[0])
            raise InputError("a record without a person (the person column is empty)", column=person, row=i + 1)
        self.person, self.n_persons = codes, len(labels)
        return labels

    def _encode_quasi(self, name: str, coded: tuple[np.ndarray, np.ndarray],
                      leaf_of_cells: np.ndarray | None = None) -> tuple[np.ndarray, Hierarchy]:
        """The leaf code of every record in the hierarchy of quasi-identifier ``name`` (a flat one
        when the schema gives none) and that hierarchy; records the missing values
        (:attr:`presuppressed` under ``missing="suppress"``) and the numeric values of a numeric or
        date attribute (:attr:`numeric`). ``leaf_of_cells``: the leaves :func:`_encode_cells` found for the
        cells (:func:`~anonkit.hierarchy.arrow_leaves.arrow_leaf_codes`, after the hierarchy's refresh), taken
        as they are."""
        attr = self.schema[name]
        vcodes, vlabels = coded
        miss = self._missing(name, coded)
        if self.missing == "suppress":
            self.presuppressed |= miss
        if attr.type == AttrType.NUMERIC:  # (the column itself read only here: its cells name a bad value)
            self.numeric[name] = parse_numeric(self.frame[name], name, coded)
        elif attr.type == AttrType.DATE:
            self.numeric[name] = parse_dates(self.frame[name], name, attr.format)
        h = attr.hierarchy if attr.hierarchy is not None else Hierarchy.flat(vlabels, name=name)
        if leaf_of_cells is None:  # (else refreshed when its leaves were looked up)
            h.refresh()  # (a hierarchy changed in place since its caches were made: they are made again)
        if attr.max_level is not None and not attr.min_level <= attr.max_level <= h.height:
            raise InputError(
                f"max_level must lie in [{attr.min_level}, {h.height}]", column=name, value=attr.max_level
            )
        if leaf_of_cells is not None:
            return leaf_of_cells, h
        leaf = h.label_leaves(vcodes, vlabels, column=name, allow_missing=self.missing == "suppress")
        # written straight into the column (a flat hierarchy built from these labels maps each to itself)
        return (vcodes if np.array_equal(leaf, np.arange(len(leaf))) else leaf[vcodes]), h

    def _reconcile(self, frame: pd.DataFrame, qis: list[str], coded: dict[str, tuple[np.ndarray, np.ndarray]],
                   labels: np.ndarray, policy: PersonQIPolicy) -> None:
        """Every person's rows must share their quasi-identifiers (a person has one age, one zip);
        with ``policy="first"`` the first row's values are used and :attr:`reconciled` counts the
        persons changed, else a conflict is an error naming the person and the two rows."""
        person = self.person
        assert person is not None
        first = np.full(self.n_persons, len(person), dtype=np.int64)
        np.minimum.at(first, person, np.arange(len(person)))
        differs = np.zeros(len(person), dtype=bool)
        for name in qis:
            codes = coded[name][0]
            differs |= codes != codes[first[person]]
        if not differs.any():
            return
        if policy != "first":
            i = int(np.flatnonzero(differs)[0])
            p = int(person[i])
            column = next(q for q in qis if coded[q][0][i] != coded[q][0][first[p]])
            raise InputError(
                f"person {labels[p]!r} has different quasi-identifiers in rows {int(first[p]) + 1} and {i + 1}; "
                "fix the data or set input.person_qi: first to use each person's first row",
                column=column,
            )
        self.reconciled = int(np.unique(person[differs]).size)
        for name in qis:
            frame[name] = frame[name].to_numpy()[first[person]]
            codes, texts = coded[name]
            coded[name] = (codes[first[person]], texts)

    def _missing(self, name: str, coded: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """The records whose ``name`` is missing; an error naming the first when the policy forbids them."""
        vcodes, vlabels = coded
        empty = np.flatnonzero(vlabels == "")
        miss = vcodes == empty[0] if empty.size else np.zeros(len(vcodes), dtype=bool)
        if self.missing == "error" and empty.size:
            i = int(np.flatnonzero(miss)[0])
            raise InputError("missing value (the config forbids them)", column=name, value="", row=i + 1)
        return miss

    def _resolve_types(self, schema: Schema, coded: dict[str, tuple[np.ndarray, np.ndarray]], strip: bool) -> Schema:
        """``schema`` with the type of every quasi-identifier and sensitive attribute inferred where
        it is not declared, and the value warnings collected."""
        attrs = dict(schema.attributes)
        for name, (vcodes, vlabels) in coded.items():
            a = schema[name]
            empty = np.flatnonzero(vlabels == "")
            if empty.size:
                n_missing = int(np.count_nonzero(vcodes == empty[0]))
                self.warnings.append(
                    f"column {name!r}: {n_missing:,} missing value(s) (empty cells), treated as a value of their own"
                    if self.missing == "value" else f"column {name!r}: {n_missing:,} missing value(s) (empty cells)"
                )
            for group in near_duplicates(vlabels)[:3]:
                why = "case or whitespace" if not strip else "letter case or inner whitespace"
                self.warnings.append(
                    f"column {name!r}: values that differ only by {why} are different values: "
                    + ", ".join(repr(v) for v in group)
                )
            if a.type is None:
                inferred = AttrType.NUMERIC if labels_look_numeric(vlabels) else AttrType.CATEGORICAL
                attrs[name] = replace(a, type=inferred)
        return Schema(attrs, schema.default_role)

    def _encode_sensitive(self, name: str, coded: tuple[np.ndarray, np.ndarray]) -> None:
        attr = self.schema[name]
        self._missing(name, coded)
        vcodes, vlabels = coded
        domain, codes = build_domain(
            name, None, coded=(vcodes, vlabels), numeric=attr.type == AttrType.NUMERIC, order=attr.order,
            hierarchy=attr.hierarchy, categories=attr.categories, category_order=attr.category_order,
            reference_weights=self.weights,
        )
        self.domains[name] = domain
        self.sensitive_codes[name] = codes

    # ------------------------------------------------------------------ facts
    @property
    def heights(self) -> list[int]:
        return [h.height for h in self.hierarchies]

    def class_people(self, record_class: np.ndarray, n_classes: int) -> np.ndarray:
        """Distinct persons per class (``record_class``: the class of every record, −1 none); the
        class sizes when every record is its own person (no person column)."""
        rc = np.asarray(record_class, dtype=np.int64)
        keep = rc >= 0
        if self.person is None:
            if self.weights is not None:
                return np.bincount(rc[keep], weights=self.weights[keep], minlength=n_classes).astype(np.int64)
            return np.bincount(rc[keep], minlength=n_classes)
        pairs = np.unique(rc[keep] * np.int64(self.n_persons) + self.person[keep])
        return np.bincount(pairs // self.n_persons, minlength=n_classes)

    def hierarchy(self, name: str) -> Hierarchy:
        return self.hierarchies[self.qi.index(name)]

    def exact(self, name: str) -> ExactValues:
        """The exact values of the numeric or date quasi-identifier ``name`` (:class:`ExactValues`),
        computed on first use (only local recodings publish them) from the column's distinct texts."""
        cache: dict[str, ExactValues] = self.__dict__.setdefault("_exact", {})
        if name not in cache:
            if name not in self.numeric:
                raise ValueError(f"{name!r} is not a numeric or date quasi-identifier")
            codes, labels = factorize_text(self.frame[name])
            attr = self.schema[name]
            if attr.type == AttrType.DATE:
                label_rank, texts = exact_dates(labels, name, attr.format)
            else:
                label_rank, texts = exact_numbers(labels, self.numeric[name][first_rows(codes, len(labels))])
            cache[name] = ExactValues(label_rank[codes], texts)
        return cache[name]

    def exact_bounds(self, name: str, record_class: np.ndarray, n_classes: int) -> np.ndarray:
        """``(n_classes × 2)`` lowest and highest :meth:`exact` rank of ``name`` over the records of
        every class (``record_class``: the class of every record, −1 none); ``[−1, −1]`` for a class
        without a known value."""
        rank = self.exact(name).rank
        rc = np.asarray(record_class, dtype=np.int64)
        keep = (rc >= 0) & (rank >= 0)
        lo = np.full(n_classes, np.iinfo(np.int64).max, dtype=np.int64)
        hi = np.full(n_classes, -1, dtype=np.int64)
        np.minimum.at(lo, rc[keep], rank[keep])
        np.maximum.at(hi, rc[keep], rank[keep])
        lo[hi < 0] = -1
        return np.stack([lo, hi], axis=1)

    def counted_rows(self, rows: np.ndarray, weights: np.ndarray) -> Table:
        """This table's ``rows`` as a table whose row ``i`` stands for ``weights[i]`` records (see
        :attr:`weights`): the same hierarchies, sensitive domains (with this table's distribution)
        and schema, no re-encoding. For measures over many identical records (:meth:`Release.counted
        <anonkit.release.Release.counted>`)."""
        if self.person is not None:
            raise ValueError("rows that stand for several records cannot carry a person column")
        rows = np.asarray(rows, dtype=np.int64)
        own = np.ones(self.n, dtype=np.int64) if self.weights is None else self.weights
        w = np.asarray(weights, dtype=np.int64)
        if int(w.sum()) != int(own.sum()):
            raise ValueError("the counted rows must stand for every record")
        out = object.__new__(_CountedTable)
        out.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("distinct", "_flat_maps", "frame")})
        out.weights = w
        out._rows_of = (self.frame, rows)  # its frame, taken on first read (no measure reads it)
        out.codes = self.codes[rows]
        out.presuppressed = self.presuppressed[rows]
        out.numeric = {k: v[rows] for k, v in self.numeric.items()}
        out._exact = {k: ExactValues(v.rank[rows], v.texts) for k, v in self.__dict__.get("_exact", {}).items()}
        out.sensitive_codes = {k: v[rows] for k, v in self.sensitive_codes.items()}
        out.n = len(rows)
        out.n_records = self.n_records
        out.n_persons = out.n_records
        return out

    # ------------------------------------------------------------------ distinct tuples
    @cached_property
    def distinct(self) -> Distinct:
        """Distinct QI tuples with counts and sensitive pair counts (computed once)."""
        n = self.n
        if self.qi:
            cols = [self.codes[:, j] for j in range(len(self.qi))]
            sizes = [h.n_leaves for h in self.hierarchies]
            if self.presuppressed.any():  # keep pre-suppressed records in tuples of their own
                cols.append(self.presuppressed.astype(np.int64))
                sizes.append(2)
            inverse, m = group_columns(cols, sizes)
        else:
            inverse, m = np.zeros(n, dtype=np.int64), 1
        first = first_rows(inverse, m)
        tuples = np.take(self.codes, first, axis=0)  # (``codes[first]``: the same rows, gathered whole: 7× faster)
        w = self.weights
        counts = np.bincount(inverse, weights=w, minlength=m).astype(np.float64)
        pairs = {}
        for name, scodes in self.sensitive_codes.items():
            pid, p = group_columns([inverse, scodes], [m, self.domains[name].size])
            pfirst = first_rows(pid, p)
            pairs[name] = (inverse[pfirst], scodes[pfirst], np.bincount(pid, weights=w, minlength=p).astype(np.float64))
        first.flags.writeable = False
        return Distinct(tuples, counts, inverse, pairs, first)

    def tuple_classes(self, levels: list[int] | np.ndarray, qis: list[int] | None = None) -> tuple[np.ndarray, int]:
        """Class id of every distinct tuple when QI ``j`` is generalized to ``levels[j]``.

        ``qis`` restricts the grouping to a subset of QI positions (for anonymity requirements on
        attribute subsets).
        """
        d = self.distinct
        idx = list(range(len(self.qi))) if qis is None else list(qis)
        if not idx:
            return np.zeros(d.size, dtype=np.int64), 1
        flat, base = self._flat_maps
        offsets = np.array([base[j] + levels[j] * self.hierarchies[j].n_leaves for j in idx], dtype=np.int64)
        sizes = np.array([self.hierarchies[j].size(levels[j]) for j in idx], dtype=np.int64)
        cols = d.matrix if qis is None else d.matrix[idx]
        fused = node_ids(cols, flat, offsets, sizes) if d.size < NUMBA_BELOW else None
        if fused is not None:
            return fused
        return group_columns([self.hierarchies[j].maps[levels[j]][d.columns[j]] for j in idx], list(sizes))

    @cached_property
    def _flat_maps(self) -> tuple[np.ndarray, list[int]]:
        """Every hierarchy's lookup arrays concatenated, and where each attribute's block starts."""
        blocks, base, at = [], [], 0
        for h in self.hierarchies:
            base.append(at)
            blocks.append(h.maps.reshape(-1))
            at += h.maps.size
        flat = np.concatenate(blocks).astype(np.int64) if blocks else np.zeros(0, dtype=np.int64)
        return flat, base

    def stats(self, tuple_class: np.ndarray, n_classes: int, tuple_weight: np.ndarray | None = None, *,
              models: Sequence[object] | None = None, levels: Sequence[int] | None = None) -> ClassStats:
        """Class statistics from tuple classes; ``tuple_weight`` (default: counts) can zero out tuples.

        With ``models``, only what they declare they need (:func:`anonkit.stats.class_stats_for`:
        a histogram for the attribute of each model that needs one, registered needs from
        :attr:`sources`); without, the sizes and every sensitive attribute's histogram."""
        d = self.distinct
        pairs = d.pairs
        if tuple_weight is not None:
            pairs = {}
            for name, (item, code, count) in d.pairs.items():
                keep = tuple_weight[item] > 0
                pairs[name] = (item[keep], code[keep], count[keep])
        weight = d.counts if tuple_weight is None else tuple_weight
        if models is not None:
            sources = self.sources if levels is None else {**self.sources, "node": (self, tuple(levels))}
            return class_stats_for(models, tuple_class, n_classes, weights=weight, sensitive=pairs,
                                   domains=self.domains, sources=sources)
        return class_stats(tuple_class, n_classes, weight, pairs, self.domains)


class _CountedTable(Table):
    """A :meth:`Table.counted_rows` table: its :attr:`frame` (the counted rows of the table's frame) is
    taken when first read, since the measures read the codes and no measure reads the frame: copying it
    cost more than the rest of the counting."""

    @cached_property
    def frame(self) -> pd.DataFrame:  # type: ignore[override]
        source, rows = self.__dict__["_rows_of"]
        return source.iloc[rows].reset_index(drop=True)


def _published_part(frame: pd.DataFrame, dropped: list[str]) -> pd.DataFrame:
    """``frame`` (a frame of the table's own: cells are written into it) without the columns
    ``dropped``, indexed ``0 … n−1``; each step only when it changes something (a drop and a
    reindex cost 0.2 ms on a 30 k-row table)."""
    if dropped:
        frame = frame.drop(columns=dropped)
    index = frame.index
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1):
        frame = frame.reset_index(drop=True)
    return frame


def _check_frame(frame: pd.DataFrame) -> list[str]:
    """The frame's column names as text; a duplicate name or an empty frame is an error."""
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) < len(columns):  # the first name met a second time
        seen: set[str] = set()
        raise InputError("duplicate column", column=next(c for c in columns if c in seen or seen.add(c)))
    if len(frame) == 0:
        raise InputError("input is empty: no records")
    return columns


def _check_weights(weights: np.ndarray | None, n: int, person: str | None) -> np.ndarray | None:
    """:attr:`Table.weights` as ``int64``: one whole number ≥ 1 per row, never with a person column
    (a row standing for several records cannot say whose they are)."""
    if weights is None:
        return None
    w = np.asarray(weights)
    if w.shape != (n,) or not np.issubdtype(w.dtype, np.integer) or (w < 1).any():
        raise ValueError("weights must be one whole number ≥ 1 per row")
    if person is not None:
        raise InputError("rows that stand for several records cannot carry a person column", column=person)
    return w.astype(np.int64)


def _encoded_memory(column: pd.Series) -> Any:
    """What holds the cells of an encoded ``column`` for :attr:`Table.encoded_cells`: an object column's array
    of cells, a pyarrow text column's pyarrow array (:func:`~anonkit._arrow_memory.arrow_text`), else ``None``."""
    return column.to_numpy() if column.dtype == object else arrow_text(column)


def _encode_cells(frame: pd.DataFrame, schema: Schema, strip: bool, direct: bool = True
                  ) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray]]:
    """``(codes, canonical texts)`` of every quasi-identifier and sensitive column, factorized once;
    with ``strip`` the whitespace around every text cell is removed (on the distinct texts of an
    encoded column, the cells rewritten in ``frame`` only when one changes); large frames are
    factorized on two threads (:data:`PARALLEL_ENCODE_ROWS`). With ``direct`` (smaller frames), the QIs whose cells
    pyarrow finds among their hierarchy's leaves (:func:`~anonkit.hierarchy.arrow_leaves.leaf_columns`) are coded
    from those leaves, their leaf codes returned too (name → the leaf of every cell)."""
    coded: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    wanted = {*schema.quasi, *schema.sensitive}
    names = list(frame.columns)
    found = leaf_columns(frame, schema, strip) if direct and len(frame) < PARALLEL_ENCODE_ROWS else {}
    leaves: dict[str, np.ndarray] = {}
    factorized = _factorize_columns(frame, [c for c in names if c in wanted and c not in found])
    for name in names:
        encoded = name in wanted
        if name in found:  # (no text of it has whitespace around it: nothing to strip)
            leaves[name], coded[name] = found[name]
            continue
        if encoded:
            coded[name] = factorized.pop(name)  # categorical codes kept small
        if strip and (not encoded or any(t != t.strip() for t in coded[name][1])):
            cleaned = strip_cells(frame[name])
            if cleaned is not frame[name]:
                frame[name] = cleaned
                if encoded:
                    coded[name] = factorize_text(cleaned)
    return coded, leaves


#: from this many rows up, :class:`Table` factorizes its columns on two threads (one column each
#: at a time; pandas releases the GIL in parts of the hashing). The codes are the same: every column
#: is factorized alone, by the same deterministic function.
PARALLEL_ENCODE_ROWS = 250_000


def _factorize_columns(frame: pd.DataFrame, names: list[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """:func:`factorize_text` (compact) of the columns ``names``; on two threads for large frames."""
    columns = [frame[name] for name in names]  # taken here: the frame's item cache is not shared
    if len(frame) < PARALLEL_ENCODE_ROWS or len(names) < 2 or usable_cores() < 2:
        return {name: factorize_text(col, compact=True) for name, col in zip(names, columns, strict=True)}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="encode") as pool:
        out = list(pool.map(lambda col: factorize_text(col, compact=True), columns))
    return dict(zip(names, out, strict=True))
