"""The Spark engine (``engine: spark``) against the local engine, in ``local[2]`` mode: the same
optimum, score, suppressed count, classes and (after sorting) the same published rows for every
lattice algorithm; a Spark-written release verified; the refusals."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from anonkit import Schema, anonymize, load_adult
from anonkit.config import parse_config
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.hierarchy import Hierarchy
from anonkit.models import DistinctLDiversity, KAnonymity, TCloseness
from anonkit.pipeline import run_config
from anonkit.verifier import verify

pytestmark = pytest.mark.spark

LATTICE = ["flash", "ola", "incognito", "datafly", "lightning"]
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


@pytest.fixture(scope="module")
def adult() -> tuple[pd.DataFrame, Schema]:
    frame, h = load_adult()
    return frame, Schema.of(quasi=QIS, sensitive=["salary-class"], hierarchies={q: h[q] for q in QIS})


def _engine(spark):  # type: ignore[no-untyped-def]
    from anonkit.engines.spark import SparkEngine

    return SparkEngine(spark)


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    text = frame.astype(str)
    return text.sort_values(list(text.columns)).reset_index(drop=True)


def _same_summary(a: dict, b: dict) -> None:
    for key in ("records", "released", "suppressed", "classes", "min_class_size", "transformation", "lattice",
                "generalization", "verification", "satisfied", "verified"):
        assert repr(a.get(key)) == repr(b.get(key)), key  # repr: NaN equals NaN
    assert np.allclose(a["score"], b["score"], rtol=1e-12)
    for key, value in a["metrics"].items():
        assert np.isclose(value, b["metrics"][key], rtol=1e-9, atol=1e-9), key


@pytest.fixture(scope="module")
def adult_spark(spark, adult):  # type: ignore[no-untyped-def]
    return spark.createDataFrame(adult[0]).cache()


CASES = {"k": ([KAnonymity(5)], 0.0),
         "k-l-t": ([KAnonymity(5), DistinctLDiversity("salary-class", 2), TCloseness("salary-class", 0.2)], 0.02)}


@pytest.mark.parametrize(("algorithm", "case"), [("flash", "k"), ("flash", "k-l-t"), ("ola", "k-l-t"),
                                                 ("incognito", "k"), ("datafly", "k-l-t"), ("lightning", "k-l-t")])
def test_every_lattice_algorithm_gives_the_local_release_on_adult(spark, adult, adult_spark, algorithm: str,  # type: ignore[no-untyped-def]
                                                                  case: str) -> None:
    frame, schema = adult
    sdf = adult_spark
    for models, share in [CASES[case]]:
        local = anonymize(frame, schema, models, algorithm=algorithm, max_suppression=share, seed=3)
        distributed = anonymize(sdf, schema, models, algorithm=algorithm, max_suppression=share, seed=3,
                                engine=_engine(spark))
        _same_summary(local.summary, distributed.summary)
        published = distributed.frame.toPandas()
        assert list(published.columns) == list(local.frame.columns)
        assert _sorted(published).equals(_sorted(local.frame))
        v, w = local.verification, distributed.verification
        assert w.ok and (v.records, v.released, v.suppressed, v.classes) == (w.records, w.released, w.suppressed,
                                                                             w.classes)


def _random(seed: int, n: int) -> tuple[pd.DataFrame, Schema]:
    """Numbers, text with a missing value and surrounding blanks, an identifier and an insensitive column."""
    rng = np.random.default_rng(seed)
    ages = list(range(20, 36))
    frame = pd.DataFrame({
        "id": np.arange(n),
        "age": rng.choice(ages, n).astype(np.int64),
        "zip": rng.choice(["1234", " 1235", "1299", "1300", ""], n),
        "sex": rng.choice(["f", "m"], n),
        "disease": rng.choice(["flu", "cold", "cancer", "ulcer "], n, p=[0.4, 0.3, 0.2, 0.1]),
        "hours": rng.integers(1, 60, n).astype(np.int64),
    })
    h_age = Hierarchy([[str(a), f"{a // 5 * 5}-{a // 5 * 5 + 4}", f"{a // 10 * 10}s", "*"] for a in ages], name="age")
    h_zip = Hierarchy([[z, z[:3] + "*" if z else "?", "*"] for z in ["1234", "1235", "1299", "1300", ""]], name="zip")
    schema = Schema.of(identifier=["id"], quasi=["age", "zip", "sex"], sensitive=["disease"], insensitive=["hours"],
                       hierarchies={"age": h_age, "zip": h_zip})
    return frame, schema


@pytest.mark.parametrize("seed", range(4))
def test_random_tables_give_the_local_release(spark, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    if seed % 2:  # labels through broadcast joins rather than literal maps (quasi-identifiers with many values)
        monkeypatch.setattr("anonkit.engines.spark._LITERAL_MAP", 0)
    frame, schema = _random(seed, 200 + 150 * seed)
    algorithm = LATTICE[seed % len(LATTICE)]
    models = [KAnonymity(2 + seed), DistinctLDiversity("disease", 2)]
    models += [TCloseness("disease", 0.4)] if seed % 2 else []
    for suppressed in ("drop", "mark"):
        local = anonymize(frame, schema, models, algorithm=algorithm, max_suppression=0.1, seed=seed,
                          suppressed=suppressed)
        distributed = anonymize(spark.createDataFrame(frame), schema, models, algorithm=algorithm,
                                max_suppression=0.1, seed=seed, suppressed=suppressed, engine=_engine(spark))
        _same_summary(local.summary, distributed.summary)
        published = distributed.frame.toPandas()
        assert "id" not in published.columns
        assert _sorted(published).equals(_sorted(local.frame))


def test_missing_sensitive_values_are_counted_in_records_as_locally(spark) -> None:  # type: ignore[no-untyped-def]
    """The warning about missing sensitive values counts records on Spark too, where a table's rows are its
    distinct combinations, each standing for several records: the local run's words, the same number."""
    frame, schema = _random(7, 400)
    frame["disease"] = frame["disease"].where(np.arange(len(frame)) % 9 != 0, "")  # 45 records, few combinations
    models = [KAnonymity(2), DistinctLDiversity("disease", 2)]
    local = anonymize(frame, schema, models, algorithm="flash", max_suppression=0.1, seed=7)
    distributed = anonymize(spark.createDataFrame(frame), schema, models, algorithm="flash", max_suppression=0.1,
                            seed=7, engine=_engine(spark))
    said = [w for w in local.summary["warnings"] if w.startswith("sensitive attribute 'disease'")]
    assert said and said[0].startswith("sensitive attribute 'disease': 45 missing value(s)")
    assert [w for w in distributed.summary["warnings"] if w.startswith("sensitive attribute 'disease'")] == said


def _config(tmp_path: Path, data: Path, out: Path, **extra: object) -> Path:
    h_dir = Path(__file__).resolve().parent.parent / "src" / "anonkit" / "datasets" / "data"
    cfg = {
        "input": {"path": str(data)},
        "attributes": {
            **{q: {"role": "quasi", "hierarchy": str(h_dir / f"adult_hierarchy_{q}.csv")} for q in QIS},
            "salary-class": {"role": "sensitive"},
            "id": {"role": "identifier"},
        },
        "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "l-diversity", "variant": "distinct", "l": 2,
                                                       "attribute": "salary-class"}],
        "algorithm": {"name": "flash", "max_suppression": 0.02},
        "output": {"path": str(out)},
        "engine": "spark",
        "spark": {"master": "local[2]", "conf": {"spark.sql.shuffle.partitions": 4}},
        "seed": 7,
        **extra,
    }
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_a_config_run_writes_a_verified_parquet_directory(spark, adult, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    frame, _schema = adult
    source = tmp_path / "in"
    source.mkdir()
    with_id = frame.assign(id=np.arange(len(frame)))
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 3)):  # a directory of Parquet files
        with_id.iloc[part].to_parquet(source / f"part-{i}.parquet", index=False)
    out = tmp_path / "release"
    cfg_path = _config(tmp_path, source, out)
    config = parse_config(yaml.safe_load(cfg_path.read_text()))
    result = run_config(config, config_dir=tmp_path, config_file=cfg_path)
    assert result.summary["engine"] == "spark" and result.summary["output"] == str(out)
    written = pd.read_parquet(out)
    assert len(written) == result.summary["released"] and "id" not in written.columns
    # the written release, collected here, passes the local verifier too
    local_schema = Schema.of(quasi=QIS, sensitive=["salary-class"])
    assert verify(written, local_schema, result.models, reference=frame).ok
    # and equals the local engine's release of the same config, after sorting
    local_cfg = yaml.safe_load(cfg_path.read_text())
    del local_cfg["engine"], local_cfg["spark"]
    local_cfg["output"] = {"path": str(tmp_path / "local.parquet")}
    with_id.to_parquet(tmp_path / "whole.parquet", index=False)  # the local engine reads one file
    local_cfg["input"] = {"path": str(tmp_path / "whole.parquet")}
    local = run_config(parse_config(local_cfg), config_dir=tmp_path)
    assert _sorted(written).equals(_sorted(pd.read_parquet(tmp_path / "local.parquet")))
    for key in ("released", "suppressed", "classes", "transformation", "score"):
        assert local.summary[key] == result.summary[key], key
    # the run's verdict: the models and the risk models judged from the written classes, as the local
    # audit judges them on the same release; no attack (the notes say why)
    spark_audit, local_audit = result.summary["audit"], local.summary["audit"]
    assert spark_audit["risk"]["prosecutor"] == local_audit["risk"]["prosecutor"]
    assert spark_audit["thresholds"] == local_audit["thresholds"]
    judged = [v for v in local_audit["verdicts"] if v["kind"] in ("model", "risk")]
    assert spark_audit["verdicts"] == judged and len(judged) == 4
    assert spark_audit["attacks"] == [] and any("attacks: not run" in n for n in spark_audit["notes"])
    assert result.summary["verdict"]["ok"] and result.summary["verdict"]["checks"] == 4
    assert result.summary["verdict"]["kinds"] == ["model", "risk"]
    # the same config and seed write the same bytes; an existing output is refused
    with pytest.raises(InputError, match="if_exists"):
        run_config(config, config_dir=tmp_path)
    again = parse_config({**yaml.safe_load(cfg_path.read_text()), "output": {"path": str(tmp_path / "again")}})
    run_config(again, config_dir=tmp_path)
    files = sorted(p.name for p in out.glob("*.parquet"))
    assert files == sorted(p.name for p in (tmp_path / "again").glob("*.parquet"))
    assert all((out / f).read_bytes() == (tmp_path / "again" / f).read_bytes() for f in files)
    # audit.required with a bar the release misses: refused, nothing written, no hidden sibling left
    strict = parse_config({**yaml.safe_load(cfg_path.read_text()), "output": {"path": str(tmp_path / "strict")},
                           "audit": {"required": True, "thresholds": {"average_risk": 0.0001}}})
    with pytest.raises(UnsatisfiableError, match="prosecutor average risk"):
        run_config(strict, config_dir=tmp_path)
    assert not (tmp_path / "strict").exists() and not list(tmp_path.glob(".strict*"))
    # partitioned output: Hive-style directories by a published column
    parted = parse_config({**yaml.safe_load(cfg_path.read_text()),
                           "output": {"path": str(tmp_path / "parted"), "partition_by": ["sex"]}})
    run_config(parted, config_dir=tmp_path)
    dirs = sorted(p.name for p in (tmp_path / "parted").iterdir() if p.is_dir())
    assert dirs == sorted(f"sex={v}" for v in written["sex"].unique())


def test_refusals(spark, adult, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    frame, schema = adult
    sdf = spark.createDataFrame(frame.head(200))
    with pytest.raises(InputError, match="kaca does not run on engine: spark"):
        anonymize(sdf, schema, [KAnonymity(2)], algorithm="kaca", engine=_engine(spark))
    with pytest.raises(InputError, match="mode: relaxed is not distributed"):
        anonymize(sdf, schema, [KAnonymity(2)], algorithm="mondrian", mode="relaxed", engine=_engine(spark))
    people = Schema.of(quasi=["sex"], sensitive=["salary-class"], person="age", default_role="insensitive")
    with pytest.raises(InputError, match="several records per person"):
        anonymize(sdf, people, [KAnonymity(2)], algorithm="flash", engine=_engine(spark))
    # an output that is the input, or inside it, is refused before any work
    source = tmp_path / "in"
    source.mkdir()
    frame.head(50).assign(id=range(50)).to_parquet(source / "a.parquet", index=False)
    for out in (source, source / "sub"):
        cfg = _config(tmp_path, source, out)
        with pytest.raises(InputError, match="the output is the input"):
            run_config(parse_config(yaml.safe_load(cfg.read_text())), config_dir=tmp_path)
    bad = yaml.safe_load(_config(tmp_path, source, tmp_path / "o").read_text())
    with pytest.raises(InputError, match="the HTML report reads the original rows"):
        run_config(parse_config(bad), config_dir=tmp_path, audit=True)
    del bad["engine"]
    with pytest.raises(InputError, match="'spark' settings need engine: spark"):
        parse_config(bad)


def test_the_missing_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from anonkit.engines import get_engine

    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(InputError, match=r'pip install "anonkit\[spark\]"'):
        get_engine("spark")


def test_csv_globs_and_spark_tables_are_read(spark, adult, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    frame, _schema = adult
    small = frame.head(3000).assign(id=np.arange(3000))
    (tmp_path / "parts").mkdir()
    small.to_csv(tmp_path / "small.csv", index=False)
    for i, part in enumerate(np.array_split(np.arange(3000), 2)):
        small.iloc[part].to_parquet(tmp_path / "parts" / f"p{i}.parquet", index=False)
    spark.createDataFrame(small).createOrReplaceTempView("anonkit_small")
    results = []
    for source in ({"path": str(tmp_path / "small.csv")}, {"path": str(tmp_path / "parts" / "*.parquet")},
                   {"table": "anonkit_small"}):
        cfg = yaml.safe_load(_config(tmp_path, tmp_path / "x", tmp_path / "unused").read_text())
        cfg["input"], cfg["output"] = source, {"path": str(tmp_path / f"out{len(results)}")}
        result = run_config(parse_config(cfg), config_dir=tmp_path)
        results.append(_sorted(pd.read_parquet(result.summary["output"])))
    # the CSV's cells are text, Parquet's and the table's numbers are numbers: the same release as text
    assert results[0].equals(results[1]) and results[1].equals(results[2])


def test_mondrian_through_the_pipeline_and_a_config(spark, adult, adult_spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    frame, schema = adult
    models = [KAnonymity(5), DistinctLDiversity("salary-class", 2), TCloseness("salary-class", 0.3)]
    local = anonymize(frame, schema, models, algorithm="mondrian", seed=2)
    from anonkit.engines.spark import SparkEngine

    distributed = anonymize(adult_spark, schema, models, algorithm="mondrian", seed=2,
                            engine=SparkEngine(spark, partition_rows=8_000))
    assert distributed.summary["notes"]["spark_levels"] >= 1
    assert distributed.summary["notes"]["partitions"] == local.summary["notes"]["partitions"]
    for key in ("records", "released", "suppressed", "classes", "min_class_size"):
        assert local.summary[key] == distributed.summary[key], key
    # every measure, the score and the generalization: from the counted release of Spark's classes
    assert distributed.summary["metrics"].keys() == local.summary["metrics"].keys()
    for key, value in local.summary["metrics"].items():
        assert np.isclose(distributed.summary["metrics"][key], value, rtol=1e-9, atol=0), key
    assert np.isclose(distributed.summary["score"], local.summary["score"], rtol=1e-9)
    assert distributed.summary["generalization"] == local.summary["generalization"]
    assert [r["holds"] for r in distributed.summary["verification"]] == [True] * 3
    assert _sorted(distributed.frame.toPandas()).equals(_sorted(local.frame))
    # a config run writes it
    source = tmp_path / "adult.parquet"
    frame.assign(id=np.arange(len(frame))).to_parquet(source, index=False)
    cfg = yaml.safe_load(_config(tmp_path, source, tmp_path / "m").read_text())
    cfg["algorithm"] = {"name": "mondrian"}
    cfg["spark"]["partition_rows"] = 10_000
    result = run_config(parse_config(cfg), config_dir=tmp_path)
    assert len(pd.read_parquet(tmp_path / "m")) == result.summary["released"] == len(frame)


# ------------------------------------------------------------------ before any JVM; the workers' Python
REFUSED_BEFORE_SPARK = [
    ({"attributes.id": {"role": "person"}}, "several records per person"),
    ({"algorithm": {"name": "kaca"}}, "kaca does not run on engine: spark"),
    ({"algorithm": {"name": "mondrian", "mode": "relaxed"}}, "mode: relaxed is not distributed"),
    ({"algorithm": {"name": "mondrian"}, "input.missing": "suppress"}, "missing: suppress is not distributed"),
    ({"audit": {"attacks": ["homogeneity"]}}, "drop audit.attacks or use engine: local"),
    ({"audit": {"control": "c.csv", "thresholds": {"average_risk": 0.1}}}, "drop audit.control"),
]


def _edited(cfg: dict, changes: dict) -> dict:
    cfg = copy.deepcopy(cfg)
    for dotted, value in changes.items():
        node = cfg
        *parents, last = dotted.split(".")
        for p in parents:
            node = node[p]
        node[last] = value
    return cfg


@pytest.mark.parametrize(("changes", "words"), REFUSED_BEFORE_SPARK)
def test_config_refusals_come_before_any_spark_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       changes: dict, words: str) -> None:
    """A Spark session (a JVM: a minute or more on a loaded machine) never starts for a config the
    config alone refuses: the session builder is made to fail, the refusal still comes."""
    import anonkit.engines.spark as spark_module

    def no_session(*args: object, **kwargs: object) -> None:
        raise AssertionError("a Spark session was started")

    monkeypatch.setattr(spark_module, "spark_session", no_session)
    source = tmp_path / "in.parquet"
    pd.DataFrame({q: ["a"] for q in [*QIS, "salary-class", "id"]}).to_parquet(source, index=False)
    cfg = yaml.safe_load(_config(tmp_path, source, tmp_path / "out").read_text())
    with pytest.raises(InputError, match=words):
        run_config(parse_config(_edited(cfg, changes)), config_dir=tmp_path)
    # the control: the same config without the change reaches the (failing) session builder
    with pytest.raises(AssertionError, match="a Spark session was started"):
        run_config(parse_config(cfg), config_dir=tmp_path)


def test_the_workers_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """Local masters run the driver's interpreter unless PYSPARK_PYTHON or spark.pyspark.python says
    otherwise; other masters keep PySpark's choice (the executors are other machines)."""
    from anonkit.engines.spark import worker_python

    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    for master in ("local", "local[2]", "local[*]", "LOCAL[4, 2]"):
        assert worker_python(master) == sys.executable, master
    assert worker_python("local[2]", {"spark.pyspark.python": "/opt/py/bin/python"}) == "/opt/py/bin/python"
    for master in ("spark://host:7077", "yarn", "k8s://https://host:443", "local-cluster[2,1,1024]"):
        assert worker_python(master) is None, master
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3.11")
    assert worker_python("local[2]") is None


def test_the_package_shipped_to_a_cluster(tmp_path: Path) -> None:
    """The zip a cluster's executors get: every module of the package, no bytecode, the same bytes twice."""
    import zipfile

    from anonkit.engines.spark import package_zip

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = package_zip(tmp_path / "a"), package_zip(tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    src = Path(__file__).resolve().parents[1] / "src"
    modules = sorted(str(p.relative_to(src)) for p in (src / "anonkit").rglob("*.py") if "__pycache__" not in p.parts)
    assert sorted(n for n in names if n.endswith(".py")) == modules
    assert "anonkit/engines/spark_mondrian.py" in names and not [n for n in names if n.endswith(".pyc")]


@pytest.mark.long  # about 50 s (a JVM and Python workers from a bare environment); -m long runs it
def test_a_spark_job_from_a_virtual_environment_that_is_not_activated(tmp_path: Path) -> None:
    """``.venv/bin/anonkit`` by its full path, the environment's bin directory not on PATH and a ``python3``
    first on PATH that is not anonkit's: Mondrian's Python workers (applyInPandas) still run anonkit's
    interpreter; no traceback, no pandas warning."""
    script = Path(sys.executable).with_name("anonkit")
    fake = tmp_path / "fakebin"
    fake.mkdir()
    for name in ("python3", "python"):
        (fake / name).write_text("#!/bin/sh\necho 'a worker ran python3 from PATH' >&2\nexit 3\n")
        (fake / name).chmod(0o755)
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join([str(fake), *[p for p in os.environ.get("PATH", "").split(os.pathsep) if p != venv_bin]])
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON",
                                                           "PYTHONPATH")}
    env["PATH"] = path
    frame, _ = load_adult()
    source = tmp_path / "adult.parquet"
    frame.head(1200).assign(id=np.arange(1200)).to_parquet(source, index=False)
    cfg = yaml.safe_load(_config(tmp_path, source, tmp_path / "out").read_text())
    cfg["algorithm"] = {"name": "mondrian"}
    cfg["spark"]["partition_rows"] = 400  # the partitions are finished on the Python workers
    cfg["spark"]["conf"]["spark.ui.enabled"] = False
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(cfg))
    done = subprocess.run([str(script), "anonymize", str(tmp_path / "job.yaml")], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=1800)  # a hang guard
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "pandas >= 3" not in done.stderr, done.stderr[-3000:]
    assert "python3 from PATH" not in done.stderr
    assert len(pd.read_parquet(tmp_path / "out")) == 1200
