"""A table whose rows stand for several identical records (``Table(weights=…)``, what the Spark
engine builds from its counts) gives what the table of all the records gives: the lattice
algorithms' optimum, score and suppression, every measure, and the verifier's verdict."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonkit import Schema, Table, load_adult
from anonkit.algorithms import registry
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.hierarchy import Hierarchy
from anonkit.metrics import compute_metrics
from anonkit.models import DistinctLDiversity, EntropyLDiversity, KAnonymity, TCloseness
from anonkit.verifier import verify
from suite_inputs import HOUSEHOLDS, OWN_SUITE_FAMILIES, draw_options, random_table, suite_models

LATTICE = ["flash", "ola", "incognito", "datafly", "lightning"]


def _counted(frame: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The distinct rows of ``frame[columns]`` (in an order unlike the input's) and their counts."""
    grouped = frame[columns].groupby(columns, sort=True, dropna=False).size().reset_index(name="__n")
    grouped = grouped.iloc[::-1].reset_index(drop=True)
    return grouped[columns], grouped["__n"].to_numpy()


def _same_metrics(a: dict, b: dict) -> None:
    """Equal up to the order of floating-point additions (ARX's measures are floored to 10 decimals
    after summing, so a last-digit difference can move the floor by 1e-10)."""
    assert a.keys() == b.keys()
    for key in a:
        assert np.isclose(a[key], b[key], rtol=1e-9, atol=1e-9, equal_nan=True), (key, a[key], b[key])


def _adult(qis: list[str], sensitive: str) -> tuple[pd.DataFrame, Schema]:
    frame, h = load_adult()
    schema = Schema.of(quasi=qis, sensitive=[sensitive], hierarchies={q: h[q] for q in qis})
    return frame[[*qis, sensitive]], schema


@pytest.mark.parametrize("algorithm", LATTICE)
def test_lattice_algorithms_on_counted_adult(algorithm: str) -> None:
    qis = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass"]
    frame, schema = _adult(qis, "occupation")
    keys, counts = _counted(frame, [*qis, "occupation"])
    whole, counted = Table(frame, schema), Table(keys, schema, weights=counts)
    assert counted.n == len(keys) < whole.n == counted.n_records
    spec = registry.get(algorithm)
    for models, share in (([KAnonymity(5)], 0.02),
                          ([KAnonymity(3), TCloseness("occupation", 0.15), EntropyLDiversity("occupation", 2)], 0.05)):
        a, b = spec.run(whole, models, max_suppression=share), spec.run(counted, models, max_suppression=share)
        assert a.transformation == b.transformation
        assert (a.n_suppressed, a.n_released, a.n_classes) == (b.n_suppressed, b.n_released, b.n_classes)
        assert sorted(a.class_sizes()) == sorted(b.class_sizes())
        if a.search is not None:
            assert a.search.score == b.search.score
        _same_metrics(compute_metrics(whole, a), compute_metrics(counted, b))
        # the verifier on counted published rows: the same verdict and achieved values
        va = verify(a.to_frame(seed=1), schema, models, reference=frame)
        rows = b.published_rows(seed=1)
        vb = verify(b.to_frame(seed=1), schema, models, weights=counts[rows], reference=keys,
                    reference_weights=counts)
        assert (va.ok, va.records, va.released, va.suppressed, va.classes) == (
            vb.ok, vb.records, vb.released, vb.suppressed, vb.classes)
        for ra, rb in zip(va.results, vb.results, strict=True):
            assert ra.passed == rb.passed and np.isclose(ra.achieved, rb.achieved, rtol=1e-12)


def _random(seed: int, n: int) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    ages = [str(a) for a in range(20, 36)]
    frame = pd.DataFrame({
        "age": rng.choice(ages, n),
        "zip": rng.choice(["1234", "1235", "1299", "1300", ""], n),  # "" = a missing value
        "sex": rng.choice(["f", "m"], n),
        "disease": rng.choice(["flu", "cold", "cancer", "ulcer"], n, p=[0.4, 0.3, 0.2, 0.1]),
    })
    h_age = Hierarchy([[a, f"{int(a) // 5 * 5}-{int(a) // 5 * 5 + 4}", f"{int(a) // 10 * 10}s", "*"] for a in ages],
                      name="age")
    h_zip = Hierarchy([[z, z[:3] + "*" if z else "?", "*"] for z in ["1234", "1235", "1299", "1300", ""]], name="zip")
    schema = Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], hierarchies={"age": h_age, "zip": h_zip})
    return frame, schema


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 300), k=st.integers(2, 6),
       share=st.sampled_from([0.0, 0.05, 0.2]), algorithm=st.sampled_from(LATTICE),
       diverse=st.booleans(), t=st.sampled_from([None, 0.3, 0.6]))
def test_counted_rows_give_the_same_release_on_random_tables(seed: int, n: int, k: int, share: float, algorithm: str,
                                                              diverse: bool, t: float | None) -> None:
    frame, schema = _random(seed, n)
    keys, counts = _counted(frame, list(frame.columns))
    models: list = [KAnonymity(k)]
    if diverse:
        models.append(DistinctLDiversity("disease", 2))
    if t is not None:
        models.append(TCloseness("disease", t))
    whole, counted = Table(frame, schema), Table(keys, schema, weights=counts)
    spec = registry.get(algorithm)
    a, b = spec.run(whole, models, max_suppression=share), spec.run(counted, models, max_suppression=share)
    assert (a.satisfied, a.transformation, a.n_suppressed, a.n_classes) == (
        b.satisfied, b.transformation, b.n_suppressed, b.n_classes)
    if a.search is not None:
        assert a.search.score == b.search.score or np.allclose(a.search.score, b.search.score, rtol=1e-12)
    _same_metrics(compute_metrics(whole, a), compute_metrics(counted, b))


def test_weights_are_checked() -> None:
    frame, schema = _random(0, 10)
    with pytest.raises(ValueError, match="whole number"):
        Table(frame, schema, weights=np.zeros(10, dtype=np.int64))
    with pytest.raises(ValueError, match="whole number"):
        Table(frame, schema, weights=np.ones(9, dtype=np.int64))
    people = frame.assign(pid=[f"p{i}" for i in range(10)])
    with pytest.raises(InputError, match="person"):
        Table(people, Schema.of(quasi=["age", "zip", "sex"], sensitive=["disease"], person="pid"),
              weights=np.ones(10, dtype=np.int64))
    with pytest.raises(InputError, match="weights"):
        verify(frame, schema, [KAnonymity(2)], weights=np.zeros(10))


@pytest.mark.parametrize("algorithm", ["flash", "mondrian", "mdav"])
def test_the_verifier_counts_identical_rows_to_the_same_verdict(algorithm: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``COUNT_ROWS_ABOVE`` rows the verifier counts identical rows first: the same verdict,
    achieved values and counts as row by row (here forced on Adult releases, marked suppressions too)."""
    import anonkit.verifier as verifier
    from anonkit import anonymize

    qis = ["sex", "age", "race", "education", "workclass"]
    frame, schema = _adult(qis, "occupation")
    models = [KAnonymity(4), DistinctLDiversity("occupation", 2), TCloseness("occupation", 0.3)]
    result = anonymize(frame, schema, models, algorithm=algorithm, seed=1,
                       **({"suppressed": "mark"} if algorithm == "flash" else {}))
    rowwise = verify(result.frame, schema, models, reference=frame)
    monkeypatch.setattr(verifier, "COUNT_ROWS_ABOVE", 0)
    counted = verify(result.frame, schema, models, reference=frame)
    assert rowwise == counted


def _every_algorithm() -> list[str]:
    """Every algorithm whose rows are records (not the synthetic families: :data:`OWN_SUITE_FAMILIES`)."""
    return [name for name, spec in registry.algorithms().items()
            if not spec.persons and spec.family not in OWN_SUITE_FAMILIES]


@pytest.mark.parametrize("algorithm", _every_algorithm())
def test_counted_releases_measure_exactly_alike(algorithm: str) -> None:
    """``Release.counted()`` (what the pipeline measures) gives every measure bit for bit, for every
    algorithm: the sums run over the same terms in the same order."""
    spec = registry.get(algorithm)
    measured = 0
    for seed in range(3):
        frame, schema = random_table(seed, 150 + 50 * seed, households=algorithm in HOUSEHOLDS)
        frame = frame.sample(frac=3, replace=True, random_state=seed).reset_index(drop=True)  # repeated rows
        models = suite_models(spec, 2 + seed % 2, seed % 2 == 0, [None, 0.6][seed % 2])
        params = draw_options(spec, [2, 2], np.random.default_rng(seed))
        table = Table(frame, schema)
        try:
            release = spec.run(table, models, **params, **({"seed": seed} if spec.randomized else {}))
        except (InputError, UnsatisfiableError):
            continue
        counted = release.counted()
        assert counted.table.n_records == table.n and counted.n_suppressed == release.n_suppressed
        a, b = compute_metrics(table, release), compute_metrics(counted.table, counted)
        assert {k: v for k, v in a.items() if v == v} == {k: v for k, v in b.items() if v == v}
        assert [k for k, v in a.items() if v != v] == [k for k, v in b.items() if v != v]  # NaN alike
        measured += 1
    assert measured
