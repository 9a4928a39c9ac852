"""(k,l)-diversity for 1:M data (Gong, Luo, Yang, Ni, Li, "Anonymizing 1:M microdata with high
utility", Knowledge-Based Systems 115, 2017; spec §1.6): the baseline of paper D, reconstructed from
the spec and the structure of the authors' public code (``qiyuangong/1M_Generalization``: a
transaction ``partition`` followed by ``mondrian_l_diversity``).

Every person becomes one row: its quasi-identifiers (equal on all its records, :class:`Table`
reconciles them) and the *set* of its sensitive values, a *transaction*. Then:

1. **Transactions** (:mod:`._transactions`): the transactions are made k-anonymous with a top-down
   set-valued partition (He & Naughton 2009) over the item hierarchy value → category → ``*``
   (categories from the attribute's ``categories``; without them value → ``*``): every published
   (generalized) transaction is shared by at least ``k`` persons. A person whose set of categories
   (of values, without categories) is shared by fewer than ``k`` persons and is not kept in a larger
   child by balancing publishes ``{*}``.
2. **Quasi-identifiers**: Mondrian (spec §5.4, strict; numeric QIs split at the frequency-set
   median, categorical ones into the children of their lowest common ancestor; widest normalized
   QI first) over the persons, where a cut is allowed only when every child has at least
   ``max(k, ⌈l⌉)`` persons and is *frequency l-diverse* with each person's generalized transaction
   (as text) as one sensitive value: at least ``⌈l⌉`` distinct transactions and none held by more
   than ``|EC|/l`` persons (spec §1.2, :class:`~anonkit.models.FrequencyLDiversity`). If all persons
   together are not frequency l-diverse, nothing can be released.

What is published: one table per person, ``Release.tables["persons"]``: the generalized
quasi-identifiers (the labels :meth:`Release.class_labels` prints: hierarchy nodes; a numeric QI
without a declared hierarchy an interval ``[lo-hi]``, one with a declared hierarchy — ``hierarchy:``
in the config, a builder's or a file — its nodes: Mondrian cuts it along the hierarchy, as a
categorical QI), the insensitive columns (each person's value, or the set ``{a;b}`` of its values
when its records differ, :mod:`anonkit.algorithms._carried`; ``insensitive: drop`` leaves them out)
and the sensitive column holding the generalized transaction as text: ``{a;b;…}``, items
separated by ``;`` inside braces, in the hierarchy's depth-first order (categories in
``category_order``, each followed by its values in the domain's order — lexicographic unless the
attribute declares an order; without categories the domain's order), e.g. ``{Flu;Cancer}``
(Flu is Low, Cancer Severe), ``{Low;Severe}``, ``{*}``. Rows are shuffled with ``seed``. Person ids
are not in it; another sensitive attribute is refused (it would not be published). A sensitive value containing
``;`` or equal to ``*`` or to a category's name would make the text ambiguous and is refused.

The :class:`Release` itself: ``record_class`` gives every record its person's class (all records of
a person share it; classes that publish the same QI labels are one class);
``sensitive_histogram`` is the ``(C × m)`` expected record counts per class over the sensitive
domain, each published item counted as **one** record and spread uniformly over the values it covers
(a value: itself; a category: its values; ``*``: all values) — so a class's row sums to its number
of published items, which is at most its number of records. ``notes``: ``persons``, ``classes``,
``k``, ``l``, ``sensitive``, ``transactions`` (distinct published ones), ``items_as_value``,
``items_as_category``, ``items_as_root`` (published items per level, over all persons),
``root_persons`` (persons publishing ``{*}``),
``transaction_rounds``, ``partitions`` (Mondrian's final partitions), ``achieved_k``,
``achieved_l`` (frequency l of the classes), ``reconstructed: true``.

The guarantee, on the published table (:func:`implies`, checked by :func:`anonkit.verifier.verify`
under :func:`published_schema`): k-anonymity of the persons on the QIs, frequency l-diversity of
the transaction column, and k-anonymity of the transaction column alone
(``KAnonymity(k, attributes=(S,))``).

Decisions the paper and the code leave open (all [REC]):

* ``k`` (transaction anonymity) also bounds the QI classes: a cut needs ``k`` persons per child
  (the public code only asks for l-diversity, which implies ``l`` persons); the brief's reading of
  §1.6 ("both children have ≥ k persons and are l-diverse").
* Information-gain ties pick the lowest category (``category_order``); balancing takes persons with
  the fewest items below the expanded node first, ties by person (first appearance in the input);
  a failed balance merges the child with the least gain, ties the child with the smallest value set.
  The public code breaks these ties by Python dict order.
* Children of an expansion start with nothing tried (as in the public code), so a category a
  leftover could not expand may be expanded again by the smaller buckets below it.
* A category with a single value is expanded like any other (it changes the label, not the
  grouping).
* Records suppressed up front (``missing="suppress"``) suppress their person entirely.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Annotated

import numpy as np
import pandas as pd
from pydantic import Field

from anonkit._kernels import compiled
from anonkit.algorithms._carried import DEFAULT_INSENSITIVE, Insensitive, carried, dropped, one_sensitive, person_values
from anonkit.algorithms.local import partition_release
from anonkit.algorithms.partition import _transactions
from anonkit.algorithms.partition.core import cut
from anonkit.algorithms.partition.encoding import Encoding
from anonkit.algorithms.spec import algorithm
from anonkit.errors import InputError
from anonkit.hierarchy import class_lca
from anonkit.models import Criterion, DistinctLDiversity, FrequencyLDiversity, KAnonymity
from anonkit.release import Release, nothing_released
from anonkit.schema import Attribute, AttrType, Role, Schema
from anonkit.table import Table
from anonkit.verifier import Verification, verify

NAME = "kl-diversity"
#: transaction anonymity when neither the option nor a k-anonymity model gives one (spec §6)
DEFAULT_K = 10
#: diversity when neither the option nor an l-diversity model gives one (spec §6)
DEFAULT_L = 5
#: the name of the published per-person table in ``Release.tables``
PERSONS = "persons"
ROOT = "*"
SEPARATOR = ";"


# ---------------------------------------------------------------------------------------- settings
def resolve(
    table: Table, models: list[Criterion], k: int | None, l: float | None, sensitive: str | None  # noqa: E741
) -> tuple[int, float, str]:
    """``(k, l, sensitive attribute)``: each as given, else from the models (the largest k of the
    k-anonymity models; the largest l of the frequency or distinct l-diversity models), else
    :data:`DEFAULT_K`, :data:`DEFAULT_L` and the table's first sensitive attribute; ``l`` is an int
    when it is whole.

    Raises
    ------
    InputError
        A model the release cannot guarantee (another model, another sensitive attribute, a larger
        k or l than the options), or no sensitive attribute.
    """
    diversity = [m for m in models if isinstance(m, FrequencyLDiversity | DistinctLDiversity)]
    sa = sensitive if sensitive is not None else (diversity[0].sensitive if diversity else None)
    if sa is None:
        if not table.sensitive:
            raise InputError(f"{NAME} needs a sensitive attribute (the values of each person's transaction); "
                             "the schema declares none")
        sa = table.sensitive[0]
    if sa not in table.sensitive:
        raise InputError(f"{NAME}: not a sensitive attribute of the schema", column=sa)
    ks = [int(m.k) for m in models if isinstance(m, KAnonymity)]
    ls = [float(m.l) for m in diversity if m.sensitive == sa]
    k = int(k) if k is not None else max(ks, default=DEFAULT_K)
    l = float(l) if l is not None else max(ls, default=float(DEFAULT_L))  # noqa: E741
    l = int(l) if l.is_integer() else l  # noqa: E741  (a whole l reads as one: "frequency 5-diversity")
    for m in models:
        if isinstance(m, KAnonymity):
            if m.k > k:
                raise InputError(f"{m.describe()} asks for more than algorithm.k = {k}: raise k or drop the model",
                                 key="k", value=m.k)
            if m.attributes is not None and not set(m.attributes) <= {*table.qi, sa}:
                raise InputError(f"{m.describe()} names an attribute {NAME} does not publish", key="attributes")
        elif isinstance(m, FrequencyLDiversity | DistinctLDiversity):
            if m.sensitive != sa:
                raise InputError(f"{NAME} protects one sensitive attribute, {sa!r}; {m.describe()} is about another",
                                 column=m.sensitive)
            if m.l > l:
                raise InputError(f"{m.describe()} asks for more than algorithm.l = {l:g}: raise l or drop the model",
                                 key="l", value=m.l)
        else:
            raise InputError(
                f"{NAME} guarantees k-anonymity and frequency l-diversity of the persons' generalized transactions "
                f"only; {m.describe()} cannot hold on its per-person table: drop the model", key="models",
            )
    return k, l, sa


def implies(table: Table, models: list[Criterion], options: Mapping[str, object]) -> list[Criterion]:
    """The models the published per-person table satisfies (verify it under :func:`published_schema`):
    ``KAnonymity(k)`` (persons per class on the QIs), ``FrequencyLDiversity(S, l)`` (the transaction
    column) and ``KAnonymity(k, attributes=(S,))`` (every generalized transaction is published for at
    least ``k`` persons)."""
    k, l, sa = resolve(table, models, options.get("k"), options.get("l"), options.get("sensitive"))  # type: ignore[arg-type]  # noqa: E741
    return [KAnonymity(k), FrequencyLDiversity(sa, l), KAnonymity(k, attributes=(sa,))]


def published_schema(table: Table, sensitive: str | None = None, insensitive: tuple[str, ...] = ()) -> Schema:
    """The schema of the published per-person table (``Release.tables["persons"]``): the QIs as
    categorical quasi-identifiers (their labels are text: intervals, nodes), the ``insensitive``
    columns it carries, and the transaction column as a plain categorical sensitive attribute (no
    order, hierarchy or categories: its values are the transaction texts)."""
    sa = sensitive if sensitive is not None else (table.sensitive[0] if table.sensitive else None)
    if sa is None or sa not in table.sensitive:
        raise InputError(f"{NAME}: not a sensitive attribute of the schema", column=sa)
    attrs = {q: Attribute(q, Role.QUASI, AttrType.CATEGORICAL) for q in table.qi}
    attrs.update({c: Attribute(c, Role.INSENSITIVE, AttrType.CATEGORICAL) for c in insensitive})
    attrs[sa] = Attribute(sa, Role.SENSITIVE, AttrType.CATEGORICAL)
    return Schema(attrs)


def verify_published(table: Table, release: Release, models: list[Criterion]) -> Verification:
    """The independent verdict on the published per-person table: :func:`anonkit.verifier.verify`
    recomputes ``models`` (:func:`implies`) from ``release.tables["persons"]`` alone, under
    :func:`published_schema`. The table leaves suppressed persons out, so every row is read as released
    (``suppressed="drop"``): a class generalized to ``*`` everywhere is a class, not a suppression."""
    sa = release.params.get("sensitive") if release.params else None
    extra = tuple(release.params.get("insensitive_columns", ())) if release.params else ()
    return verify(release.tables[PERSONS], published_schema(table, sa, extra), models, suppressed="drop")


# ---------------------------------------------------------------------------------------- persons
class _Persons:
    """The persons that take part (none of whose records is suppressed up front): the first record
    of each (``rows``), every record's person among them (``of``, −1: none), and the distinct
    (person, value) pairs of the sensitive attribute."""

    def __init__(self, table: Table, sa: str) -> None:
        person = table.person
        assert person is not None
        total = table.n_persons
        out = np.zeros(total, dtype=bool)
        out[person[table.presuppressed]] = True
        present = np.bincount(person, minlength=total) > 0
        active = present & ~out
        index = np.full(total, -1, dtype=np.int64)
        index[active] = np.arange(int(active.sum()))
        first = np.full(total, table.n, dtype=np.int64)
        np.minimum.at(first, person, np.arange(table.n))
        self.n = int(active.sum())
        self.rows = first[active]
        self.of = index[person]
        m = table.domains[sa].size
        recs = np.flatnonzero(self.of >= 0)
        key = np.unique(self.of[recs] * np.int64(m) + table.sensitive_codes[sa][recs])
        self.person, self.item = key // m, key % m
        self.m = m


def _labels(table: Table, sa: str) -> np.ndarray:
    """The text of every item node: the values, the categories, ``*``; refused when ambiguous."""
    domain = table.domains[sa]
    values = [str(v) for v in domain.labels]
    cats = list(domain.category_labels) if domain.category is not None else []
    for v in values:
        if SEPARATOR in v:
            raise InputError(f"{NAME} publishes each person's values as '{{a{SEPARATOR}b}}'; a value containing "
                             f"'{SEPARATOR}' would be ambiguous", column=sa, value=v)
    texts = [*values, *cats, ROOT]
    seen: set[str] = set()
    for t in texts:
        if t in seen:
            raise InputError(f"{NAME}: a value equal to a category or to '{ROOT}' would be ambiguous in the "
                             "published transactions", column=sa, value=t)
        seen.add(t)
    return np.array(texts, dtype=object)


def transaction_texts(part: _transactions.Partition, labels: np.ndarray) -> np.ndarray:
    """The published text ``{a;b}`` of every generalized transaction of ``part``."""
    s = part.tx_start
    return np.array(["{" + SEPARATOR.join(labels[part.tx_nodes[s[t]:s[t + 1]]]) + "}" for t in range(part.n_tx)],
                    dtype=object)


def _frequency(tx: np.ndarray, l: float) -> tuple[bool, int, int]:  # noqa: E741
    """Whether persons with transactions ``tx`` are frequency l-diverse together; the most frequent
    transaction and its count."""
    counts = np.bincount(tx)
    top = int(np.argmax(counts)) if len(counts) else 0
    ok = np.count_nonzero(counts) >= math.ceil(l) and counts[top] * l <= len(tx) + 1e-9
    return bool(ok), top, int(counts[top]) if len(counts) else 0


# ---------------------------------------------------------------------------------------- Mondrian
def _diverse_py(X, row, starts, ends, nchild, lab, l, lmin, cnt, order, cur, out):  # noqa: E741
    """Whether every child of every proposed cut is frequency l-diverse on row ``row`` of ``X`` (the
    transactions): the records of partition ``p`` are bucketed by child (``order``), each child's
    transactions counted in ``cnt`` (reset after use)."""
    x = X[row]
    for p in range(starts.shape[0]):
        s = starts[p]
        e = ends[p]
        c = nchild[p]
        for r in range(c):
            cur[r] = 0
        for i in range(s, e):
            cur[lab[i]] += 1
        acc = 0
        for r in range(c):
            t = cur[r]
            cur[r] = acc
            acc += t
        for i in range(s, e):
            r = lab[i]
            order[s + cur[r]] = i
            cur[r] += 1
        ok = True
        lo = s
        for r in range(c):
            hi = s + cur[r]
            distinct = 0
            top = 0
            for q in range(lo, hi):
                t = x[order[q]]
                cnt[t] += 1
                if cnt[t] == 1:
                    distinct += 1
                if cnt[t] > top:
                    top = cnt[t]
            for q in range(lo, hi):
                cnt[x[order[q]]] = 0
            if distinct < lmin or top * l > (hi - lo) + 1e-9:
                ok = False
                break
            lo = hi
        out[p] = ok


def _diverse_kernel():  # type: ignore[no-untyped-def]
    return compiled(_diverse_py)


def _mondrian(table: Table, rows: np.ndarray, tx: np.ndarray, n_tx: int, k: int, l: float) -> tuple[np.ndarray, int]:  # noqa: E741
    """Mondrian over the persons (their first records ``rows``) with the frequency l-diversity of
    their transactions ``tx`` as the allowable-cut test; the class of every person and the number of
    final partitions. The caller has checked that all persons together pass."""
    n = len(rows)
    pclass = np.zeros(n, dtype=np.int64)
    kmin = max(int(k), math.ceil(l), 1)
    lmin = math.ceil(l)
    diverse = _diverse_kernel()
    enc = _encoding(table, rows)
    d = enc.d
    X = np.vstack([enc.X, tx.astype(np.int32)[None, :]])  # the transactions ride along as row d
    tcount = np.zeros(max(n_tx, 1), dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    cur = np.zeros(max(65536, enc.max_nodes + 1), dtype=np.int64)

    def accept(X: np.ndarray, ps: np.ndarray, pe: np.ndarray, coff: np.ndarray, nchild: np.ndarray,
               csize: np.ndarray, lab: np.ndarray) -> np.ndarray:
        passed = np.zeros(len(ps), dtype=bool)
        diverse(X, d, ps, pe, nchild, lab, float(l), lmin, tcount, order, cur, passed)
        return passed

    n_final = cut(enc, X, np.arange(n, dtype=np.int64), kmin, accept, pclass)
    return pclass, n_final


def declared_numeric(table: Table) -> list[int]:
    """The numeric (or date) QIs whose hierarchy the schema declares: Mondrian cuts them along it and
    the release publishes its nodes (not intervals)."""
    return [j for j, q in enumerate(table.qi) if q in table.numeric and table.schema[q].hierarchy is not None]


def _encoding(table: Table, rows: np.ndarray) -> Encoding:
    """Mondrian's encoding of the persons' first records ``rows``: numeric QIs by value, except
    those with a declared hierarchy, which are encoded like categorical ones (leaf positions)."""
    declared = declared_numeric(table)
    if not declared:
        return Encoding(table, rows, [])
    kinds = np.array([0 if q in table.numeric and j not in declared else 1 for j, q in enumerate(table.qi)],
                     dtype=np.int64)

    def column(j: int) -> tuple[np.ndarray, np.ndarray | None]:
        q = table.qi[j]
        return table.codes[rows, j], (table.numeric[q][rows] if kinds[j] == 0 else None)

    enc = Encoding.from_columns(kinds, table.hierarchies, column)
    enc.X = np.empty((len(table.qi), len(rows)), dtype=np.int32)
    for j in range(len(table.qi)):
        enc.X[j] = enc.lookup[j][table.codes[rows, j]]
    return enc


def _hierarchy_labels(table: Table, rel: Release) -> None:
    """Publish the declared hierarchy's nodes (lowest common ancestor per class) for the numeric QIs
    that have one, instead of :func:`partition_release`'s intervals."""
    for j in declared_numeric(table):
        level, node = class_lca(table.hierarchies[j], table.codes[:, j], rel.record_class, rel.n_classes,
                                column=table.qi[j])
        rel.class_levels[:, j] = level
        rel.class_nodes[:, j] = node
        rel.class_bounds.pop(table.qi[j], None)


# ---------------------------------------------------------------------------------------- checks
def _precheck(table: Table, models: list[Criterion], options: Mapping[str, object]) -> str | None:
    """Before the work: fewer persons than ``max(k, l)``, or fewer distinct transactions than ``l``
    (generalization only merges transactions)."""
    if table.person is None:
        return None
    k, l, sa = resolve(table, models, options.get("k"), options.get("l"), options.get("sensitive"))  # type: ignore[arg-type]  # noqa: E741
    return _impossible(_Persons(table, sa), k, l)


def _impossible(persons: _Persons, k: int, l: float) -> str | None:  # noqa: E741
    need = max(k, math.ceil(l))
    if persons.n < need:
        return (f"{NAME} needs at least max(k, l) = {need} persons in a class but the table has only {persons.n}: "
                "lower k or l")
    if persons.n:
        masks = _transactions._masks(persons.person, persons.item, persons.n, persons.m)
        _, distinct = _transactions._group(np.zeros(persons.n, dtype=np.int64), masks)
        if len(distinct) < math.ceil(l):
            return (f"frequency {l:g}-diversity needs {math.ceil(l)} distinct transactions in every class but the "
                    f"persons have only {len(distinct)} distinct sets of values: lower l to at most {len(distinct)}")
    return None


def _explain(table: Table, models: list[Criterion], release: Release, options: Mapping[str, object]) -> str | None:
    """After a failure: the reason the release recorded."""
    return release.notes.get("reason")


def _empty(table: Table, started: float, params: dict, reason: str, persons: int) -> Release:
    """The release of nothing (every record suppressed) with the reason."""
    rel = nothing_released(table, NAME, f"the models cannot be met: {reason}", params=params,
                           seconds=time.perf_counter() - started)
    columns = [*table.qi, *params["insensitive_columns"], params["sensitive"]]
    rel.tables = {PERSONS: pd.DataFrame({c: pd.Series(dtype=object) for c in columns})}
    rel.notes.update({"reason": reason, "persons": persons, "k": params["k"], "l": params["l"],
                      "sensitive": params["sensitive"], "reconstructed": True})
    return rel


# ---------------------------------------------------------------------------------------- algorithm
@algorithm(
    NAME,
    family="partition",
    label="(k,l)-diversity (1:M)",
    summary="1:M data, one row per person: the transaction of each person's sensitive values made k-anonymous "
    "by a top-down set-valued partition, then Mondrian on the QIs with frequency l-diverse transactions",
    enforces=("k-anonymity", "frequency-l-diversity", "distinct-l-diversity"),
    needs=("person",),
    persons=True,
    tables=(PERSONS,),
    randomized=True,
    reconstructed=True,
    precheck=_precheck,
    explain=_explain,
    implies=implies,
    verifier=verify_published,
)
def kl_diversity(
    table: Table,
    models: list[Criterion],
    *,
    k: Annotated[int, Field(ge=1)] | None = None,
    l: Annotated[int, Field(ge=1)] | None = None,  # noqa: E741
    sensitive: str | None = None,
    seed: int = 0,
    insensitive: Insensitive = DEFAULT_INSENSITIVE,
) -> Release:
    """(k,l)-diversity for 1:M data; see the module docstring.

    Parameters
    ----------
    table, models:
        The encoded input (with a person column) and the models; only k-anonymity and frequency or
        distinct l-diversity of the sensitive attribute are accepted (their k and l are defaults).
    k:
        Transaction anonymity and persons per class. Default: the largest k of the k-anonymity models,
        else 10.
    l:
        Frequency diversity of the generalized transactions in every class. Default: the largest l of
        the frequency or distinct l-diversity models, else 5.
    sensitive:
        The attribute whose values form each person's transaction (default: that of the l-diversity
        model, else the table's first sensitive attribute).
    seed:
        Shuffles the rows of the published per-person table.
    insensitive:
        keep publishes the insensitive columns (per person); drop leaves them out.

    Raises
    ------
    InputError
        No person column; a model the release cannot guarantee; an ambiguous sensitive value; a
        second sensitive attribute (it would not be published).
    """
    started = time.perf_counter()
    if table.person is None:
        raise InputError(f"{NAME} publishes one row per person and needs a person column (role: person)",
                         key="attributes")
    k, l, sa = resolve(table, models, k, l, sensitive)  # noqa: E741
    one_sensitive(table, sa, NAME)
    extra = carried(table, insensitive)
    params = {"k": k, "l": l, "sensitive": sa, "seed": seed, "insensitive": insensitive, "insensitive_columns": extra}
    labels = _labels(table, sa)
    persons = _Persons(table, sa)
    reason = _impossible(persons, k, l)
    if reason is not None:
        return _empty(table, started, params, reason, persons.n)
    domain = table.domains[sa]
    part = _transactions.partition(persons.person, persons.item, persons.n, persons.m, domain.category, k,
                                   len(domain.category_labels))
    texts = transaction_texts(part, labels)
    ok, top, count = _frequency(part.tx, l)
    if not ok:
        reason = (f"the persons' generalized transactions are not frequency {l:g}-diverse even all in one class "
                  f"({part.n_tx} distinct; {texts[top]} is published for {count:,} of {persons.n:,} persons, at "
                  f"most {persons.n / l:.6g} may share one): lower l or k")
        return _empty(table, started, params, reason, persons.n)
    pclass, partitions = _mondrian(table, persons.rows, part.tx, part.n_tx, k, l)
    record_class = np.where(persons.of >= 0, pclass[np.maximum(persons.of, 0)], -1)
    rel = partition_release(table, record_class, [], algorithm=NAME, started=started, params=params)
    _hierarchy_labels(table, rel)
    pcls = rel.record_class[persons.rows]
    C = rel.n_classes
    # the guarantee, recomputed on the classes of the release
    people = np.bincount(pcls, minlength=C)
    key, freq = np.unique(pcls * np.int64(part.n_tx) + part.tx, return_counts=True)
    distinct = np.bincount(key // part.n_tx, minlength=C)
    most = np.zeros(C, dtype=np.int64)
    np.maximum.at(most, key // part.n_tx, freq)
    rel.sensitive_histogram = _histogram(part, pcls, C, persons.m, domain.category)
    frame = pd.DataFrame({q: rel.class_labels(j)[pcls] for j, q in enumerate(table.qi)})
    for c in extra:
        frame[c] = pd.Series(person_values(table, c, persons.of, persons.n), dtype=object)
    frame[sa] = texts[part.tx]
    order = np.random.default_rng(seed).permutation(len(frame))
    rel.tables = {PERSONS: frame.iloc[order].reset_index(drop=True)}
    rel.notes.update({
        "persons": persons.n,
        "classes": C,
        "k": k,
        "l": l,
        "sensitive": sa,
        "transactions": part.n_tx,
        "items_as_value": part.counts["value"],
        "items_as_category": part.counts["category"],
        "items_as_root": part.counts["root"],
        "root_persons": _root_persons(part),
        "transaction_rounds": part.rounds,
        "partitions": partitions,
        "achieved_k": int(people.min()) if C else 0,
        "achieved_l": float(np.minimum(distinct, people / np.maximum(most, 1)).min()) if C else 0.0,
        "reconstructed": True,
    })
    if dropped(table, insensitive):
        rel.notes["dropped_columns"] = dropped(table, insensitive)
    rel.seconds = time.perf_counter() - started
    return rel


def _root_persons(part: _transactions.Partition) -> int:
    """Persons whose published transaction is ``{*}``."""
    s = part.tx_start
    root_tx = [t for t in range(part.n_tx) if s[t + 1] - s[t] == 1 and part.tx_nodes[s[t]] == part.root]
    return int(np.isin(part.tx, root_tx).sum())


def _histogram(
    part: _transactions.Partition, pcls: np.ndarray, C: int, m: int, category: np.ndarray | None
) -> np.ndarray:
    """``(C × m)`` expected records per class and value: every published item of every person counts
    one, spread uniformly over the values it covers."""
    key, count = np.unique(pcls * np.int64(part.n_tx) + part.tx, return_counts=True)
    cls, tx = key // part.n_tx, key % part.n_tx
    per = np.diff(part.tx_start)[tx]
    cls_r = np.repeat(cls, per)
    w = np.repeat(count, per).astype(np.float64)
    at = np.repeat(part.tx_start[tx], per) + (np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per))
    node = part.tx_nodes[at]
    hist = np.zeros((C, m))
    value = node < m
    np.add.at(hist, (cls_r[value], node[value]), w[value])
    root = node == part.root
    if root.any():
        hist += (np.bincount(cls_r[root], weights=w[root], minlength=C) / m)[:, None]
    cat = ~value & ~root
    if cat.any() and category is not None:
        n_cat = part.root - m
        per_cat = np.zeros((C, n_cat))
        np.add.at(per_cat, (cls_r[cat], node[cat] - m), w[cat])
        leaves = np.bincount(category, minlength=n_cat).astype(np.float64)
        hist += per_cat[:, category] / leaves[category][None, :]
    return hist
