"""Privacy models: the worked examples of spec §1 as exact tests, plus property tests.

Class statistics are built the way the library builds them (``build_domain`` + ``class_stats``,
or ``anonkit.verifier.released_stats`` from a frame), so these tests also exercise that path.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from anonkit.algorithms.lattice.fixed import fixed
from anonkit.errors import InputError
from anonkit.hierarchy import Hierarchy
from anonkit.models import (
    BetaLikeness,
    DeltaDisclosure,
    DistinctLDiversity,
    EntropyLDiversity,
    KAnonymity,
    RecursiveCLDiversity,
    TCloseness,
)
from anonkit.models.ldiversity import entropy_nats, grassberger
from anonkit.schema import Schema
from anonkit.stats import ClassStats, build_domain, class_stats
from anonkit.table import Table
from anonkit.verifier import check, released_stats

EXACT = 1e-12
EULER_GAMMA = 0.5772156649015329


# ---------------------------------------------------------------------------- helpers
def stats_of(
    classes: list[list[object]],
    *,
    reference: list[object] | None = None,
    numeric: bool = False,
    hierarchy: Hierarchy | None = None,
    name: str = "S",
) -> ClassStats:
    """ClassStats of explicit classes (lists of sensitive values), classes kept in the given order.

    ``reference`` is the input table's column (default: all values of all classes).
    """
    ec = [f"c{i}" for i, c in enumerate(classes) for _ in c]
    values = [str(v) for c in classes for v in c]
    frame = pd.DataFrame({"ec": ec, name: values})
    ref = None if reference is None else {name: [str(v) for v in reference]}
    stats, cls, supp = released_stats(frame, ["ec"], {name: (numeric, None, hierarchy)}, reference=ref)
    assert not supp.any()
    first = [ec.index(f"c{i}") for i in range(len(classes))]
    return stats.subset(cls[first])


def stats_from_hist(
    hist: np.ndarray, ref_counts: np.ndarray, *, hierarchy: Hierarchy | None = None, name: str = "S"
) -> ClassStats:
    """ClassStats of a ``C × S`` histogram against the reference counts (value ``j`` = label ``vNN``)."""
    labels = np.array([f"v{j:02d}" for j in range(hist.shape[1])], dtype=object)
    ref_text = np.repeat(labels, ref_counts)
    cls_rows, vals = np.nonzero(hist)
    reps = hist[cls_rows, vals]
    class_of = np.repeat(cls_rows, reps).astype(np.int64)
    text = np.repeat(labels[vals], reps)
    domain, codes = build_domain(name, text, reference_text=ref_text, hierarchy=hierarchy)
    assert list(domain.labels) == list(labels)  # lexicographic order = column order
    return class_stats(class_of, hist.shape[0], None, {name: (np.arange(len(text)), codes, None)}, {name: domain})


def random_hierarchy(draw, n_values: int) -> Hierarchy:
    """A random rooted hierarchy over ``v00 … v{n-1}`` of height 1–3 (top level ``*``)."""
    height = draw(st.integers(1, 3))
    rows = [[f"v{j:02d}"] for j in range(n_values)]
    current = list(range(n_values))  # node id of every leaf at the current level
    for level in range(1, height):
        n_nodes = max(current) + 1
        parent_of = draw(st.lists(st.integers(0, max(n_nodes - 1, 0)), min_size=n_nodes, max_size=n_nodes))
        current = [parent_of[c] for c in current]
        for j in range(n_values):
            rows[j].append(f"L{level}n{current[j]}")
    for j in range(n_values):
        rows[j].append("*")
    return Hierarchy(rows, name="S")


@st.composite
def histograms(draw, min_classes: int = 1, max_classes: int = 4, with_hierarchy: bool = False):
    """(hist C × S, reference counts S, hierarchy or None); every class and reference value non-empty."""
    s = draw(st.integers(1, 6))
    c = draw(st.integers(min_classes, max_classes))
    ref = np.array(draw(st.lists(st.integers(1, 6), min_size=s, max_size=s)), dtype=np.int64)
    rows = []
    for _ in range(c):
        row = draw(st.lists(st.integers(0, 5), min_size=s, max_size=s))
        assume(sum(row) > 0)
        rows.append(row)
    hist = np.array(rows, dtype=np.int64)
    h = random_hierarchy(draw, s) if with_hierarchy else None
    return hist, ref, h


# ---------------------------------------------------------------------------- §1.1 k-anonymity
@given(
    sizes=st.lists(st.integers(1, 30), min_size=1, max_size=10),
    k=st.integers(1, 30),
)
def test_k_anonymity_passes_iff_size_at_least_k(sizes, k):
    stats = ClassStats(np.array(sizes, dtype=float))
    m = KAnonymity(k)
    np.testing.assert_array_equal(m.passes(stats), np.array(sizes) >= k)
    assert m.achieved(stats) == min(sizes)


@pytest.mark.parametrize("bad", [0, -1, 2.5])
def test_k_must_be_positive_whole_number(bad):
    with pytest.raises(InputError, match="k must be"):
        KAnonymity(bad)


# ---------------------------------------------------------------------------- §1.2 l-diversity
ABD = [["A", "A", "B", "D"]]


def test_distinct_l_of_worked_example():
    stats = stats_of(ABD)
    assert DistinctLDiversity("S", 1).achieved(stats) == 3
    assert DistinctLDiversity("S", 3).passes(stats).all()
    assert not DistinctLDiversity("S", 4).passes(stats).any()
    # a fractional l needs ⌈l⌉ distinct values (ARX)
    assert not DistinctLDiversity("S", 3.5).passes(stats).any()


def test_entropy_l_of_worked_example():
    stats = stats_of(ABD)
    # H = 1.5 bits, so entropy-l = 2^1.5 = 2.83
    assert EntropyLDiversity("S", 1).achieved(stats) == pytest.approx(2**1.5, abs=EXACT)
    assert entropy_nats(stats.hist["S"])[0] == pytest.approx(1.5 * math.log(2), abs=EXACT)
    assert EntropyLDiversity("S", 2.82).passes(stats).all()
    assert not EntropyLDiversity("S", 2.83).passes(stats).any()
    # exactly at the bound passes (H ≥ log l)
    assert EntropyLDiversity("S", 2**1.5).passes(stats).all()


def test_entropy_l_needs_ceil_l_distinct_values():
    # two values equally often: H = ln 2 exactly; l = 2 passes, any l > 2 needs 3 distinct values
    stats = stats_of([["A", "B", "A", "B"]])
    assert EntropyLDiversity("S", 2).passes(stats).all()
    assert not EntropyLDiversity("S", 2.0001).passes(stats).any()
    assert EntropyLDiversity("S", 1).achieved(stats) == pytest.approx(2.0, abs=EXACT)


def test_single_valued_class_has_entropy_l_one():
    stats = stats_of([["A", "A", "A"]])
    assert EntropyLDiversity("S", 1).achieved(stats) == pytest.approx(1.0)
    assert EntropyLDiversity("S", 1).passes(stats).all()
    assert not EntropyLDiversity("S", 1.01).passes(stats).any()


def test_recursive_cl_diversity_worked_example():
    # {A, A, B, D}: counts sorted descending r = (2, 1, 1)
    stats = stats_of(ABD)
    # l = 2: r1 = 2 < c·(r2 + r3) = 2c  ⇔  c > 1 (strict)
    assert RecursiveCLDiversity("S", 1, 2).achieved(stats) == pytest.approx(1.0)
    assert not RecursiveCLDiversity("S", 1, 2).passes(stats).any()
    assert RecursiveCLDiversity("S", 1.01, 2).passes(stats).all()
    # l = 3: r1 = 2 < c·r3 = c  ⇔  c > 2
    assert RecursiveCLDiversity("S", 1, 3).achieved(stats) == pytest.approx(2.0)
    assert not RecursiveCLDiversity("S", 2, 3).passes(stats).any()
    assert RecursiveCLDiversity("S", 2.5, 3).passes(stats).all()
    # l = 4: only 3 distinct values, fails for any c
    assert not RecursiveCLDiversity("S", 1000, 4).passes(stats).any()


def test_recursive_cl_uses_descending_counts_not_pycanons_ascending():
    # counts (5, 1, 1): Machanavajjhala's ratio for l = 2 is 5 / (1 + 1) = 2.5
    stats = stats_of([["A"] * 5 + ["B", "C"]])
    assert RecursiveCLDiversity("S", 1, 2).achieved(stats) == pytest.approx(2.5)
    assert not RecursiveCLDiversity("S", 2.5, 2).passes(stats).any()
    assert RecursiveCLDiversity("S", 2.6, 2).passes(stats).all()


def test_recursive_cl_requires_integer_l():
    with pytest.raises(InputError, match="l must be"):
        RecursiveCLDiversity("S", 2, 1.5)


# ---------------------------------------------------------------------------- Grassberger
def _g_even(n2: int) -> float:
    """Closed form G_{2n} = −γ − ln 2 + Σ_{k=1..n} 2/(2k − 1) (Grassberger 2003; used by ARX)."""
    return -EULER_GAMMA - math.log(2) + sum(2 / (2 * k - 1) for k in range(1, n2 // 2 + 1))


def test_grassberger_function_known_values():
    g = grassberger(np.arange(0, 121))
    assert g[0] == 0.0
    assert g[1] == pytest.approx(-EULER_GAMMA - math.log(2), abs=1e-12)
    assert g[2] == pytest.approx(2 - EULER_GAMMA - math.log(2), abs=1e-12)
    # values ARX precomputes (EntropyLDiversity.G_PRECOMPUTED)
    assert g[4] == pytest.approx(1.3963038212051886, abs=1e-12)
    assert g[10] == pytest.approx(2.3042403291416966, abs=1e-12)
    assert g[100] == pytest.approx(4.605186851488337, abs=1e-12)
    for n in range(1, 60):
        assert g[2 * n] == pytest.approx(_g_even(2 * n), abs=1e-10)
        assert g[2 * n + 1] == pytest.approx(g[2 * n], abs=1e-10)  # G_{2n+1} = G_{2n}


def test_grassberger_entropy_exceeds_shannon_on_small_samples():
    # all values distinct (the regime the correction is for): Grassberger ≫ Shannon
    for n in range(2, 12):
        hist = np.ones((1, n))
        h_g = entropy_nats(hist, "grassberger")[0]
        h_s = entropy_nats(hist, "shannon")[0]
        assert h_g > h_s
        assert h_g == pytest.approx(grassberger(np.array([n]))[0] - grassberger(np.array([1]))[0])
    hist = np.array([[1, 1, 0], [2, 1, 0], [3, 1, 1]], dtype=float)
    assert (entropy_nats(hist, "grassberger") > entropy_nats(hist, "shannon")).all()


def test_grassberger_entropy_is_not_always_larger():
    # {2, 2}: H_G = G(4) − G(2) = 2/3 < ln 2. The brief's "≥ Shannon" only holds for small, spread samples.
    h_g = entropy_nats(np.array([[2.0, 2.0]]), "grassberger")[0]
    assert h_g == pytest.approx(2 / 3, abs=1e-12)
    assert h_g < math.log(2)


@pytest.mark.parametrize("counts", [[5000, 3000, 2000], [400, 400], [1000, 10, 300, 77]])
def test_grassberger_entropy_close_to_shannon_on_large_samples(counts):
    hist = np.array([counts], dtype=float)
    assert entropy_nats(hist, "grassberger")[0] == pytest.approx(entropy_nats(hist, "shannon")[0], abs=2e-3)


@given(st.integers(2, 40))
def test_grassberger_singletons_property(n):
    hist = np.ones((1, n))
    assert entropy_nats(hist, "grassberger")[0] >= entropy_nats(hist, "shannon")[0]


def test_grassberger_entropy_l_accepts_more_small_classes():
    stats = stats_of([["A", "B"]])
    assert not EntropyLDiversity("S", 2.5).passes(stats).any()  # only 2 distinct values anyway
    assert EntropyLDiversity("S", 2, "grassberger").passes(stats).all()
    stats = stats_of([["A", "B", "C"]])
    assert not EntropyLDiversity("S", 3.0001, "shannon").passes(stats).any()
    assert EntropyLDiversity("S", 3, "grassberger").passes(stats).all()
    # achieved l is capped by the number of distinct values
    assert EntropyLDiversity("S", 1, "grassberger").achieved(stats) == pytest.approx(3.0)


def test_unknown_estimator_is_an_input_error():
    with pytest.raises(InputError, match="estimator"):
        EntropyLDiversity("S", 2, "miller")


# ---------------------------------------------------------------------------- §1.3 t-closeness
SALARY = [3, 4, 5, 6, 7, 8, 9, 10, 11]


def test_ordered_emd_salary_examples():
    stats = stats_of([[3, 4, 5], [6, 8, 11]], reference=SALARY, numeric=True)
    emd = TCloseness("S", 1, "ordered").emd(stats)
    assert emd[0] == pytest.approx(float(Fraction(3, 8)), abs=EXACT)
    assert emd[1] == pytest.approx(float(Fraction(1, 6)), abs=EXACT)


def test_equal_emd_salary_example():
    stats = stats_of([[3, 4, 5]], reference=SALARY, numeric=True)
    assert TCloseness("S", 1, "equal").emd(stats)[0] == pytest.approx(2 / 3, abs=EXACT)


def test_ordered_emd_sorts_numeric_values_by_number():
    # as text, "10" < "11" < "3": the lexicographic order gives 5/24, not 3/8
    stats = stats_of([[3, 4, 5]], reference=SALARY, numeric=False)
    assert TCloseness("S", 1, "ordered").emd(stats)[0] == pytest.approx(5 / 24, abs=EXACT)


def test_t_closeness_threshold_is_inclusive():
    stats = stats_of([[3, 4, 5]], reference=SALARY, numeric=True)
    assert TCloseness("S", 0.375, "ordered").passes(stats).all()
    assert not TCloseness("S", 0.37, "ordered").passes(stats).any()


DISEASE_EMD = [
    (["gastric ulcer", "gastritis", "stomach cancer"], Fraction(4, 9)),
    (["gastric ulcer", "stomach cancer", "pneumonia"], Fraction(7, 27)),
    (["gastritis", "flu", "bronchitis"], Fraction(8, 27)),
]


@pytest.mark.parametrize(("ec", "expected"), DISEASE_EMD)
def test_hierarchical_emd_disease_examples(ec, expected, test2_frame, test2_hierarchies):
    stats = stats_of([ec], reference=list(test2_frame["Disease"]), hierarchy=test2_hierarchies["Disease"])
    assert TCloseness("S", 1, "hierarchical").emd(stats)[0] == pytest.approx(float(expected), abs=EXACT)
    # sanity relation of the spec: hierarchical ≤ equal
    assert TCloseness("S", 1, "hierarchical").emd(stats)[0] <= TCloseness("S", 1, "equal").emd(stats)[0] + EXACT


def test_hierarchical_emd_with_the_full_disease_tree_of_the_spec(test2_frame):
    """The spec's tree has leaves absent from the data (colitis, …); they carry no mass and change nothing."""
    top = "respiratory&digestive"
    rows = [[v, "stomach", "digestive", top] for v in ("gastric ulcer", "gastritis", "stomach cancer")]
    rows += [[v, "colon", "digestive", top] for v in ("colitis", "colon cancer")]
    rows += [[v, "vascular lung", "respiratory", top] for v in ("lung cancer", "pulmonary embolism")]
    rows += [[v, "respiratory infection", "respiratory", top] for v in ("flu", "pneumonia", "bronchitis")]
    h = Hierarchy(rows, name="S")
    for ec, expected in DISEASE_EMD:
        stats = stats_of([ec], reference=list(test2_frame["Disease"]), hierarchy=h)
        assert TCloseness("S", 1, "hierarchical").emd(stats)[0] == pytest.approx(float(expected), abs=EXACT)


def test_hierarchical_emd_needs_a_hierarchy():
    stats = stats_of(ABD)
    with pytest.raises(InputError, match="hierarchy"):
        TCloseness("S", 0.5, "hierarchical").passes(stats)


@pytest.mark.parametrize("bad", [{"t": 0}, {"t": 1.5}, {"t": 0.3, "distance": "manhattan"}])
def test_t_closeness_parameter_errors(bad):
    with pytest.raises(InputError):
        TCloseness("S", **bad)


def test_golden_grouping_of_the_t_closeness_paper(test2_frame, test2_hierarchies):
    """Zip prefix 4767*/4790*/4760* (ZIP level 1): salary 1/6, 1/6, 1/12; disease 7/27, 8/27, 5/27."""
    h = test2_hierarchies
    schema = Schema.of(
        quasi=["ZIPCode", "Age"],
        sensitive=["Salary", "Disease"],
        hierarchies={"ZIPCode": h["ZIPCode"], "Age": h["Age"], "Disease": h["Disease"]},
        types={"Salary": "numeric"},
    )
    release = fixed(Table(test2_frame, schema), [KAnonymity(3)], levels={"ZIPCode": 1, "Age": 2})
    out = release.to_frame()
    assert sorted(out["ZIPCode"].unique()) == ["4760*", "4767*", "4790*"]
    stats, cls, _ = released_stats(
        out,
        ["ZIPCode", "Age"],
        {"Salary": (True, None, None), "Disease": (False, None, h["Disease"])},
        reference=test2_frame,
    )
    salary = TCloseness("Salary", 1, "ordered").emd(stats)
    disease = TCloseness("Disease", 1, "hierarchical").emd(stats)
    by_zip = {}
    for c in range(stats.n_classes):
        zips = set(out["ZIPCode"].to_numpy()[cls == c])
        assert len(zips) == 1
        by_zip[zips.pop()] = (salary[c], disease[c])
    expected = {
        "4767*": (Fraction(1, 6), Fraction(7, 27)),
        "4790*": (Fraction(1, 6), Fraction(8, 27)),
        "4760*": (Fraction(1, 12), Fraction(5, 27)),
    }
    for z, (s_exp, d_exp) in expected.items():
        assert by_zip[z][0] == pytest.approx(float(s_exp), abs=EXACT), z
        assert by_zip[z][1] == pytest.approx(float(d_exp), abs=EXACT), z
    # the achieved t's reported by check(): salary max 1/6 (the paper's 0.167-closeness), disease max 8/27
    rep = check(
        out,
        ["ZIPCode", "Age"],
        ["Salary", "Disease"],
        hierarchies={"Disease": h["Disease"]},
        numeric=["Salary"],
        reference=test2_frame,
    )
    assert rep["k"] == 3
    assert rep["sensitive"]["Salary"]["t_ordered"] == pytest.approx(1 / 6, abs=EXACT)
    assert rep["sensitive"]["Disease"]["t_hierarchical"] == pytest.approx(8 / 27, abs=EXACT)


# ---------------------------------------------------------------------------- §1.4 β-likeness, δ-disclosure
BETA_REF = ["A"] * 4 + ["B"] * 3 + ["C"] * 2 + ["D"]  # {A .4, B .3, C .2, D .1}


def test_basic_beta_likeness_worked_example():
    stats = stats_of(ABD, reference=BETA_REF)
    assert BetaLikeness("S", 1).achieved(stats) == pytest.approx(1.5, abs=EXACT)
    assert BetaLikeness("S", 1.5).passes(stats).all()
    assert not BetaLikeness("S", 1.49).passes(stats).any()


def test_enhanced_beta_likeness_worked_example():
    stats = stats_of(ABD, reference=BETA_REF)
    # bounds min(β, −ln q): D: min(β, 2.30), A: min(β, 0.92); gains 1.5 and 0.25 stay below −ln q
    assert BetaLikeness("S", 1, enhanced=True).achieved(stats) == pytest.approx(1.5, abs=EXACT)
    assert BetaLikeness("S", 1.5, enhanced=True).passes(stats).all()
    assert not BetaLikeness("S", 1.4, enhanced=True).passes(stats).any()


def test_enhanced_beta_caps_by_minus_log_q():
    # q_A = 0.5, class all A: gain 1 > −ln 0.5 = 0.69, so no β makes it pass
    stats = stats_of([["A", "A"]], reference=["A", "B"])
    assert BetaLikeness("S", 1).achieved(stats) == pytest.approx(1.0)
    assert BetaLikeness("S", 1).passes(stats).all()
    assert not BetaLikeness("S", 100, enhanced=True).passes(stats).any()
    assert BetaLikeness("S", 1, enhanced=True).achieved(stats) == math.inf


def test_delta_disclosure_worked_example():
    stats = stats_of(ABD, reference=BETA_REF)
    # max over present values |log2(p/q)| = log2(0.25 / 0.1)
    assert DeltaDisclosure("S", 1).achieved(stats) == pytest.approx(math.log2(2.5), abs=1e-12)
    assert DeltaDisclosure("S", 1.33).passes(stats).all()
    assert not DeltaDisclosure("S", 1.3).passes(stats).any()


def test_delta_disclosure_is_strict():
    stats = stats_of([["A", "A"]], reference=["A", "B"])  # log2(1 / 0.5) = 1 exactly
    assert DeltaDisclosure("S", 1).achieved(stats) == 1.0
    assert not DeltaDisclosure("S", 1).passes(stats).any()
    assert DeltaDisclosure("S", 1.000001).passes(stats).all()


def test_delta_disclosure_ignores_absent_values():
    # B absent from the class (p = 0) does not make the ratio infinite
    stats = stats_of([["A", "C"]], reference=["A", "B", "C", "A", "B", "C"])
    assert DeltaDisclosure("S", 1).achieved(stats) == pytest.approx(math.log2(1.5))


# ---------------------------------------------------------------------------- monotonicity flags
@pytest.mark.parametrize(
    ("model", "mono_s", "mono_g"),
    [
        (KAnonymity(2), True, True),
        (DistinctLDiversity("S", 2), True, True),
        (EntropyLDiversity("S", 2), False, True),
        (EntropyLDiversity("S", 2, "grassberger"), False, False),
        (RecursiveCLDiversity("S", 2, 2), False, True),
        (TCloseness("S", 0.2), False, True),
        (TCloseness("S", 0.2, "ordered"), False, True),
        (TCloseness("S", 0.2, "hierarchical"), False, True),
        (BetaLikeness("S", 1), False, True),
        (BetaLikeness("S", 1, enhanced=True), False, True),
        (DeltaDisclosure("S", 1), False, False),
    ],
)
def test_monotonicity_flags(model, mono_s, mono_g):
    """ARX §2.1 Mono(S)/Mono(G), except Grassberger entropy-l (ARX claims Mono(G); it is not monotonic)."""
    assert model.monotonic_suppression is mono_s
    assert model.monotonic_generalization is mono_g


# ---------------------------------------------------------------------------- EMD properties
def _emds(stats: ClassStats, hierarchical: bool) -> dict[str, np.ndarray]:
    out = {d: TCloseness("S", 1, d).emd(stats) for d in ("equal", "ordered")}
    if hierarchical:
        out["hierarchical"] = TCloseness("S", 1, "hierarchical").emd(stats)
    return out


@settings(max_examples=150, deadline=None)
@given(histograms(with_hierarchy=True))
def test_emd_bounds_and_orderings(case):
    hist, ref, h = case
    stats = stats_from_hist(hist, ref, hierarchy=h)
    e = _emds(stats, hierarchical=True)
    for name, v in e.items():
        assert (v >= -EXACT).all() and (v <= 1 + EXACT).all(), name
    assert (e["ordered"] <= e["equal"] + EXACT).all()
    assert (e["hierarchical"] <= e["equal"] + EXACT).all()
    # lower bounds: every ground distance between distinct values is ≥ 1/(m−1) resp. ≥ 1/H
    m = hist.shape[1]
    if m > 1:
        assert (e["ordered"] >= e["equal"] / (m - 1) - EXACT).all()
    assert (e["hierarchical"] >= e["equal"] / h.height - EXACT).all()


@settings(max_examples=100, deadline=None)
@given(histograms(max_classes=1, with_hierarchy=True), st.integers(1, 4))
def test_emd_zero_when_class_equals_reference(case, factor):
    _, ref, h = case
    hist = (ref * factor)[None, :]
    stats = stats_from_hist(hist, ref, hierarchy=h)
    for name, v in _emds(stats, hierarchical=True).items():
        assert v[0] == pytest.approx(0.0, abs=1e-12), name


def test_emd_zero_on_single_valued_domain():
    stats = stats_of([["A", "A"]], reference=["A", "A", "A"])
    assert TCloseness("S", 1, "ordered").emd(stats)[0] == 0.0
    assert TCloseness("S", 1, "equal").emd(stats)[0] == 0.0


# ---------------------------------------------------------------------------- monotonicity: merging classes
def _merging_candidates(stats2: ClassStats, draw) -> list:
    """Models of every kind with the tightest parameter both classes of ``stats2`` satisfy."""
    h = stats2.hist["S"]
    out = [KAnonymity(int(stats2.sizes.min()))]
    out.append(DistinctLDiversity("S", int((h > 0).sum(axis=1).min())))
    l_ent = EntropyLDiversity("S", 1).achieved(stats2) * (1 - 1e-9)
    out.append(EntropyLDiversity("S", max(l_ent, 1e-9)))
    l_g = EntropyLDiversity("S", 1, "grassberger").achieved(stats2) * (1 - 1e-9)
    out.append(EntropyLDiversity("S", max(l_g, 1e-9), "grassberger"))  # flagged non-monotonic: skipped
    d = DeltaDisclosure("S", 1).achieved(stats2)
    out.append(DeltaDisclosure("S", d + 1e-6))  # flagged non-monotonic: skipped
    for d in ("equal", "ordered", "hierarchical"):
        t = TCloseness("S", 1, d).achieved(stats2)
        out.append(TCloseness("S", min(max(t, 1e-9), 1.0), d))
    b = BetaLikeness("S", 1).achieved(stats2)
    out.append(BetaLikeness("S", max(b, 1e-9)))
    out.append(BetaLikeness("S", max(b, 1e-9), enhanced=True))
    l_rec = draw(st.integers(1, 3))
    c = RecursiveCLDiversity("S", 1, l_rec).achieved(stats2)
    if math.isfinite(c):
        out.append(RecursiveCLDiversity("S", c * (1 + 1e-9) + 1e-12, l_rec))
    return out


@settings(max_examples=200, deadline=None)
@given(histograms(min_classes=2, max_classes=2, with_hierarchy=True), st.data())
def test_merging_two_passing_classes_passes_for_monotonic_models(case, data):
    """monotonic_generalization ⇒ the union of two classes that pass also passes."""
    hist, ref, h = case
    two = stats_from_hist(hist, ref, hierarchy=h)
    merged = stats_from_hist(hist.sum(axis=0, keepdims=True), ref, hierarchy=h)
    for m in _merging_candidates(two, data.draw):
        if not m.monotonic_generalization:
            continue
        if not m.passes(two).all():
            continue  # e.g. a threshold the tolerance rounded away
        assert m.passes(merged).all(), (m.describe(), hist.tolist(), ref.tolist())


def test_grassberger_entropy_l_monotonic_flag_is_sound():
    m = EntropyLDiversity("S", 2, "grassberger")
    parts = stats_of([["A", "B"], ["A", "B"]])
    merged = stats_of([["A", "B", "A", "B"]])
    assert m.passes(parts).all()
    assert not m.passes(merged).any()
    # a model whose union of passing classes can fail must not claim monotonicity under generalization
    assert not m.monotonic_generalization
    assert EntropyLDiversity("S", 2).monotonic_generalization  # Shannon is concave


def test_delta_disclosure_is_not_monotonic_under_merging():
    """Justifies monotonic_generalization = False: both classes pass δ = 1.5, their union does not."""
    ref = ["A"] * 4 + ["B"] * 4 + ["C"] * 2  # q = (.4, .4, .2)
    c1, c2 = ["A", "C"], ["A"] * 8 + ["B"] * 8
    m = DeltaDisclosure("S", 1.5)
    assert m.passes(stats_of([c1, c2], reference=ref)).all()
    merged = stats_of([c1 + c2], reference=ref)  # p_C = 1/18: |log2((1/18)/0.2)| = 1.85
    assert m.achieved(merged) == pytest.approx(abs(math.log2((1 / 18) / 0.2)))
    assert not m.passes(merged).any()
