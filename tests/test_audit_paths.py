"""The audit's attacks on distinct tuples (issue 30, item 1) give what the per-question coverage matrices gave.

Singling-out, linkability and inference read each published column once against the whole input
(``analytics._attack_reading``) where every input value has at most one covering label; the twins
below run each attack that way and with that reading switched off (the general path: a coverage matrix
per question, as before) and compare every figure, random choices included. Each helper that replaced a
sort is held equal to the sort it replaced: the pick of the most frequent value with random tie-breaks,
the consistent-row triples in scipy's order, the predicates' column patterns. The conditions under which
the one reading is refused (several labels per value, a value set that changes how a column reads) are
checked with their controls.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import anonkit.analytics.adversary as adversary
from anonkit import Hierarchy, Schema
from anonkit.analytics import inference_attack, linkability_attack, singling_out_attack
from anonkit.analytics._attack_reading import (
    attack_columns,
    covered_records,
    domain_codes,
    reads_any_subset,
    triples,
    use_patterns,
)
from anonkit.analytics.cover import build_cover, column_covers, shared_reading

AGES = [str(a) for a in range(20, 40)]
ZIPS = ["1234", "1235", "1299", "1300", "1301"]
H_AGE = Hierarchy([[a, f"{int(a) // 10 * 10}-{int(a) // 10 * 10 + 9}", "*"] for a in AGES], name="age")
H_ZIP = Hierarchy([[z, z[:3] + "*", z[:2] + "**", "*"] for z in ZIPS], name="zip")
SCHEMA = Schema.of(quasi=["age", "zip", "sex"], sensitive=["s"], hierarchies={"age": H_AGE, "zip": H_ZIP},
                   types={"age": "numeric", "zip": "categorical", "sex": "categorical", "s": "categorical"})
DISEASES = ["flu", "cold", "cancer", "asthma"]


def original_table(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.choice(AGES, n), "zip": rng.choice(ZIPS, n), "sex": rng.choice(["f", "m"], n),
                         "s": rng.choice(DISEASES, n)}).astype("str")


def full_domain(original: pd.DataFrame, levels: tuple[int, int, int], keep: float, seed: int) -> pd.DataFrame:
    """The input generalized to one level per column (a full-domain release), some records left out."""
    rng = np.random.default_rng(seed)
    age = [H_AGE.labels[levels[0]][H_AGE.maps[levels[0]][AGES.index(a)]] for a in original["age"]]
    zip_ = [H_ZIP.labels[levels[1]][H_ZIP.maps[levels[1]][ZIPS.index(z)]] for z in original["zip"]]
    sex = original["sex"] if levels[2] == 0 else pd.Series(["*"] * len(original))
    release = pd.DataFrame({"age": age, "zip": zip_, "sex": list(sex), "s": list(original["s"])}).astype("str")
    kept = rng.random(len(release)) < keep
    kept[int(rng.integers(len(release)))] = True
    return release[kept].reset_index(drop=True)


def figures(release: pd.DataFrame, original: pd.DataFrame, seed: int, n_cols: int | None = None) -> list[dict]:
    with shared_reading(keep=original):
        return [singling_out_attack(release, original, SCHEMA, n_attacks=40, n_cols=n_cols, seed=seed).to_dict(),
                linkability_attack(release, original, SCHEMA, n_attacks=40, seed=seed + 1).to_dict(),
                inference_attack(release, original, SCHEMA, "s", n_attacks=40, seed=seed + 2).to_dict()]


def general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the one reading off: every attack builds its coverage matrices per question, as before."""
    monkeypatch.setattr(adversary, "attack_columns", lambda *a, **k: None)
    monkeypatch.setattr(adversary, "consistent_in", lambda *a, **k: None)


def counting_readings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record whether each question was answered from the one reading."""
    taken: list[bool] = []
    for name in ("attack_columns", "consistent_in"):
        real = getattr(adversary, name)

        def counted(*a, real=real, **k):  # type: ignore[no-untyped-def]
            got = real(*a, **k)
            taken.append(got is not None)
            return got

        monkeypatch.setattr(adversary, name, counted)
    return taken


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 80),
       levels=st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1)),
       keep=st.floats(0.3, 1.0), n_cols=st.sampled_from([None, None, 1, 2, 3]))
def test_the_attacks_figure_alike_on_distinct_tuples_and_per_question(seed: int, n: int, levels: tuple[int, int, int],
                                                                       keep: float, n_cols: int | None) -> None:
    original = original_table(seed, n)
    release = full_domain(original, levels, keep, seed)
    with pytest.MonkeyPatch.context() as mp:
        taken = counting_readings(mp)
        fast = figures(release, original, seed, n_cols)
    assert taken and all(taken)  # every question answered from the one reading
    with pytest.MonkeyPatch.context() as mp:
        general_path(mp)
        assert figures(release, original, seed, n_cols) == fast


def test_the_twins_can_tell_other_figures_apart() -> None:
    """The control: the comparison above sees a change of release (one more generalized column)."""
    original = original_table(5, 60)
    assert figures(full_domain(original, (1, 1, 0), 1.0, 5), original, 5) != figures(
        full_domain(original, (1, 2, 0), 1.0, 5), original, 5)


def test_a_control_set_takes_the_general_path_with_the_same_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    original, control = original_table(11, 70), original_table(12, 30)
    release = full_domain(original, (1, 1, 0), 0.9, 11)

    def with_control() -> list[dict]:
        with shared_reading(keep=original):
            return [singling_out_attack(release, original, SCHEMA, control=control, n_attacks=30, seed=1).to_dict(),
                    linkability_attack(release, original, SCHEMA, control=control, n_attacks=30, seed=2).to_dict(),
                    inference_attack(release, original, SCHEMA, "s", control=control, n_attacks=30, seed=3).to_dict()]

    fast = with_control()
    general_path(monkeypatch)
    assert with_control() == fast


# ---------------------------------------------------------------------------------- when the one reading is refused
def local_recoding(original: pd.DataFrame) -> pd.DataFrame:
    """Cells of two levels in one column: a value (``25``) covered by ``25`` and by ``20-29``."""
    release = full_domain(original, (1, 0, 0), 1.0, 0)
    release.loc[release.index % 2 == 0, "age"] = original["age"][release.index % 2 == 0]
    return release


def test_several_labels_per_value_take_the_general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    original = original_table(3, 60)
    release = local_recoding(original)
    assert attack_columns(release, original, SCHEMA, ["age"], ["age"]) is None
    assert attack_columns(full_domain(original, (1, 0, 0), 1.0, 0), original, SCHEMA, ["age"], ["age"]) is not None
    taken = counting_readings(monkeypatch)
    got = figures(release, original, 3)
    assert False in taken  # (linkability's side without age still reads it once: its other side does not)
    monkeypatch.undo()
    general_path(monkeypatch)
    assert figures(release, original, 3) == got


def cover_of(release: pd.DataFrame, original: pd.DataFrame, schema: Schema, name: str):  # type: ignore[no-untyped-def]
    cols = attack_columns(release, original, schema, [name], [name])
    assert cols is not None
    return cols[0]


def test_a_column_whose_reading_depends_on_its_values_is_read_per_question() -> None:
    original = original_table(4, 40)
    release = full_domain(original, (1, 1, 0), 1.0, 4)
    for name in ("age", "zip", "sex"):  # controls: typed columns of hierarchy nodes, free texts
        assert reads_any_subset(cover_of(release, original, SCHEMA, name), SCHEMA, True)
    untyped = Schema.of(quasi=["age", "zip", "sex"], sensitive=["s"], hierarchies={"age": H_AGE, "zip": H_ZIP})
    assert not reads_any_subset(cover_of(release, original, untyped, "sex"), untyped, True)  # numeric if all look so
    dated = Schema.of(quasi=["d"], types={"d": "date"})
    days = pd.DataFrame({"d": ["2020-01-02", "2020-02-01"]}).astype("str")
    assert not reads_any_subset(cover_of(days, days, dated, "d"), dated, True)  # day/month order from every value
    # a label read only as an input value: the value is not a node of the column's hierarchy
    odd = original.copy()
    odd.loc[0, "zip"] = "9999"
    zipped = Schema.of(quasi=["zip"], hierarchies={"zip": H_ZIP}, types={"zip": "categorical"})
    shown = pd.DataFrame({"zip": ["9999", "123*"]}).astype("str")
    assert not reads_any_subset(cover_of(shown, odd, zipped, "zip"), zipped, True)
    assert reads_any_subset(cover_of(shown.iloc[1:], odd, zipped, "zip"), zipped, True)  # control: a node
    sets = pd.DataFrame({"sex": ["{f;m}", "{f;m}"]}).astype("str")
    assert not reads_any_subset(cover_of(sets, original, SCHEMA, "sex"), SCHEMA, True)  # separator by members
    assert reads_any_subset(cover_of(sets, original, SCHEMA, "sex"), SCHEMA, False)  # by text: always


def test_a_label_only_an_input_value_reads_is_refused_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The targets' own coverage matrix cannot read ``9999`` when no sampled target has it: the attack
    says so as it did (per question), not what the whole input would give."""
    original = original_table(9, 50)
    original.loc[0, "zip"] = "9999"
    release = full_domain(original.assign(zip=original["zip"].where(original["zip"] != "9999", "1234")),
                          (0, 1, 0), 1.0, 9)
    release.loc[0, "zip"] = "9999"

    def linked() -> object:
        try:
            return linkability_attack(release, original, SCHEMA, n_attacks=5, seed=4).to_dict()
        except Exception as exc:  # the error itself is the figure compared
            return repr(exc)

    fast = linked()
    general_path(monkeypatch)
    assert linked() == fast


# ------------------------------------------------------------------------------------------------ the helpers' twins
def pick_by_sorting(owner: np.ndarray, item: np.ndarray, weight: np.ndarray, n: int,
                    rng: np.random.Generator) -> np.ndarray:
    """``adversary._pick_max`` as it was: one sort of (owner, −weight, −noise)."""
    out = np.full(n, -1, dtype=np.int64)
    if len(owner) == 0:
        return out
    noise = rng.random(len(owner))
    order = np.lexsort((-noise, -weight, owner))
    first = np.r_[True, owner[order][1:] != owner[order][:-1]]
    out[owner[order][first]] = item[order][first]
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(0, 60), owners=st.integers(1, 12), top=st.integers(1, 4),
       ordered=st.booleans())
def test_the_pick_without_a_sort_is_the_sorts(seed: int, n: int, owners: int, top: int, ordered: bool) -> None:
    rng = np.random.default_rng(seed)
    owner = rng.integers(0, owners, size=n)
    owner = np.sort(owner) if ordered else owner
    item, weight = rng.integers(0, 9, size=n), rng.integers(0, top, size=n).astype(np.float64)  # many ties
    got = adversary._pick_max(owner, item, weight, owners, np.random.default_rng(seed))
    assert np.array_equal(got, pick_by_sorting(owner, item, weight, owners, np.random.default_rng(seed)))
    if n and top > 1:  # control: another draw of the noise breaks some tie otherwise
        other = [pick_by_sorting(owner, item, weight, owners, np.random.default_rng(s)) for s in range(seed, seed + 30)]
        assert any(not np.array_equal(got, o) for o in other) or len({tuple(o) for o in other}) == 1


def triples_by_sorting(rec: np.ndarray, cls: np.ndarray, row_class: np.ndarray, n_classes: int,
                       groups: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The consistent-row triples as they were computed: two ``np.unique`` sorts."""
    pair, rows = np.unique(row_class.astype(np.int64) * n_groups + groups, return_counts=True)
    starts = np.searchsorted(pair // n_groups, np.arange(n_classes + 1))
    first, sizes = starts[cls], starts[cls + 1] - starts[cls]
    owner = np.repeat(np.arange(len(cls)), sizes)
    at = first[owner] + np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    keys, reached, where = np.unique(rec[owner].astype(np.int64) * n_groups + pair[at] % n_groups,
                                     return_index=True, return_inverse=True)
    total = np.bincount(where.reshape(-1), weights=rows[at].astype(np.float64), minlength=len(keys))
    order = np.lexsort((-reached, keys // n_groups))
    return (keys // n_groups)[order], (keys % n_groups)[order], total[order]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_rows=st.integers(1, 80), n_classes=st.integers(1, 9),
       n_groups=st.integers(1, 7), n_targets=st.integers(1, 30), per_target=st.integers(1, 3))
def test_the_triples_are_the_sorts_in_their_order(seed: int, n_rows: int, n_classes: int, n_groups: int,
                                                  n_targets: int, per_target: int) -> None:
    rng = np.random.default_rng(seed)
    row_class, groups = rng.integers(0, n_classes, n_rows), rng.integers(0, n_groups, n_rows)
    pairs = {(t, int(c)) for t in range(n_targets) if rng.random() < 0.8
             for c in rng.integers(0, n_classes, per_target)}  # one class per target, or several
    rec, cls = (np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2).T if pairs else
                (np.zeros(0, np.int64), np.zeros(0, np.int64)))
    got = triples(rec, cls, row_class, n_classes, groups, n_groups)
    want = triples_by_sorting(rec, cls, row_class, n_classes, groups, n_groups)
    for ours, theirs in zip(got, want, strict=True):
        assert np.array_equal(ours, theirs) and ours.dtype.kind == theirs.dtype.kind


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 50), p=st.integers(1, 6), every=st.booleans())
def test_the_column_patterns_are_the_distinct_rows(seed: int, n: int, p: int, every: bool) -> None:
    use = np.ones((n, p), dtype=bool) if every else np.random.default_rng(seed).random((n, p)) < 0.6
    patterns, which = use_patterns(use)
    assert np.array_equal(patterns[which], use)
    assert len(patterns) == len(np.unique(use, axis=0))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 60), levels=st.tuples(st.integers(0, 2), st.integers(0, 3)))
def test_the_records_a_predicate_covers_are_its_covers(seed: int, n: int, levels: tuple[int, int]) -> None:
    """Counted on distinct tuples of covering labels, as the coverage matrix of the predicates counts them."""
    original = original_table(seed, n)
    release = full_domain(original, (*levels, 0), 1.0, seed)
    columns = ["age", "zip", "sex", "s"]
    cols = attack_columns(release, original, SCHEMA, columns, ["age", "zip", "sex"])
    assert cols is not None
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(release), 25)
    use = rng.random((25, 4)) < 0.7
    use[:, 0] |= ~use.any(axis=1)
    got = covered_records(cols, [c.label_codes[rows] for c in cols], use)
    predicates = pd.DataFrame({c: np.where(use[:, j], release[c].to_numpy(dtype=object)[rows], "*")
                               for j, c in enumerate(columns)})
    cov = build_cover(predicates, original, SCHEMA, columns=["age", "zip", "sex"], exact=["s"])
    assert np.array_equal(got, cov.class_records()[cov.row_class])


def test_a_columns_labels_are_numbered_by_first_appearance() -> None:
    """The baseline's random cells are drawn from each column's labels in the order they first appear:
    the cover's codes in order (text, object and categorical columns; texts equal once stripped merged)."""
    cells = ["b", " a", "c", "a ", "b", "*", "c"]
    original = pd.DataFrame({"sex": ["a", "b", "c"]})
    for column in (pd.Series(cells, dtype="str"), pd.Series(cells, dtype=object),
                   pd.Series(pd.Categorical(cells, categories=["c", "*", "a ", "b", " a", "unused"]))):
        col = column_covers(pd.DataFrame({"sex": column}), original, SCHEMA, ["sex"])[0]
        first = pd.unique(np.array([str(x).strip() for x in column], dtype=object))
        assert col.labels[domain_codes(col)].tolist() == first.tolist() == ["b", "a", "c", "*"]


# ------------------------------------------------------------------ one grouping of the release per audit
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 60),
       levels=st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 1)),
       n_cols=st.sampled_from([None, None, 1, 2, 3]))
def test_singling_outs_uniqueness_on_the_release_classes_is_on_every_column(seed: int, n: int,
                                                                            levels: tuple[int, int, int],
                                                                            n_cols: int | None) -> None:
    """A predicate naming every quasi-identifier is unique in the release exactly when its row is alone in
    its class (the verifier's grouping) among the rows alike in the other chosen columns: the same answers
    as grouping every chosen column's text, for random column choices, in an audit's block and outside.
    Caught mutation: the classes without the other chosen columns."""
    from anonkit._verify_rows import same_release_codes

    release = full_domain(original_table(seed, n), levels, 1.0, seed)
    rng = np.random.default_rng(seed)
    columns = ["age", "zip", "sex", "s"]
    rows = np.sort(rng.choice(len(release), size=min(len(release), 20), replace=False))
    use = adversary._column_choice(rng, len(rows), len(columns), n_cols)
    want = adversary._unique_in_release(release, columns, rows, use)
    assert np.array_equal(adversary._unique_in_release(release, columns, rows, use, ["age", "zip", "sex"]), want)
    with same_release_codes(), shared_reading():
        assert np.array_equal(adversary._unique_in_release(release, columns, rows, use, ["zip", "age", "sex"]), want)


def _arrow_release(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    original = original_table(seed, 120).astype("string[pyarrow]")
    release = full_domain(original.astype(object), (1, 2, 0), 0.9, seed).astype("string[pyarrow]")
    release.loc[release.index[:3], "sex"] = "*"  # a '*' read as a value: the reading note's check has work
    return original, release


def _audited(original: pd.DataFrame, release: pd.DataFrame) -> dict:
    from anonkit.audit.inputs import AuditInputs
    from anonkit.audit.run import audit
    from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness

    doc = audit(AuditInputs(schema=SCHEMA, original=original, release=release), targets=60, seed=3,
                models=[KAnonymity(2), DistinctLDiversity("s", 2), TCloseness("s", 0.9)])
    doc.pop("seconds")
    return doc


def test_an_audit_encodes_and_groups_its_release_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The twin: an audit of a pyarrow release (a '*' in some rows, a note about it) figures alike with the
    release read once (each published column encoded once, the quasi-identifiers grouped once for the
    attacks' classes, the models' recount and singling-out's uniqueness) and with every reading of its own,
    as before. Caught mutations: the audit without its block (5 encodings of the release's 'age' and 3
    groupings of the quasi-identifiers), the attacks' factorizations not from the verifier's codes."""
    import contextlib

    import anonkit._verify_rows as rows_module
    import anonkit.analytics._cover_shared as cover_shared
    import anonkit.analytics.cover as cover_module
    import anonkit.audit.run as run_module

    original, release = _arrow_release(5)
    encoded: list[int] = []
    grouped: list[int] = []
    real_codes, real_group = rows_module._arrow_codes, rows_module.group_columns
    monkeypatch.setattr(rows_module, "_arrow_codes",
                        lambda arrow, pc: encoded.append(len(arrow)) or real_codes(arrow, pc))
    monkeypatch.setattr(rows_module, "group_columns",
                        lambda cols, sizes: grouped.append(len(cols)) or real_group(cols, sizes))
    real_text = cover_shared.factorize_text

    def counted_text(values, **kw):  # type: ignore[no-untyped-def]
        encoded.append(-len(values))  # (negative: encoded by pandas, not by the verifier's Arrow path)
        return real_text(values, **kw)

    for module in (cover_shared, cover_module):  # one function, so the shared path still recognises it
        monkeypatch.setattr(module, "factorize_text", counted_text)
    shared = _audited(original, release)
    assert "'sex' publishes '*' in some rows" in " ".join(shared["notes"])
    assert grouped.count(3) == 1  # the quasi-identifiers, once
    assert encoded.count(len(release)) == 4 and -len(release) not in encoded  # each published column once
    encoded.clear(), grouped.clear()
    monkeypatch.setattr(run_module, "same_release_codes", contextlib.nullcontext)
    monkeypatch.setattr(cover_shared, "_factorized", lambda values, factorize, kept: factorize(values))
    alone = _audited(original, release)
    assert grouped.count(3) == 3 and encoded.count(len(release)) > 4 and -len(release) in encoded  # each its own
    assert alone == shared
