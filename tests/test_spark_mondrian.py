"""Mondrian (strict) on Apache Spark: the same partition, hence the same published rows, as the
single-machine engine (anonkit.engines.spark_mondrian)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonkit import Hierarchy, Schema, Table, anonymize, load_adult
from anonkit._values import cell_text
from anonkit.algorithms.partition.mondrian import mondrian
from anonkit.engines.spark_mondrian import WHOLE_TABLE_FAILS, counted_release, mondrian_on_spark
from anonkit.errors import InputError
from anonkit.metrics import compute_metrics
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark


def rows_of(frame: pd.DataFrame, columns: list[str]) -> list[tuple[str, ...]]:
    """The rows as sorted tuples of canonical cell texts (the published values, order-free)."""
    return sorted(tuple(cell_text(v) for v in row) for row in frame[columns].itertuples(index=False))


def check_same(spark, frame: pd.DataFrame, schema: Schema, models: list, partition_rows: int,
               min_levels: int = 1) -> dict:
    """Spark's published rows and counts equal the local engine's; returns Spark's facts."""
    local = anonymize(frame, schema, models, algorithm="mondrian")
    path = spark.createDataFrame(frame)
    published, facts = mondrian_on_spark(path, schema, models, partition_rows=partition_rows, measures=True)
    got = published.toPandas()
    assert list(got.columns) == list(local.frame.columns)
    assert rows_of(got, list(got.columns)) == rows_of(local.frame, list(got.columns))
    rel = local.release
    assert facts["classes"] == rel.n_classes
    assert facts["partitions"] == rel.notes["partitions"]
    assert facts["released"] == rel.n_released and facts["suppressed"] == rel.n_suppressed
    assert facts["satisfied"] == rel.satisfied
    assert sum(facts["class_sizes"].values()) == facts["partitions"]
    assert facts["top_levels"] >= min_levels
    # the measures: the release of the distinct QI tuples with their records and Spark classes
    counted = counted_release(facts["counted"], facts["schema"], algorithm="mondrian")
    assert len(facts["counted"]) == facts["tuples"] <= len(frame)
    assert (counted.n_released, counted.n_suppressed, counted.n_classes) == (
        rel.n_released, rel.n_suppressed, rel.n_classes)
    want = compute_metrics(rel.table, rel)
    got = compute_metrics(counted.table, counted)
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert np.isclose(got[key], value, rtol=1e-9, atol=0), (key, got[key], value)
    return facts


# ------------------------------------------------------------------------------------------ Adult
ADULT_QI = ["age", "sex", "race", "marital-status", "education", "native-country"]


def test_adult_matches_local(spark):
    frame, hier = load_adult()
    rest = [c for c in frame.columns if c not in ADULT_QI and c != "salary-class"]
    schema = Schema.of(quasi=ADULT_QI, sensitive=["salary-class"], insensitive=rest,
                       hierarchies={q: hier[q] for q in ADULT_QI if q != "age"}, types={"age": "numeric"})
    facts = check_same(spark, frame, schema, [KAnonymity(5), DistinctLDiversity("salary-class", 2)], 12_000,
                       min_levels=2)
    assert facts["largest_group"] <= 12_000 and facts["groups"] > 1


# ------------------------------------------------------------------------------------------ random tables
def zip_hierarchy(zips: list[str]) -> Hierarchy:
    rows = [[z, z[:3] + "**", z[:2] + "***", "*"] for z in zips]
    rows.append(["", "unknown", "unknown", "*"])  # missing: a value of its own
    return Hierarchy(rows, name="zip")


def random_table(seed: int, n: int) -> tuple[pd.DataFrame, Schema]:
    rng = np.random.default_rng(seed)
    zips = sorted({f"{rng.integers(10, 14)}{rng.integers(0, 10)}{rng.integers(0, 10)}{rng.integers(0, 10)}"
                   for _ in range(40)} | {"99999"})  # 99999: in the hierarchy, never in the data
    age = rng.integers(17, 91, n).astype(float)
    age[rng.random(n) < 0.03] = np.nan  # missing: one more value above all
    income = np.round(rng.lognormal(3, 0.6, n), 1)
    data_zips = np.array(zips[:-1], dtype=object)[rng.integers(0, len(zips) - 1, n)]
    data_zips[rng.random(n) < 0.02] = ""
    sex = np.array(["M", "F"], dtype=object)[rng.integers(0, 2, n)]
    sex[rng.random(n) < 0.02] = None
    disease = np.array(["flu", "cold", "hiv", "cancer", "asthma", "ulcer"], dtype=object)[
        rng.choice(6, n, p=[0.3, 0.25, 0.1, 0.1, 0.15, 0.1])]
    score = rng.integers(0, 10, n)
    note = np.array([" a ", "b", "c "], dtype=object)[rng.integers(0, 3, n)]
    frame = pd.DataFrame({"id": np.arange(n).astype(str), "age": age, "zip": data_zips, "sex": sex,
                          "income": income, "disease": disease, "score": score, "note": note})
    schema = Schema.of(quasi=["age", "zip", "sex", "income"], sensitive=["disease", "score"], identifier=["id"],
                       insensitive=["note"], hierarchies={"zip": zip_hierarchy(zips)})
    return frame, schema


@pytest.mark.parametrize(
    ("seed", "models", "partition_rows", "levels"),
    [
        (1, [KAnonymity(5)], 400, 2),
        (2, [KAnonymity(3), DistinctLDiversity("disease", 3)], 600, 1),
        (3, [KAnonymity(4), TCloseness("disease", 0.3), TCloseness("score", 0.25, "ordered")], 500, 1),
        (4, [KAnonymity(2)], 10_000, 0),  # small enough for one group: no level on Spark
    ],
)
def test_random_tables_match_local(spark, seed, models, partition_rows, levels):
    frame, schema = random_table(seed, 2000)
    facts = check_same(spark, frame, schema, models, partition_rows, min_levels=levels)
    assert "id" not in facts["schema"].quasi
    if levels == 0:
        assert facts["top_levels"] == 0 and facts["groups"] == 1


def test_repeated_rows_and_unicode_whitespace(spark):
    """Many records per distinct combination (the engine works on the distinct combinations with
    their counts) and text cells with whitespace beyond ASCII (stripped exactly as ``str.strip``)."""
    frame, schema = random_table(8, 300)
    frame = pd.concat([frame] * 6, ignore_index=True)
    rng = np.random.default_rng(8)
    frame["note"] = np.array(["\u3000a\x1c", "b\xa0", "\u2028c ", " d", "e"], dtype=object)[
        rng.integers(0, 5, len(frame))]
    facts = check_same(spark, frame, schema, [KAnonymity(4), DistinctLDiversity("disease", 2)], 500, min_levels=1)
    assert facts["tuples"] <= 300


def test_whole_table_fails(spark):
    frame, schema = random_table(5, 400)
    models = [KAnonymity(2), DistinctLDiversity("disease", 7)]  # six diseases only
    local = mondrian(Table(frame, schema), models)  # (anonymize refuses it before any algorithm runs)
    assert local.n_classes == 0
    published, facts = mondrian_on_spark(spark.createDataFrame(frame), schema, models, partition_rows=100)
    assert published.count() == 0 and published.columns == list(local.table.frame.columns)
    assert facts["satisfied"] is False and facts["message"] == WHOLE_TABLE_FAILS == local.message
    assert facts["released"] == 0 and facts["suppressed"] == 400 and facts["classes"] == 0


@pytest.mark.parametrize(
    ("option", "words"),
    [({"mode": "relaxed"}, "mode: relaxed"), ({"missing": "suppress"}, "missing: suppress")],
)
def test_refused_options(spark, option, words):
    frame, schema = random_table(6, 50)
    with pytest.raises(InputError, match=words) as err:
        mondrian_on_spark(spark.createDataFrame(frame), schema, [KAnonymity(2)], **option)
    assert "engine: local" in str(err.value) and "\n" not in str(err.value)


def test_subset_model_refused(spark):
    frame, schema = random_table(7, 50)
    with pytest.raises(InputError, match="subset"):
        mondrian_on_spark(spark.createDataFrame(frame), schema, [KAnonymity(2, ("age", "zip"))])
