"""Stack and Deal (spec §4.8) and paper E's experiment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import InputError, Schema, Table, anonymize, verify
from anonkit.algorithms import get_algorithm
from anonkit.algorithms.bucket.stack_and_deal import deal, stack_and_deal, stack_order
from anonkit.experiments import stack_and_deal as experiment
from anonkit.models import BetaLikeness, DistinctLDiversity, KAnonymity, TCloseness
from anonkit.stats import class_stats
from support import bucket_table


def _table(sa: list[str], *, seed: int = 0, presuppress: int = 0) -> Table:
    return bucket_table(sa, seed=seed, presuppress=presuppress)


def _classes(rel, sa: list[str]) -> list[list[str]]:
    values = np.array(sa, dtype=object)
    return [sorted(values[rel.record_class == c]) for c in range(rel.n_classes)]


# ---------------------------------------------------------------------------------------- worked example
def test_worked_example() -> None:
    sa = list("AAAABBBCCD")
    table = _table(sa)
    rel = stack_and_deal(table, [KAnonymity(3)])
    assert rel.satisfied
    assert rel.params["k"] == 3
    assert _classes(rel, sa) == [list("AABD"), list("ABC"), list("ABC")]
    assert rel.notes["distinct_l"] == 3
    assert rel.notes["max_emd"] == pytest.approx(0.25, abs=1e-12)
    assert rel.notes["max_beta"] == pytest.approx(1.5, abs=1e-12)
    # per-class EMD 1/4, 1/6, 1/6 and β of EC1 through the models themselves
    rc = rel.record_class
    stats = class_stats(
        rc, rel.n_classes, None, {"disease": (np.arange(10), table.sensitive_codes["disease"], None)}, table.domains
    )
    emd = TCloseness("disease", 1.0).emd(stats)
    assert emd == pytest.approx([0.25, 1 / 6, 1 / 6], abs=1e-12)
    assert BetaLikeness("disease", 10.0).achieved(stats.subset(np.array([0]))) == pytest.approx(1.5)
    assert 0.0 <= rel.notes["ncp"] <= 1.0


def test_ncp_of_the_worked_example() -> None:
    # ages 20..29 dealt into {20,23,26,29}, {21,24,27}, {22,25,28}; zip 1/2 mixed everywhere
    frame = pd.DataFrame({"age": [str(20 + i) for i in range(10)], "zip": ["1", "2"] * 5, "d": list("AAAABBBCCD")})
    table = Table(frame, Schema.of(quasi=["age", "zip"], sensitive=["d"], types={"age": "numeric"}))
    rel = stack_and_deal(table, [KAnonymity(3)])
    assert rel.class_bounds["age"].tolist() == [[20, 29], [21, 27], [22, 28]]
    # GCP = (4·(9/9 + 1) + 3·(6/9 + 1) + 3·(6/9 + 1)) / (2·10)
    assert rel.notes["ncp"] == pytest.approx(0.9)


def test_registry_and_pipeline() -> None:
    assert get_algorithm("stack-and-deal") is stack_and_deal
    sa = list("AAAABBBCCD") * 3
    frame = pd.DataFrame({"zip": [f"12{i % 7}" for i in range(30)], "disease": sa})
    schema = Schema.of(quasi=["zip"], sensitive=["disease"])
    result = anonymize(frame, schema, [KAnonymity(3), DistinctLDiversity("disease", 2)], algorithm="stack-and-deal")
    assert result.verification.ok
    assert result.release.n_suppressed == 0
    assert result.release.class_sizes().min() >= 3


def test_k_parameter_and_default() -> None:
    sa = list("AAAABBBCCD")
    assert stack_and_deal(_table(sa), [], k=5).n_classes == 2
    assert stack_and_deal(_table(sa), [KAnonymity(2), KAnonymity(5)]).n_classes == 2  # the largest k
    assert stack_and_deal(_table(sa), []).params["k"] == 5  # spec §6 default
    with pytest.raises(InputError, match="stack-and-deal option 'k'"):
        stack_and_deal(_table(sa), [], k=0)


def test_fewer_records_than_k() -> None:
    rel = stack_and_deal(_table(list("ABC")), [KAnonymity(4)])
    assert rel.n_classes == 0
    assert rel.n_suppressed == 3
    assert not rel.satisfied
    assert rel.notes["classes_dealt"] == 0
    assert rel.notes["distinct_l"] == 0


def test_single_value() -> None:
    rel = stack_and_deal(_table(["flu"] * 7), [KAnonymity(2)])
    assert rel.n_classes == 3
    assert rel.notes["distinct_l"] == 1
    assert rel.notes["max_emd"] == 0.0


def test_ties_by_value_order_then_id() -> None:
    # equal frequencies: values in domain order (A, B, C), records of a value by id
    sa = ["C", "B", "A", "C", "B", "A"]
    order = stack_order(np.array([2, 1, 0, 2, 1, 0]))
    assert order.tolist() == [2, 5, 1, 4, 0, 3]
    rel = stack_and_deal(_table(sa), [KAnonymity(2)])
    assert sorted(_classes(rel, sa)) == [["A", "B"], ["A", "C"], ["B", "C"]]
    rc = rel.record_class
    assert rc[2] == rc[4] and rc[5] == rc[0] and rc[1] == rc[3]  # stack A2 A5 B1 B4 C0 C3 dealt mod 3


def test_sensitive_argument() -> None:
    frame = pd.DataFrame({"q": list("xyxyxyxy"), "s1": list("aabbccdd"), "s2": list("ppppqqqq")})
    table = Table(frame, Schema.of(quasi=["q"], sensitive=["s1", "s2"]))
    assert stack_and_deal(table, [], k=2).params["sensitive"] == "s1"
    rel = stack_and_deal(table, [], k=2, sensitive="s2")
    assert rel.notes["distinct_l"] == 2
    with pytest.raises(InputError, match="not a sensitive attribute"):
        stack_and_deal(table, [], k=2, sensitive="q")
    with pytest.raises(InputError, match="needs a sensitive attribute"):
        stack_and_deal(Table(frame, Schema.of(quasi=["q"], default_role="insensitive")), [], k=2)


def test_presuppressed_records_are_not_dealt() -> None:
    sa = list("AAAABBBCCDAB")
    rel = stack_and_deal(_table(sa, presuppress=2), [KAnonymity(3)])
    assert (rel.record_class[:2] == -1).all()
    assert rel.satisfied
    assert sorted(rel.class_sizes().tolist()) == [3, 3, 4]


def test_failing_classes_are_suppressed() -> None:
    sa = list("AAAABBBCCD")
    models = [KAnonymity(3), TCloseness("disease", 0.2)]  # EMDs 1/4, 1/6, 1/6: EC1 fails
    rel = stack_and_deal(_table(sa), models)
    assert _classes(rel, sa) == [list("ABC"), list("ABC")]
    assert rel.n_suppressed == 4 and not rel.satisfied
    assert rel.notes["max_emd"] == pytest.approx(1 / 6)
    assert stack_and_deal(_table(sa), models, max_suppression=0.4).satisfied


# ---------------------------------------------------------------------------------------- properties
@pytest.mark.parametrize("seed", range(25))
def test_properties_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    m = int(rng.integers(1, 8))
    weights = rng.dirichlet(np.ones(m))
    sa = [f"v{x}" for x in rng.choice(m, n, p=weights)]
    k = int(rng.integers(1, 12))
    table = _table(sa, seed=seed)
    rel = stack_and_deal(table, [KAnonymity(k)])
    r, e = n, n // k
    assert rel.notes["classes_dealt"] == e
    if e == 0:
        assert rel.n_classes == 0 and not rel.satisfied
        return
    # every record in exactly one dealt class, sizes ⌊r/e⌋..⌈r/e⌉ (the release merges dealt classes
    # that publish identical values: they are one equivalence class to an adversary)
    assert (rel.record_class >= 0).all()
    codes = table.sensitive_codes["disease"]
    dealt, _ = deal(codes, k)
    sizes = np.bincount(dealt)
    assert sizes.sum() == n
    assert sizes.min() >= r // e and sizes.max() <= -(-r // e)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    # per-value counts across dealt classes differ by at most one
    hist = np.zeros((e, table.domains["disease"].size), dtype=int)
    np.add.at(hist, (dealt, codes), 1)
    assert (hist.max(axis=0) - hist.min(axis=0) <= 1).all()
    freq = np.bincount(codes)
    assert rel.notes["distinct_l"] >= int((freq >= e).sum())
    assert rel.notes["distinct_l"] == int(np.count_nonzero(hist, axis=1).min())
    # the same partition as the core dealing, and the release verifies
    core, _ = deal(codes, k)
    assert pd.crosstab(core, rel.record_class).to_numpy().astype(bool).sum(axis=1).max() == 1
    assert verify(rel.to_frame(seed=seed), table.schema, [KAnonymity(k)]).ok
    # deterministic
    again = stack_and_deal(table, [KAnonymity(k)])
    assert np.array_equal(again.record_class, rel.record_class)


# ---------------------------------------------------------------------------------------- experiment
def test_experiment_tiny_profile(tmp_path) -> None:
    df = experiment.run([5, 4, 3, 2], ks=(2, 3, 4, 20), seeds=3, out_dir=tmp_path)
    assert df["k"].tolist() == [2, 3, 4]  # k = 20 > r leaves no class
    assert list(df.columns) == experiment.COLUMNS
    assert (df["sd_distinct_l"] >= 1).all()
    csv = tmp_path / "stack_and_deal_profile.csv"
    png = tmp_path / "stack_and_deal_profile.png"
    assert csv.stat().st_size > 0 and png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    back = pd.read_csv(csv)
    assert back["sd_max_emd"].to_numpy() == pytest.approx(df["sd_max_emd"].to_numpy())
    assert "paper" in df.attrs["summary"]
    again = experiment.run([5, 4, 3, 2], ks=(2, 3, 4), seeds=3)
    pd.testing.assert_frame_equal(again, df)  # seeded


def test_experiment_paper_profile_findings() -> None:
    df = experiment.run(ks=range(2, 21), seeds=2)
    row = df.set_index("k")
    # every class holds all 6 values from k = 9 on (e = 81 ≤ 89), not before
    assert row.loc[9, "sd_distinct_l"] == 6 and row.loc[8, "sd_distinct_l"] == 5
    assert (row["sd_max_emd"] < row["random_max_emd"]).all()
    assert row.loc[20, "sd_max_emd"] < row.loc[2, "sd_max_emd"]


def test_experiment_user_table_and_cli(tmp_path) -> None:
    path = tmp_path / "mine.csv"
    dx = list("aaaaaaaaaabbbbbbbbcccccccddddddeeeeefffa")
    pd.DataFrame({"age": [str(i) for i in range(40)], "dx": dx}).to_csv(path, index=False)
    text = experiment.cli_run(str(path), "dx", str(tmp_path / "out"))
    assert "mine (dx)" in text and "paper" in text
    assert (tmp_path / "out" / "stack_and_deal_mine.png").stat().st_size > 0
    with pytest.raises(InputError, match="sensitive"):
        experiment.cli_run(str(path), None, str(tmp_path / "out"))
    with pytest.raises(InputError, match="unknown sensitive column"):
        experiment.cli_run(str(path), "nope", str(tmp_path / "out"))
    # a Table input gives the same figures as its frame
    frame = pd.read_csv(path, dtype=str)
    table = Table(frame, Schema.of(quasi=["age"], sensitive=["dx"]))
    a = experiment.run(table, ks=(2, 5), seeds=2)
    b = experiment.run(frame, sensitive="dx", ks=(2, 5), seeds=2)
    pd.testing.assert_frame_equal(a, b)
    assert experiment.main(["--data", str(path), "--sensitive", "dx", "--out", str(tmp_path / "o2")]) == 0
