"""Class-level attacks on any published release (anonkit.analytics.class_attacks): homogeneity,
similarity, skewness and background knowledge, on crafted releases with known answers, on anonkit
releases (Flash, Mondrian, Anatomy, angelization), as properties, on Adult, and on bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from anatomy_links import anatomy_link
from anonkit import Hierarchy, InputError, Schema, anonymize
from anonkit.analytics.class_attacks import (
    attack_background_knowledge,
    attack_homogeneity,
    attack_similarity,
    attack_skewness,
    histogram_posterior,
)
from anonkit.analytics.published import (
    PublishedRelease,
    private_rows,
    published_buckets,
    published_release,
    published_table,
)
from anonkit.errors import UnsatisfiableError
from anonkit.knowledge import Priors, kernel_priors
from anonkit.models import DistinctLDiversity, FrequencyLDiversity, KAnonymity
from one_to_many_tables import one_to_many


def table(classes: list[list[str]], name: str = "d", **kwargs: object) -> PublishedRelease:
    """A published table with one class per list (quasi-identifier ``c0``, ``c1``, …)."""
    rows = [(f"c{i}", v) for i, values in enumerate(classes) for v in values]
    frame = pd.DataFrame(rows, columns=["q", name])
    return published_table(frame, quasi=["q"], sensitive=name, **kwargs)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------- homogeneity
def test_homogeneity_known_answer_and_baseline() -> None:
    frame = pd.DataFrame({"q": ["a", "a", "a", "b", "b", "c", "c", "*"],
                          "d": ["flu", "flu", "flu", "flu", "cold", "cancer", "cancer", "hiv"]})
    pub = published_table(frame, quasi=["q"], sensitive="d")
    out = attack_homogeneity(pub)
    assert (out.name, out.successes, out.targets) == ("homogeneity", 5, 7)  # {flu×3}, {cancer×2}; '*' suppressed
    assert (out.baseline_successes, out.baseline_targets) == (4, 7)  # always "flu": right on the 4 flu records
    assert out.details["homogeneous_classes"] == 2 and out.details["classes"] == 3
    assert out.details["values_learned"] == {"flu": 3, "cancer": 2}
    assert out.details["baseline_value"] == "flu"
    assert "quasi-identifiers" in out.note and out.success == pytest.approx(5 / 7)
    json.dumps(out.to_dict())  # JSON-ready


def test_homogeneity_of_a_one_to_many_release_counts_persons() -> None:
    qt = pd.DataFrame({"age": ["[20-30]"] * 2 + ["[40-50]"] * 3, "bucket": [1, 1, 2, 2, 2]})
    st_ = pd.DataFrame({"bucket": [1, 2, 2], "disease": ["Flu", "Flu", "Cancer"], "count": [3, 1, 3]})
    pub = published_buckets(qt, st_, Schema.of(person="person", quasi=["age"], sensitive=["disease"]))
    out = attack_homogeneity(pub)
    assert (out.successes, out.targets) == (2, 5)  # the 2 persons of bucket 1 have only Flu
    assert (out.baseline_successes, out.baseline_targets) == (4, 7)  # over the 7 published values
    assert out.details["unit"] == "person"


# ---------------------------------------------------------------------------------------- similarity
#: spec §1.3's disease hierarchy (height 3)
DISEASE = Hierarchy([
    ["gastric ulcer", "stomach diseases", "digestive diseases", "*"],
    ["gastritis", "stomach diseases", "digestive diseases", "*"],
    ["stomach cancer", "stomach diseases", "digestive diseases", "*"],
    ["colitis", "colon diseases", "digestive diseases", "*"],
    ["colon cancer", "colon diseases", "digestive diseases", "*"],
    ["pulmonary embolism", "vascular lung diseases", "respiratory diseases", "*"],
    ["pulmonary hypertension", "vascular lung diseases", "respiratory diseases", "*"],
    ["flu", "respiratory infection", "respiratory diseases", "*"],
    ["pneumonia", "respiratory infection", "respiratory diseases", "*"],
    ["bronchitis", "respiratory infection", "respiratory diseases", "*"],
], name="disease")


def test_similarity_under_one_hierarchy_node() -> None:
    classes = [
        ["gastric ulcer", "gastritis", "stomach cancer"],  # all stomach diseases (level 1)
        ["gastritis", "colitis"],  # digestive diseases (level 2)
        ["gastritis", "flu", "bronchitis"],  # only the root covers them
        ["flu", "flu"],  # homogeneous (level 0)
        ["pneumonia", "bronchitis"],  # respiratory infection (level 1)
    ]
    pub = table(classes, "disease", hierarchies={"disease": DISEASE})
    out = attack_similarity(pub)
    assert (out.name, out.successes, out.targets) == ("similarity", 9, 12)
    d = out.details
    assert d["basis"] == "hierarchy" and d["effective_root_level"] == 3
    assert d["levels"] == {"0": 2, "1": 5, "2": 2}
    assert d["nodes"] == {"stomach diseases": 3, "digestive diseases": 2, "flu": 2, "respiratory infection": 2}
    assert d["distinct_only"] == 7
    # baseline: the level-2 node holding most values (digestive 6, respiratory 6)
    assert (out.baseline_successes, out.baseline_targets) == (6, 12)
    # the homogeneous class is the only one homogeneity finds
    assert attack_homogeneity(pub).successes == 2


def test_similarity_node_covering_every_published_value_is_not_a_secret() -> None:
    pub = table([["gastritis", "colitis"], ["gastric ulcer", "stomach cancer"]], "disease",
                hierarchies={"disease": DISEASE})
    out = attack_similarity(pub)
    # every published value is digestive: learning "digestive diseases" teaches nothing
    assert out.details["effective_root_level"] == 2
    assert (out.successes, out.targets) == (2, 4) and out.details["nodes"] == {"stomach diseases": 2}
    # baseline: the largest node just below the effective root (stomach: 3 of the 4 values)
    assert (out.baseline_successes, out.baseline_targets) == (3, 4)


def test_similarity_hierarchy_without_a_single_root() -> None:
    two_tops = Hierarchy([["gastritis", "digestive"], ["colitis", "digestive"], ["flu", "respiratory"]],
                         name="disease")
    pub = table([["gastritis", "colitis"], ["gastritis", "flu"]], "disease", hierarchies={"disease": two_tops})
    out = attack_similarity(pub)
    # the top level has two nodes: "digestive" is a secret, and no node covers {gastritis, flu}
    assert out.details["effective_root_level"] == 2 and out.details["nodes"] == {"digestive": 2}
    assert (out.successes, out.targets) == (2, 4) and out.baseline_successes == 3


def test_similarity_numeric_tolerance() -> None:
    classes = [["3", "4", "5"], ["6", "8", "11"], ["7", "7"], ["9", "10"]]
    pub = table(classes, "salary")
    out = attack_similarity(pub)  # tolerance 10 % of the range 3…11: width 0.8
    assert out.details["basis"] == "numeric range" and out.details["domain_range"] == 8.0
    assert (out.successes, out.targets) == (2, 10)  # {7, 7}
    assert (out.baseline_successes, out.baseline_targets) == (2, 10)  # the best window of width 0.8 holds 7, 7
    assert out.details["relative_range"] == {"0": 2, "≤0.25": 5, "≤1": 3}
    assert attack_similarity(pub, tolerance=0.125).successes == 4  # {9, 10}: range 1 = 0.125 · 8
    assert attack_similarity(pub, tolerance=0.25).successes == 7  # {3, 4, 5}: range 2
    assert attack_similarity(pub, tolerance=1.0).successes == 10
    assert attack_similarity(pub, tolerance=0.0).successes == 2


def test_similarity_nominal_without_hierarchy_is_homogeneity() -> None:
    pub = table([["a", "a"], ["a", "b"], ["c"]])
    sim, hom = attack_similarity(pub), attack_homogeneity(pub)
    assert (sim.successes, sim.targets) == (hom.successes, hom.targets) == (3, 5)
    assert sim.details["basis"].startswith("no hierarchy")


# ---------------------------------------------------------------------------------------- skewness
def test_skewness_known_answer() -> None:
    classes = [["pos", "pos", "neg", "neg"]] + [["neg"] * 4 for _ in range(24)]  # 2 % positive overall
    pub = table(classes)
    out = attack_skewness(pub)
    assert (out.name, out.successes, out.targets) == ("skewness", 4, 100)
    assert out.baseline is None
    d = out.details
    assert d["skewed_classes"] == 1 and d["values"] == {"pos": 4} and d["holding"] == 2
    # equal-distance EMD: ½(|.5 − .02| + |.5 − .98|) = .48 for the skewed class, .02 for the others
    assert d["emd"]["equal"]["max"] == pytest.approx(0.48)
    assert d["emd"]["equal"]["mean"] == pytest.approx((4 * 0.48 + 96 * 0.02) / 100)
    assert attack_skewness(pub, factor=25).successes == 4  # 0.5 ≥ 25 · 0.02
    assert attack_skewness(pub, factor=26).successes == 0
    assert attack_skewness(pub, min_share=0.6).successes == 0
    # against the input's distribution (50 % positive) nothing is skewed
    ref = {"d": ["pos"] * 50 + ["neg"] * 50}
    assert attack_skewness(table(classes, reference=ref)).successes == 0


def test_skewness_reports_ordered_and_hierarchical_emd() -> None:
    num = attack_skewness(table([["3", "4", "5"], ["6", "8", "11"], ["7", "9", "10"]], "salary"))
    # spec §1.3: ordered EMD 3/8 for {3k, 4k, 5k}, 1/6 for {6k, 8k, 11k}; {7k, 9k, 10k}: 17/72 by hand
    assert num.details["emd"]["ordered"]["max"] == pytest.approx(3 / 8)
    assert num.details["emd"]["ordered"]["mean"] == pytest.approx((3 / 8 + 1 / 6 + 17 / 72) / 3)
    assert num.details["emd"]["equal"]["max"] == pytest.approx(2 / 3)
    sick = table([["gastric ulcer", "gastritis", "stomach cancer"], ["gastritis", "flu", "bronchitis"],
                  ["gastritis", "bronchitis", "pneumonia"]], "disease", hierarchies={"disease": DISEASE})
    out = attack_skewness(sick)
    assert "hierarchical" in out.details["emd"] and "ordered" not in out.details["emd"]
    assert 0 < out.details["emd"]["hierarchical"]["max"] <= out.details["emd"]["equal"]["max"]


# ---------------------------------------------------------------------------------------- background knowledge
def test_posterior_reweight_and_omega() -> None:
    hist = np.array([[1.0, 1.0], [1.0, 1.0]])
    prior = np.array([[0.9, 0.1], [0.5, 0.5]])
    np.testing.assert_allclose(histogram_posterior(hist, prior), prior)
    omega = histogram_posterior(hist, prior, method="omega", groups=[0, 0])
    np.testing.assert_allclose(omega, [[0.794, 0.206], [0.3, 0.7]], atol=1e-3)  # spec §1.7's example
    # a prior that rules out every published value falls back to the histogram
    np.testing.assert_allclose(histogram_posterior([[3.0, 1.0, 0.0]], [[0.0, 0.0, 1.0]]), [[0.75, 0.25, 0.0]])
    with pytest.raises(InputError, match=r"groups"):
        histogram_posterior(hist, prior, method="omega")


def test_background_knowledge_known_answer() -> None:
    # two records in one class {L, H}; the attacker's priors (.9, .1) and (.5, .5) over (H, L) sorted
    frame = pd.DataFrame({"q": ["x", "x"], "s": ["H", "L"]})
    pub = published_table(frame, quasi=["q"], sensitive="s")
    source = pd.DataFrame({"s": ["L", "H"]})  # input order differs from the published order
    rows = np.array([1, 0])  # published row 0 (H) is input record 1
    prior = np.array([[0.1, 0.9], [0.5, 0.5]])  # input-aligned, columns H, L: record 0 holds L, record 1 H
    out = attack_background_knowledge(pub, prior, rows=rows, source=source)
    # reweight: record 0 → L with 0.9 (breached), record 1 → H with 0.5
    assert (out.name, out.successes, out.targets) == ("background-knowledge", 1, 2)
    assert (out.baseline_successes, out.baseline_targets) == (1, 2)  # the prior alone already gives 0.9
    assert out.details["mean_posterior"] == pytest.approx(0.7)
    omega = attack_background_knowledge(pub, prior, rows=rows, source=source, method="omega")
    assert omega.successes == 0  # Ω: 0.794 for L, 0.7 for H
    assert attack_background_knowledge(pub, prior, rows=rows, source=source, threshold=0.5).successes == 2
    # the same priors aligned with the published rows, with explicit labels in another order
    by_row = np.array([[0.5, 0.5], [0.9, 0.1]])  # columns L, H
    same = attack_background_knowledge(pub, by_row, rows=rows, source=source, aligned="release", labels=["L", "H"])
    assert (same.successes, same.details["mean_posterior"]) == (1, pytest.approx(0.7))


def test_background_knowledge_skips_unlinked_rows_and_suppressed() -> None:
    frame = pd.DataFrame({"q": ["x", "x", "*", "y"], "s": ["a", "a", "b", "b"]})
    pub = published_table(frame, quasi=["q"], sensitive="s")
    source = ["a", "a", "b", "b"]
    uniform = np.full((4, 2), 0.5)
    out = attack_background_knowledge(pub, uniform, rows=[0, 1, 2, -1], source=source)
    assert (out.successes, out.targets) == (2, 2)  # class x is homogeneous; row 2 suppressed, row 3 unlinked
    assert out.details["unlinked_rows"] == 1 and out.baseline_successes == 0


# ---------------------------------------------------------------------------------------- anonkit releases
DISEASE_H = Hierarchy([[d, "respiratory" if d in ("flu", "cold") else "other", "*"]
                       for d in ["cancer", "cold", "flu", "gastritis", "hiv"]], name="disease")


def small_frame(n: int, seed: int) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 60, n)
    # disease depends on age: classes of a fine generalization are skewed and similar
    young = rng.choice(["flu", "cold", "hiv"], n, p=[0.5, 0.4, 0.1])
    old = rng.choice(["cancer", "gastritis", "flu"], n, p=[0.5, 0.3, 0.2])
    frame = pd.DataFrame({"age": age.astype(str), "sex": rng.choice(["F", "M"], n),
                          "disease": np.where(age < 40, young, old)})
    h_age = Hierarchy([[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}s", "*"] for a in range(20, 60)],
                      name="age")
    schema = Schema.of(quasi=["age", "sex"], sensitive=["disease"], hierarchies={"age": h_age, "disease": DISEASE_H},
                       types={"age": "numeric"})
    return frame, schema


def expected_rates(record_class: np.ndarray, values: np.ndarray, targets: np.ndarray) -> dict[str, float]:
    """Homogeneity and uniform-prior breach share, computed from the input and the private classes with
    pandas (independently of the published text): ``record_class``/``values`` per input record (every
    record of a class, history included), ``targets`` the input record standing for each target."""
    kept = record_class >= 0
    frame = pd.DataFrame({"c": record_class[kept], "v": values[kept]})
    distinct = frame.groupby("c")["v"].nunique()
    share = frame.groupby(["c", "v"]).size() / frame.groupby("c").size()
    t = pd.DataFrame({"c": record_class[targets], "v": values[targets]})
    hom = t["c"].map(distinct).eq(1).mean()
    post = share.reindex(pd.MultiIndex.from_frame(t)).to_numpy()
    return {"homogeneity": float(hom), "breach": float((post >= 0.8 - 1e-12).mean())}


def uniform(n: int, s: int) -> np.ndarray:
    return np.full((n, s), 1.0 / s)


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_attacks_on_one_table_releases(algorithm: str) -> None:
    frame, schema = small_frame(300, seed=2)
    rel = anonymize(frame, schema, [KAnonymity(4)], algorithm=algorithm, seed=1).release
    pub = published_release(rel, seed=1)
    rows = private_rows(rel, seed=1)
    assert rows is not None
    values = frame["disease"].to_numpy()
    want = expected_rates(rel.record_class, values, rows)
    hom = attack_homogeneity(pub)
    assert hom.success == pytest.approx(want["homogeneity"]) and hom.targets == rel.n_released
    s = len(rel.table.domains["disease"].labels)
    bk = attack_background_knowledge(pub, uniform(len(frame), s), rows=rows, source=frame)
    assert bk.success == pytest.approx(want["breach"]) and bk.baseline_successes == 0
    sim = attack_similarity(pub)
    assert sim.details["basis"] == "hierarchy" and sim.successes >= hom.successes
    skew = attack_skewness(pub)
    assert 0 <= skew.success <= 1 and skew.details["emd"]["hierarchical"]["max"] <= skew.details["emd"]["equal"]["max"]
    # kernel priors from the input: an informed attacker does at least as well on this age-driven data
    informed = attack_background_knowledge(pub, kernel_priors(rel.table, "disease"), rows=rows, source=frame)
    assert informed.details["mean_jsd"] > 0 and 0 <= informed.success <= 1


def test_fine_local_recoding_is_more_exposed_than_a_coarse_generalization() -> None:
    frame, schema = small_frame(400, seed=3)
    fine = published_release(anonymize(frame, schema, [KAnonymity(3)], algorithm="mondrian").release)
    coarse = published_release(anonymize(frame, schema, [KAnonymity(3)], algorithm="fixed",
                                         levels=[3, 0]).release)  # age "*": one class per sex
    assert coarse.n_classes == 2
    assert attack_similarity(coarse).successes == 0 < attack_similarity(fine).successes
    assert attack_skewness(coarse).successes == 0 < attack_skewness(fine).successes


def test_attacks_on_anatomy() -> None:
    frame, schema = small_frame(300, seed=4)
    frame = frame.assign(disease=np.random.default_rng(0).choice(["flu", "cold", "hiv", "cancer", "gastritis"], 300))
    rel = anonymize(frame, schema, [DistinctLDiversity("disease", 3)], algorithm="anatomy", seed=2).release
    pub = published_release(rel)
    link = anatomy_link(rel, 2)
    assert attack_homogeneity(pub).successes == 0  # every group holds l = 3 distinct values
    assert attack_skewness(pub, min_share=0.34, factor=1.0).successes == 0  # no value above 1/3 of a group
    out = attack_background_knowledge(pub, uniform(len(frame), 5), rows=link, source=frame, threshold=0.34)
    assert out.successes == 0 and out.targets == rel.n_released
    assert out.details["max_posterior"] <= 1 / 3 + 1e-12
    # the same attack, the attacker's priors concentrated on the truth: breached everywhere
    codes = pd.Index(rel.table.domains["disease"].labels).get_indexer(frame["disease"])
    sure = np.eye(5)[codes] * 0.99 + 0.002
    assert attack_background_knowledge(pub, sure, rows=link, source=frame).success == 1.0


def test_attacks_on_angelization() -> None:
    frame, schema = one_to_many(5, 60)
    rel = anonymize(frame, schema, [KAnonymity(3)], algorithm="angelization", seed=6).release
    pub = published_release(rel)
    rows = private_rows(rel)
    assert rows is not None and pub.unit == "person"
    values = frame["disease"].to_numpy()
    want = expected_rates(rel.record_class, values, rows)  # every record's value counts (history)
    hom = attack_homogeneity(pub)
    assert hom.success == pytest.approx(want["homogeneity"]) and hom.targets == frame["person"].nunique()
    s = len(pub.domain().labels)
    bk = attack_background_knowledge(pub, uniform(len(frame), s), rows=rows, source=frame)
    assert bk.success == pytest.approx(want["breach"]) and bk.details["unit"] == "person"
    for attack in (attack_similarity, attack_skewness):
        out = attack(pub)
        assert out.targets == hom.targets and 0 <= out.success <= 1


def test_noise_repaired_angelization_leaves_fakes_unattacked() -> None:
    frame, schema = one_to_many(8, 30)
    rel = anonymize(frame, schema, [KAnonymity(3)], algorithm="angelization", seed=2, repair="noise",
                    **{"lambda": 0.9}).release
    rows = private_rows(rel)
    assert rows is not None
    fakes = int((rows < 0).sum())
    pub = published_release(rel)
    out = attack_background_knowledge(pub, uniform(len(frame), len(pub.domain().labels)), rows=rows, source=frame)
    assert out.details["unlinked_rows"] == fakes and out.targets == pub.n_rows - fakes
    assert attack_homogeneity(pub).targets == pub.n_rows  # the attacker cannot tell the fakes


# ---------------------------------------------------------------------------------------- properties
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    classes=st.lists(st.lists(st.sampled_from("abcd"), min_size=1, max_size=6), min_size=1, max_size=8),
    suppressed=st.integers(0, 3),
)
def test_rates_are_shares_and_match_an_independent_count(classes: list[list[str]], suppressed: int) -> None:
    frame = pd.DataFrame([(f"c{i}", v) for i, vs in enumerate(classes) for v in vs] + [("*", "a")] * suppressed,
                         columns=["q", "d"])
    pub = published_table(frame, quasi=["q"], sensitive="d")
    outs = [attack_homogeneity(pub), attack_similarity(pub), attack_skewness(pub)]
    for out in outs:
        assert 0 <= out.success <= 1 and out.targets == len(frame) - suppressed
        assert out.baseline is None or 0 <= out.baseline <= 1
        json.dumps(out.to_dict())
    hom = sum(len(vs) for vs in classes if len(set(vs)) == 1)
    assert outs[0].successes == hom == outs[1].successes  # nominal, no hierarchy: similarity = homogeneity
    # uniform priors: the posterior of the truth is the class share of the value
    n = len(frame)
    rows = np.arange(n)
    bk = attack_background_knowledge(pub, np.full((n, 4), 0.25), rows=rows, source=frame, labels=list("abcd"))
    breached = sum(sum(vs.count(v) / len(vs) >= 0.8 for v in vs) for vs in classes)
    assert bk.successes == breached and bk.baseline_successes == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(12, 60), l=st.integers(2, 3), k=st.integers(2, 5))
def test_diverse_releases_resist(seed: int, n: int, l: int, k: int) -> None:  # noqa: E741
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 40, n).astype(str), "d": rng.choice(list("abcde"), n)})
    schema = Schema.of(quasi=["age"], sensitive=["d"], types={"age": "numeric"})
    try:
        res = anonymize(frame, schema, [KAnonymity(k), FrequencyLDiversity("d", l)], algorithm="mondrian")
    except UnsatisfiableError:
        assume(False)
        return
    rel = res.release
    pub = published_release(rel)
    assert attack_homogeneity(pub).successes == 0  # distinct l ≥ 2 in every class
    assert (pub.sizes >= k).all()
    rows = private_rows(rel)
    out = attack_background_knowledge(pub, np.full((n, len(pub.domain().labels)), 1 / len(pub.domain().labels)),
                                      rows=rows, source=frame)
    # no value above 1/l of a class: a uniform-prior attacker's posterior stays ≤ 1/l, never a breach
    assert out.details["max_posterior"] <= 1 / l + 1e-9 and out.successes == 0
    assert out.details["mean_posterior"] >= 1 / pub.sizes.max() - 1e-9  # k-anonymous: ≥ 1/|class|


# ---------------------------------------------------------------------------------------- Adult
@pytest.fixture(scope="module")
def adult_release() -> tuple:
    from anonkit.datasets import load_adult

    frame, h = load_adult()
    qi = ["age", "sex", "race", "marital-status", "education"]
    frame = frame[[*qi, "occupation"]]
    schema = Schema.of(quasi=qi, sensitive=["occupation"], hierarchies={**{q: h[q] for q in qi},
                                                                      "occupation": h["occupation"]},
                       types={"age": "numeric"})
    return frame, anonymize(frame, schema, [KAnonymity(5)], algorithm="mondrian").release


def test_adult_each_attack(adult_release: tuple) -> None:
    frame, rel = adult_release
    pub = published_release(rel)
    rows = private_rows(rel)
    priors = Priors(np.full((1, 14), 1 / 14), np.zeros(len(frame), dtype=np.int64),
                    np.asarray(rel.table.domains["occupation"].labels), "occupation")
    runs = {
        "homogeneity": lambda: attack_homogeneity(pub),
        "similarity": lambda: attack_similarity(pub),
        "skewness": lambda: attack_skewness(pub),
        "background-knowledge": lambda: attack_background_knowledge(pub, priors, rows=rows, source=frame),
    }
    for name, run in runs.items():
        out = run()
        assert out.targets == 30162 and 0 <= out.success <= 1, name


# ---------------------------------------------------------------------------------------- bad input
def test_bad_input() -> None:
    pub = table([["a", "b"], ["a", "a"]])
    source = ["a", "b", "a", "a"]
    ok = np.full((4, 2), 0.5)
    with pytest.raises(InputError, match=r"not a sensitive attribute.*'x'"):
        attack_homogeneity(pub, "x")
    with pytest.raises(InputError, match=r"tolerance must lie in"):
        attack_similarity(pub, tolerance=1.5)
    with pytest.raises(InputError, match=r"min_share must lie in"):
        attack_skewness(pub, min_share=0)
    with pytest.raises(InputError, match=r"factor must lie in"):
        attack_skewness(pub, factor=-1)
    with pytest.raises(InputError, match=r"threshold must lie in"):
        attack_background_knowledge(pub, ok, rows=np.arange(4), source=source, threshold=0)
    with pytest.raises(InputError, match=r"not applicable"):
        attack_background_knowledge(pub, ok, rows=None, source=source)
    with pytest.raises(InputError, match=r"one input row per published row: 4 expected"):
        attack_background_knowledge(pub, ok, rows=[0, 1], source=source)
    with pytest.raises(InputError, match=r"whole row positions"):
        attack_background_knowledge(pub, ok, rows=np.arange(4.0), source=source)
    with pytest.raises(InputError, match=r"outside the input.*value 7.*row 3"):
        attack_background_knowledge(pub, ok, rows=[0, 1, 7, 2], source=source)
    with pytest.raises(InputError, match=r"same input record.*value 1"):
        attack_background_knowledge(pub, ok, rows=[0, 1, 1, 2], source=source)
    with pytest.raises(InputError, match=r"expected \(4, 2\), got \(4, 3\)"):
        attack_background_knowledge(pub, np.ones((4, 3)), rows=np.arange(4), source=source)
    with pytest.raises(InputError, match=r"non-negative.*row 2"):
        attack_background_knowledge(pub, [[1, 0], [-1, 2], [1, 0], [1, 0]], rows=np.arange(4), source=source)
    with pytest.raises(InputError, match=r"published sensitive value is not among the priors' labels.*'b'"):
        attack_background_knowledge(pub, ok, rows=np.arange(4), source=source, labels=["a", "c"])
    with pytest.raises(InputError, match=r"input sensitive value is not among.*'z'.*row 2"):
        attack_background_knowledge(pub, ok, rows=np.arange(4), source=["a", "z", "a", "a"], labels=["a", "b"])
    with pytest.raises(InputError, match=r"unknown posterior method"):
        attack_background_knowledge(pub, ok, rows=np.arange(4), source=source, method="bayes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"input lacks the sensitive attribute.*'d'"):
        attack_background_knowledge(pub, ok, rows=np.arange(4), source=pd.DataFrame({"e": source}))
    other = Priors(ok, np.arange(4), np.array(["a", "b"], dtype=object), "salary")
    with pytest.raises(InputError, match=r"about 'salary'"):
        attack_background_knowledge(pub, other, rows=np.arange(4), source=source)
