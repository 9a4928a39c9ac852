"""Equivalence-class statistics: what privacy models judge (architecture: criteria see statistics).

A :class:`ClassStats` holds, for ``C`` equivalence classes, their sizes and, for every sensitive
attribute, a ``C × S`` histogram over the attribute's domain. A :class:`SensitiveDomain` describes
that domain once: its values in order, the reference distribution (the whole input table's, spec
§1.3) and, when the attribute has a hierarchy, the ancestors of every value for hierarchical EMD.

Class statistics are built in one place, :func:`class_stats_for`, from the class of every row and
what the privacy models declare they need (``needs`` on their ``@privacy_model``): the sizes always,
a sensitive attribute's histogram only when a model about it needs one, and any further per-class
statistic registered with :func:`register_class_need` (so a model judging, say, a population count
per class is its model file, its declaration and one registration here). Statistics derived from
existing ones (a subset of the classes, merged classes) come from :meth:`ClassStats.subset` and
:meth:`ClassStats.with_counts`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from anonkit._kernels import first_rows, group_columns
from anonkit._values import parse_numeric
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy

T = TypeVar("T")


@dataclass
class SensitiveDomain:
    """The domain of one sensitive attribute.

    ``labels`` are the values in the order ordered-distance EMD uses (numeric attributes by number,
    ordinal ones by their declared order, everything else lexicographically, as ARX's ``STRING``
    type does). ``reference`` is the distribution t-closeness, β-likeness and δ-disclosure compare
    against. ``ancestors[L - 1][s]`` is the node id at hierarchy level ``L`` (1..height) of value
    ``s``; empty when the attribute has no hierarchy.
    """

    name: str
    labels: np.ndarray
    reference: np.ndarray
    ancestors: list[np.ndarray] = field(default_factory=list)
    #: the ordinal category code of every value (``categories`` on the attribute; θ-sensitivity,
    #: spec §1.5), ``None`` without categories; ``category_labels`` the categories in order
    category: np.ndarray | None = None
    category_labels: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.labels)

    @property
    def height(self) -> int:
        return len(self.ancestors)


@dataclass
class ClassStats:
    """Sizes and sensitive histograms of ``C`` equivalence classes."""

    sizes: np.ndarray
    hist: dict[str, np.ndarray] = field(default_factory=dict)
    domains: dict[str, SensitiveDomain] = field(default_factory=dict)
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    #: further per-class statistics a model declared it needs (:func:`register_class_need`), by need
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def distribution(self, attr: str) -> np.ndarray:
        """The ``C × S`` sensitive distribution of every class (rows sum to 1; computed once)."""
        key = ("p", attr)
        if key not in self._cache:
            h = self.hist[attr]
            n = h.sum(axis=1, keepdims=True)
            self._cache[key] = h / np.where(n > 0, n, 1)
        return self._cache[key]

    def distinct(self, attr: str) -> np.ndarray:
        """Number of distinct sensitive values in every class (computed once)."""
        key = ("d", attr)
        if key not in self._cache:
            self._cache[key] = np.count_nonzero(self.hist[attr], axis=1)
        return self._cache[key]

    def need(self, name: str) -> np.ndarray:
        """The per-class statistic ``name`` a model declared it needs (refused when it was not built)."""
        if name not in self.extra:
            raise InputError(f"the class statistics lack {name!r}: build them with class_stats_for from models "
                             f"that declare it", key=name)
        return self.extra[name]

    def subset(self, mask: np.ndarray) -> ClassStats:
        """The statistics of the classes selected by ``mask`` (boolean or index array)."""
        return ClassStats(self.sizes[mask], {a: h[mask] for a, h in self.hist.items()}, self.domains,
                          extra={n: v[mask] for n, v in self.extra.items()})

    def with_counts(self, sizes: np.ndarray, hist: dict[str, np.ndarray],
                    extra: dict[str, np.ndarray] | None = None) -> ClassStats:
        """Statistics of other classes over the same domains (merged or rolled-up classes whose sizes,
        histograms and additive needs the caller summed, :func:`additive_needs`); a need not given
        is not carried, as it belongs to the old classes."""
        return ClassStats(sizes, hist, self.domains, extra=dict(extra or {}))

    def rollable(self) -> bool:
        """Whether every need these statistics hold sums over merged classes (then a roll-up or a
        merge may add them up, as it adds sizes and histograms; else it rebuilds them)."""
        return all(name in ADDITIVE_NEEDS for name in self.extra)


def class_stats(
    class_of: np.ndarray,
    n_classes: int,
    weights: np.ndarray | None,
    sensitive: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray | None]],
    domains: dict[str, SensitiveDomain],
) -> ClassStats:
    """Build :class:`ClassStats` with ``np.bincount``, a histogram for every attribute of ``sensitive``
    whatever the models need (the statistics of a table or a release, judged later by any model;
    :func:`class_stats_for` builds what given models need).

    ``class_of[i]`` is the class of item ``i`` (a record, or a distinct tuple with count
    ``weights[i]``). ``sensitive[a] = (item, code, count)`` lists (item, sensitive code) pairs
    with their counts (``count=None`` means 1 each).
    """
    sizes = np.bincount(class_of, weights=weights, minlength=n_classes)
    hist = {attr: _histogram(class_of, n_classes, domains[attr].size, item, code, count)
            for attr, (item, code, count) in sensitive.items()}
    return ClassStats(sizes.astype(np.float64), hist, domains)


#: the statistics a model may declare it needs (``@privacy_model(needs=…)``), and what each is; written
#: once here, below the models, which read it. A model needing something else registers its builder
#: (:func:`register_class_need`).
NEEDS: dict[str, str] = {
    "sizes": "the size of every class (records, or persons with a person column)",
    "histogram": "the histogram of a sensitive attribute in every class",
    "reference": "the sensitive attribute's distribution over the whole input (the reference)",
    "categories": "the ordinal category of every sensitive value (categories on the attribute)",
    "records": "the records of every class (record level: each record's prior), not class statistics",
}
#: the needs class statistics answer without a builder of their own: sizes (always built), a sensitive
#: histogram (built for the attribute of every model that needs it), and what the domain holds or
#: record-level models read elsewhere
BUILT_IN_NEEDS: frozenset[str] = frozenset(NEEDS)


@dataclass(frozen=True)
class ClassInputs:
    """What a registered need's builder reads: the class of every row (``class_of``), the number of
    classes, the rows' weights (``None``: 1 each) and the named ``sources`` the caller gave."""

    class_of: np.ndarray
    n_classes: int
    weights: np.ndarray | None
    sources: Mapping[str, object]


#: need → its builder (one value per class), for needs beyond :data:`BUILT_IN_NEEDS`
CLASS_NEED_BUILDERS: dict[str, Callable[[ClassInputs], np.ndarray]] = {}
#: the registered needs whose value for a union of classes is the sum of theirs (counts: a
#: population count, a number of persons); a lattice roll-up and a cluster merge add them up
ADDITIVE_NEEDS: set[str] = set()
#: registered needs built from the full-domain node the classes come from (a ``"node"`` source):
#: only the full-domain searches, which hand their node to the statistics, can enforce their models
NODE_NEEDS: set[str] = set()


def register_class_need(name: str, build: Callable[[ClassInputs], np.ndarray], *, additive: bool = False,
                        node: bool = False) -> None:
    """Declare how the per-class statistic ``name`` is built, so a model declaring ``needs=(name, …)``
    finds it in ``stats.need(name)``; ``additive``: its value for merged classes is the sum of theirs
    (a count), so roll-ups and merges carry it instead of rebuilding; ``node``: it is built from the
    full-domain transformation the classes come from (:data:`NODE_NEEDS`). A name is registered once
    (a second builder would silently change what an existing model judges)."""
    if name in BUILT_IN_NEEDS or name in CLASS_NEED_BUILDERS:
        raise TypeError(f"the class statistic {name!r} is already declared")
    CLASS_NEED_BUILDERS[name] = build
    if additive:
        ADDITIVE_NEEDS.add(name)
    if node:
        NODE_NEEDS.add(name)


def model_needs(models: Iterable[object]) -> frozenset[str]:
    """The union of the models' declared ``needs`` (``sizes`` always)."""
    out = {"sizes"}
    for m in models:
        out |= type(m).spec.needs  # type: ignore[attr-defined]
    return frozenset(out)


def histogram_attributes(models: Iterable[object]) -> set[str]:
    """The sensitive attributes whose histograms the models need: the attribute of every model that
    declares ``histogram``."""
    return {m.attribute for m in models  # type: ignore[attr-defined]
            if m.attribute is not None and "histogram" in type(m).spec.needs}  # type: ignore[attr-defined]


#: the needs of the model sets asked for lately, by the models' identities (a search asks for the same
#: set at every node: reading the declarations once saves a few microseconds a node); the value holds
#: the models, so an identity is not reused while its entry lives
_NEEDS_SEEN: dict[tuple[int, ...], tuple[tuple[object, ...], frozenset[str], set[str], list[str]]] = {}
_NEEDS_SEEN_MAX = 64


def _needs_of(models: Iterable[object]) -> tuple[tuple[object, ...], frozenset[str], set[str], list[str]]:
    """The models as a tuple, their needs, the attributes whose histograms they need, and their
    registered (non-built-in) needs in order (see :func:`class_stats_for`)."""
    group = tuple(models)
    key = tuple(id(m) for m in group)
    seen = _NEEDS_SEEN.get(key)
    if seen is None:
        needs = model_needs(group)
        seen = (group, needs, histogram_attributes(group), sorted(needs - BUILT_IN_NEEDS))
        if len(_NEEDS_SEEN) >= _NEEDS_SEEN_MAX:
            _NEEDS_SEEN.clear()
        _NEEDS_SEEN[key] = seen
    return seen


def class_stats_for(
    models: Iterable[object],
    class_of: np.ndarray,
    n_classes: int,
    *,
    weights: np.ndarray | None = None,
    sensitive: Mapping[str, tuple[np.ndarray | None, np.ndarray, np.ndarray | None]] | None = None,
    domains: dict[str, SensitiveDomain] | None = None,
    sources: Mapping[str, object] | None = None,
    sizes: np.ndarray | None = None,
) -> ClassStats:
    """The class statistics ``models`` need, and nothing more.

    ``class_of[i]`` is the class of row ``i`` (a record, or a distinct tuple with weight
    ``weights[i]``); the sizes are always built. ``sensitive[a] = (item, code, count)`` gives the
    (row, sensitive code) pairs of attribute ``a`` with their counts (``item=None``: row ``i`` has
    ``code[i]``; ``count=None``: 1 each); its histogram is built only when a model about ``a``
    declares ``histogram``, in the order of ``sensitive``. A model that needs a histogram ``sensitive``
    lacks is refused, as its own check would. Any other need is built by its registered builder from
    ``sources``; a need nobody registered is a programming error. Sizes and histograms are always
    ``float64`` (``np.bincount`` of no rows gives integers even with weights). ``models`` are read through their
    declarations (``type(m).spec.needs``, ``m.attribute``). ``sizes``: the sizes already summed by the
    caller (float64, equal to ``np.bincount(class_of, weights, minlength=n_classes)`` bit for bit, e.g.
    :func:`~anonkit._kernels.node_grouping`'s, summed in the same row order), taken instead of summing again.
    """
    models, _needs, wanted, others = _needs_of(models)
    if sizes is None:
        sizes = np.bincount(class_of, weights=weights, minlength=n_classes).astype(np.float64, copy=False)
    given = sensitive or {}
    for m in models:
        if m.attribute in wanted and m.attribute not in given:  # type: ignore[attr-defined]
            raise InputError(f"{m.name} needs a sensitive attribute", column=m.attribute)  # type: ignore[attr-defined]
    doms = domains if domains is not None else {}
    hist = {a: _histogram(class_of, n_classes, doms[a].size, *pairs).astype(np.float64, copy=False)
            for a, pairs in given.items() if a in wanted}
    extra = {}
    for need in others:
        if need not in CLASS_NEED_BUILDERS:
            raise TypeError(f"no builder for the class statistic {need!r} (register_class_need)")
        extra[need] = CLASS_NEED_BUILDERS[need](ClassInputs(class_of, n_classes, weights, sources or {}))
    return ClassStats(sizes, hist, doms, extra=extra)


def _histogram(class_of: np.ndarray, n_classes: int, s: int, item: np.ndarray | None, code: np.ndarray,
               count: np.ndarray | None) -> np.ndarray:
    """The ``n_classes × s`` histogram of the codes of the rows ``item`` (all rows: None)."""
    cls = class_of if item is None else class_of[item]
    flat = cls.astype(np.int64, copy=False) * s  # (a new array: the codes are added in place)
    flat += code
    return np.bincount(flat, weights=count, minlength=n_classes * s).reshape(n_classes, s)


def build_domain(
    name: str,
    text: np.ndarray | None,
    *,
    numeric: bool = False,
    order: list[str] | None = None,
    hierarchy: Hierarchy | None = None,
    reference_text: np.ndarray | None = None,
    categories: dict[str, str] | None = None,
    category_order: tuple[str, ...] | None = None,
    reference_weights: np.ndarray | None = None,
    coded: tuple[np.ndarray, np.ndarray] | None = None,
    reference_coded: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[SensitiveDomain, np.ndarray]:
    """The domain of a sensitive attribute and the codes of ``text`` in it.

    The domain is the set of values of ``reference_text`` (default: ``text``), ordered by number
    (``numeric``), by the declared ``order``, or lexicographically. The reference distribution is
    that of ``reference_text``, each entry counted ``reference_weights`` times when given (rows
    that stand for several records). With ``categories`` (value → category, ``category_order`` the
    categories from lowest to highest) every value gets its category's code; a value without one is
    an error naming it and its first row. ``coded`` gives ``text`` (then None) as its
    :func:`~anonkit._values.factorize_text` (codes and distinct texts), so no text per row is built;
    ``reference_coded`` gives ``reference_text`` so (the verifier: both columns factorized once each).
    """
    if reference_coded is not None:
        ref_codes0, uniq = reference_coded
    elif coded is not None and text is None and reference_text is None:
        ref_codes0, uniq = coded
    else:
        ref = text if reference_text is None else reference_text
        ref_codes0, uniq = pd.factorize(np.asarray(ref, dtype=object))
    uniq = np.asarray(uniq, dtype=object)
    if order is not None:
        pos = {v: i for i, v in enumerate(order)}
        absent = [v for v in uniq if v not in pos]
        if absent:
            row = int(np.flatnonzero(ref_codes0 == list(uniq).index(absent[0]))[0]) + 1
            raise InputError("value is not in the declared order", column=name, value=absent[0], row=row)
        present = set(uniq)
        labels = np.array([v for v in order if v in present], dtype=object)
    elif numeric:
        try:
            nums = parse_numeric(pd.Series(uniq, dtype=object), name)
        except InputError as exc:  # the row among the distinct values → the record's row
            raise _at_record(exc, ref_codes0, uniq) from None
        labels = uniq[np.lexsort((uniq.astype(str), nums))]
    else:
        labels = np.array(sorted(uniq), dtype=object)
    at = _positions(labels, uniq)  # each distinct reference value's place in the domain
    per = _distinct_counts(at, ref_codes0, reference_weights, len(labels))
    if per is None:  # (the general computation: a value outside the domain, a code outside ``uniq``)
        ref_codes = at[ref_codes0]
        counts = np.bincount(ref_codes, weights=reference_weights, minlength=len(labels)).astype(np.float64)
    else:
        counts, ref_codes = per, None
    if reference_text is None and reference_coded is None:
        # (``per``: every code of ``ref_codes0`` in ``[0, len(uniq))`` and every place found, so no code < 0)
        codes = at.astype(np.int32)[ref_codes0] if ref_codes is None else ref_codes
    else:
        tcodes, tuniq = coded if coded is not None else pd.factorize(np.asarray(text, dtype=object))
        tat = _positions(labels, np.asarray(tuniq, dtype=object))
        codes = tat.astype(np.int32)[tcodes] if (tat >= 0).all() else tat[tcodes]  # (int32: no code < 0)
    if codes.dtype != np.int32 and (codes < 0).any():
        i = int(np.flatnonzero(codes < 0)[0])
        value = text[i] if coded is None else coded[1][coded[0][i]]  # type: ignore[index]
        raise InputError("sensitive value not in the reference data", column=name, value=value, row=i + 1)
    ancestors: list[np.ndarray] = []
    if hierarchy is not None:
        try:
            leaf = hierarchy.encode(labels, column=name)
        except InputError as exc:
            raise _at_record(exc, ref_codes0, uniq) from None
        ancestors = [hierarchy.maps[level][leaf] for level in range(1, hierarchy.height + 1)]
    category, order_labels = (None, ()) if categories is None else _categories(
        name, labels, categories, category_order, ref_codes0, uniq)
    domain = SensitiveDomain(name, labels, counts / counts.sum(), ancestors, category, order_labels)
    return domain, codes if codes.dtype == np.int32 else codes.astype(np.int32)


#: :func:`_positions` looks up at most this many distinct texts in a dict (pandas' hash table beyond)
DICT_POSITIONS_UP_TO = 256


def _positions(labels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``pd.Index(labels, dtype=object).get_indexer(pd.Index(values, dtype=object))``: the place of every one
    of ``values`` among ``labels`` (−1 when absent). When both are small and every one an exact ``str``, and
    ``labels`` are distinct, a dict gives them: two ``str`` are one key of a dict exactly when they are equal,
    as pandas' hash table matches them (for ``str`` no NaN rule and no subclass's ``__eq__`` apply); else (a
    repeated label among them too: pandas refuses it) pandas computes them."""
    if len(labels) <= DICT_POSITIONS_UP_TO and len(values) <= DICT_POSITIONS_UP_TO:
        texts, wanted = labels.tolist(), values.tolist()
        if all(type(v) is str for v in texts) and all(type(v) is str for v in wanted):
            place = {v: i for i, v in enumerate(texts)}
            if len(place) == len(texts):
                return np.array([place.get(v, -1) for v in wanted], dtype=np.intp)
    return pd.Index(labels, dtype=object).get_indexer(pd.Index(values, dtype=object))


def _distinct_counts(at: np.ndarray, codes: np.ndarray, weights: np.ndarray | None, m: int) -> np.ndarray | None:
    """``np.bincount(at[codes], weights=weights, minlength=m).astype(np.float64)`` counted over the distinct
    values (``codes`` into ``at``) and then placed, when ``at`` places them one to one in ``[0, m)`` and every
    code is in ``[0, len(at))``; else ``None``. The same floats: each place receives one distinct value's
    rows, summed in the same (row) order by ``bincount``; whole counts are exact either way."""
    if len(at) != m or not np.array_equal(np.sort(at), np.arange(m)):
        return None
    try:
        per = np.bincount(codes, weights=weights, minlength=m)  # (a code < 0 or weights of another length: raises)
    except (ValueError, TypeError):
        return None
    if len(per) != m:  # a code ≥ len(at)
        return None
    counts = np.empty(m, dtype=np.float64)
    counts[at] = per
    return counts


def _categories(name: str, labels: np.ndarray, categories: dict[str, str], category_order: tuple[str, ...] | None,
                ref_codes: np.ndarray, uniq: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """:func:`build_domain`'s category code of every value and the categories in order; a category not in
    the order, or a value without a category, is an error naming it (and the value's first record)."""
    order_labels = tuple(category_order or DEFAULT_CATEGORY_ORDER)
    rank = {c: i for i, c in enumerate(order_labels)}
    bad = [c for c in categories.values() if c not in rank]
    if bad:
        raise InputError(f"category not in category_order ({', '.join(order_labels)})", column=name,
                         value=bad[0], key="categories")
    missing = [v for v in labels if str(v) not in categories]
    if missing:
        first = np.flatnonzero(ref_codes == list(uniq).index(missing[0]))
        raise InputError("sensitive value without a category (map every value under categories)", column=name,
                         value=missing[0], row=int(first[0]) + 1 if first.size else None)
    return np.array([rank[categories[str(v)]] for v in labels], dtype=np.int64), order_labels


#: paper D's five categories of sensitive values, from lowest to highest (spec §4.5 step 1)
DEFAULT_CATEGORY_ORDER: tuple[str, ...] = ("Asymptomatic", "Low", "Mild", "High", "Severe")


def _at_record(exc: InputError, codes: np.ndarray, uniq: np.ndarray) -> InputError:
    """``exc`` raised over the distinct values ``uniq``, with the row of the first record holding its
    value (``codes`` maps records to ``uniq``)."""
    if exc.value is None:
        return exc
    hits = np.flatnonzero(np.array([str(u) == str(exc.value) for u in uniq]))
    if not hits.size:
        return exc
    row = int(np.flatnonzero(codes == hits[0])[0]) + 1
    return InputError(exc.message, column=exc.column, value=exc.value, row=row, file=exc.file, key=exc.key)


def table_memo(table: Any, key: tuple, build: Callable[[], T]) -> T:
    """``build()``, once per encoded :class:`~anonkit.table.Table` and ``key``: what a search or a measure
    derives from the table alone (a scorer's level tables, Flash's strategy order, the records per leaf),
    shared by every search and summary of that table (the runs of one job; the calls of ``anonymize()``
    on one unchanged input, :mod:`anonkit.runner._encoding_reuse`). Kept on :attr:`Table.distinct` (a
    table made from another, with other rows or counts, computes its own ``distinct``; before it is
    computed nothing is kept) beside the hierarchy objects it was built from (compared by identity: a
    table given other hierarchies builds again). What it returns is shared: read-only arrays only."""
    d = table.__dict__.get("distinct")
    if d is None:
        return build()
    memo: dict[tuple, tuple[tuple[object, ...], object]] = d.__dict__.setdefault("_memo", {})
    hierarchies = tuple(table.hierarchies)
    hit = memo.get(key)
    if hit is not None and len(hit[0]) == len(hierarchies) and all(
            a is b for a, b in zip(hit[0], hierarchies, strict=True)):
        return hit[1]  # type: ignore[return-value]
    value = build()
    memo[key] = (hierarchies, value)
    return value


def tuple_rows(table: Any) -> int:
    """How many distinct (quasi-identifier tuple, sensitive values) rows ``table`` has: a fact of the table,
    counted once for it (:func:`table_memo`). With one sensitive attribute it is the number of the distinct
    (tuple, value) pairs :attr:`Table.distinct` lists already (``pairs[name]``: the distinct combinations of
    the same two columns, ``inverse`` and the attribute's codes, grouped by ``group_columns``, one entry each); the
    counts of the other cases are grouped here (the same ``group_columns``)."""
    def count() -> int:
        d = table.distinct
        names = list(table.sensitive_codes)
        if len(names) == 1 and names[0] in d.pairs:
            return len(d.pairs[names[0]][2])
        cols = [d.inverse, *table.sensitive_codes.values()]
        return group_columns(cols, [d.size, *[table.domains[s].size for s in names]])[1]

    return table_memo(table, ("tuple rows",), count)


def tuples_in_first_appearance(table: Any) -> bool:
    """Whether ``table``'s distinct tuples are numbered in order of their first record (the order of a counted
    release's tuples: measuring either runs every sum in one order): a fact of the table, asked once for it
    (:func:`table_memo`) by :meth:`Release.counted <anonkit.release.Release.counted>`, the summary's leaf tallies
    and the search's strategy key."""
    d = table.distinct

    def ask() -> bool:  # (the tuples' first records as :attr:`Table.distinct` found them, when it kept them)
        first = d.first if d.first is not None else first_rows(d.inverse, d.size)
        return bool((np.diff(first) > 0).all())

    return bool(table_memo(table, ("tuples in first appearance",), ask))


#: :func:`content_memo`'s entries, most recently used last, and the bounds on them (entries, bytes held): a
#: search keeps five per lattice (level matrix, strategy order, roll-up maps, bounds, priority order), so 64
#: keep a dozen configurations; the bytes bound the memory
_CONTENT_MEMO: OrderedDict[tuple, tuple[object, int]] = OrderedDict()
CONTENT_MEMO_ENTRIES = 64
CONTENT_MEMO_BYTES = 64 << 20
_CONTENT_LOCK = threading.Lock()


def hierarchy_content(hierarchies: Iterable[Hierarchy]) -> tuple:
    """A key that equals another exactly when the hierarchies have the same codes: per hierarchy its
    ``maps`` (dtype, shape and bytes) and the number of nodes per level (``size``). Compared by content,
    not identity: a hierarchy's arrays can be changed in place, and a different object with the same
    codes gives the same results to everything keyed by this (level maps, strategy order)."""
    return tuple((h.maps.dtype.str, h.maps.shape, h.maps.tobytes(), tuple(len(x) for x in h.labels))
                 for h in hierarchies)


def content_memo(key: tuple, build: Callable[[], T]) -> T:
    """``build()``, once per ``key`` while it stays among the last :data:`CONTENT_MEMO_ENTRIES` used
    (and their values within :data:`CONTENT_MEMO_BYTES`): what a search derives from the hierarchies'
    content and the lattice's bounds alone (:func:`hierarchy_content`), or from values small enough to key
    by (a scorer's level tables: the lattice's bounds and priority order), shared by the tables encoded over
    the same content (a new frame on every call). ``key`` must hold everything the
    value depends on, by value; what it returns is shared: read-only arrays only."""
    with _CONTENT_LOCK:  # searches in threads (a server's requests) share the memo
        hit = _CONTENT_MEMO.get(key)
        if hit is not None:
            _CONTENT_MEMO.move_to_end(key)
            return hit[0]  # type: ignore[return-value]
    value = build()
    with _CONTENT_LOCK:
        _CONTENT_MEMO[key] = (value, _held_bytes(key) + _held_bytes(value))
        while len(_CONTENT_MEMO) > 1 and (len(_CONTENT_MEMO) > CONTENT_MEMO_ENTRIES or sum(
                held for _, held in _CONTENT_MEMO.values()) > CONTENT_MEMO_BYTES):
            _CONTENT_MEMO.popitem(last=False)
    return value


def _held_bytes(value: object) -> int:
    """The bytes of the arrays and byte strings in ``value`` (nested tuples and lists), for the bound."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, bytes):
        return len(value)
    if isinstance(value, tuple | list):
        return sum(_held_bytes(v) for v in value)
    return 0
