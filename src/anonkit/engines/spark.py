"""The Spark engine: the row-level work on Apache Spark (PySpark), for tables no single machine holds.

The pipeline is the local one (:func:`anonkit.anonymize`); only the three engine calls change:

* **encode.** One Spark aggregation counts the records of every distinct combination of the
  quasi-identifiers and the sensitive attributes (``GROUP BY qi…, sensitive… COUNT(*)``, sorted so
  that the driver always sees the same order). The driver builds a :class:`~anonkit.table.Table`
  over those combinations with :attr:`Table.weights <anonkit.table.Table.weights>` = their counts:
  the same dictionaries, distinct tuples, counts and sensitive histograms as the local encoding of
  all rows, so the lattice search (Flash, OLA, Incognito, Datafly, Lightning) runs on the driver
  unchanged and finds the same optimum, score and suppressed count; the measures (Loss, entropy,
  GCP, risk…) are computed from the weighted rows. The driver holds one row per distinct
  combination, never one per record.
* **publish.** The chosen full-domain transformation is applied on Spark: one small lookup per
  quasi-identifier (original value → generalized label: a literal map in the plan, or a broadcast
  join above 4,096 values) and one broadcast set of the suppressed classes (their generalized
  tuples), then the rows are shuffled with the seed (:meth:`SparkEngine.shuffle`). Identifiers
  never leave the source: they are not selected.
* **verify.** The independent verifier (:func:`anonkit.verifier.verify`) runs on the published rows
  counted by Spark (``GROUP BY`` the published quasi-identifiers and the models' sensitive
  attributes): the same classes and formulas as on the collected rows, without collecting them.

Only algorithms whose release is a function of the distinct tuples are distributed: the
full-domain lattice searches here, Mondrian (strict) in :mod:`anonkit.engines.spark_mondrian`.
Clustering, background-knowledge and bucketization algorithms and data with several records per
person are refused (:meth:`SparkEngine.refuse`).

Where the Python workers run: PySpark starts them with ``$PYSPARK_PYTHON``, else ``python3`` from the
PATH, which is not the interpreter anonkit runs in when it was started from a virtual environment
that is not activated (the workers then fail with ``No module named 'anonkit'``). So on a ``local``
master, when neither ``PYSPARK_PYTHON`` nor ``spark.pyspark.python`` is set, the workers run the
driver's interpreter (``sys.executable``, :func:`spark_session`); a ``spark.pyspark.python`` of the
config is honoured too (PySpark itself reads only the environment variable). On any other master the
executors are other machines: anonkit is shipped to them as a zip of the package
(``SparkContext.addPyFile``); their Python needs numpy, pandas and pyarrow (what PySpark's pandas
functions need anyway) — the executors' ``python3``, or the interpreter ``spark.pyspark.python`` names.

PySpark 4.3 warns that it "does not yet fully support pandas >= 3.0.0". The engine uses pandas on
Spark's edges only (``toPandas`` of aggregates, ``createDataFrame`` of a pandas frame, Mondrian's
``applyInPandas``, all through Arrow), and the Spark tests run on what ``pip install anonkit[dev]``
installs (pandas 3), so the warning is silenced for that one message (:data:`PANDAS_3_WARNING`).

Decisions: whitespace around the cells of published text columns is removed as ``str.strip`` does
(:func:`strip_column`, ``strip: true``); the shuffle is ``rand(seed)`` per row, deterministic for the same
input files and Spark configuration (partitioning), not the local engine's permutation — the same
rows in another order. The written files are renamed ``part-00000.parquet``… and Spark's checksum
files removed, so the same input, config and seed write the same bytes.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonkit import interrupt
from anonkit.engines.defaults import DEFAULT_PARTITION_ROWS
from anonkit.errors import InputError
from anonkit.release import SUPPRESSED, Release
from anonkit.schema import Schema
from anonkit.table import MissingPolicy, PersonQIPolicy, Table
from anonkit.verifier import Verification, released_stats, verify

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: the default Spark master: every core of this machine
DEFAULT_MASTER = "local[*]"
#: column names the engine adds for a moment (never published)
_COUNT = "__anonkit_n"
#: a quasi-identifier with at most this many distinct values is looked up in a literal map, a
#: larger one through a broadcast join
_LITERAL_MAP = 4096
_SPARK_DEFAULTS = {
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.showConsoleProgress": "false",
}


#: the start of PySpark's FutureWarning about pandas 3, silenced knowingly (see the module docstring)
PANDAS_3_WARNING = "PySpark does not yet fully support pandas >= 3.0.0"
#: the Spark setting and the environment variable that name the Python of the workers
PYTHON_SETTING, PYTHON_VARIABLE = "spark.pyspark.python", "PYSPARK_PYTHON"


def _pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError:
        raise InputError('engine: spark needs PySpark: pip install "anonkit[spark]"', key="engine") from None
    import pyspark

    warnings.filterwarnings("ignore", message=PANDAS_3_WARNING, category=FutureWarning)
    return pyspark


def is_local_master(master: str) -> bool:
    """Whether ``master`` runs the executors in this process's machine (``local``, ``local[4]``, ``local[*, 2]``)."""
    return master.strip().lower() == "local" or master.strip().lower().startswith("local[")


def worker_python(master: str, conf: dict[str, Any] | None = None) -> str | None:
    """The interpreter the Python workers must run, or ``None`` to leave PySpark's choice alone:
    the config's ``spark.pyspark.python``, else — on a local master with no ``PYSPARK_PYTHON`` in the
    environment — the driver's own interpreter (the one anonkit and its packages are installed in)."""
    given = (conf or {}).get(PYTHON_SETTING)
    if given is not None:
        return str(given)
    if os.environ.get(PYTHON_VARIABLE) or not is_local_master(master):
        return None
    return sys.executable


@contextlib.contextmanager
def _environment(name: str, value: str | None) -> Iterator[None]:
    """``os.environ[name] = value`` while inside (nothing when ``value`` is None)."""
    if value is None:
        yield
        return
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def package_zip(directory: str | Path) -> Path:
    """A zip of the anonkit package in ``directory`` (sources only, in name order: the same bytes for
    the same sources), to ship to a cluster's executors (``SparkContext.addPyFile``)."""
    root = Path(__file__).resolve().parents[1]  # src/anonkit (or site-packages/anonkit)
    target = Path(directory) / "anonkit.zip"
    files = sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                   and p.suffix not in (".pyc", ".pyo"))
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for path in files:
            info = zipfile.ZipInfo(str(Path("anonkit") / path.relative_to(root)), date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(info, path.read_bytes())
    return target


def spark_session(master: str | None = None, conf: dict[str, Any] | None = None) -> SparkSession:
    """The active Spark session, or a new one on ``master`` (default ``local[*]``) with ``conf``; its
    Python workers run :func:`worker_python`, and a cluster's executors get anonkit (:func:`package_zip`)."""
    _pyspark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None and not conf:
        return active
    master = master or DEFAULT_MASTER
    python = worker_python(master, conf)
    settings = {**_SPARK_DEFAULTS, **({PYTHON_SETTING: python} if python is not None else {}), **(conf or {})}
    builder = SparkSession.builder.appName("anonkit").master(master)
    for key, value in settings.items():
        builder = builder.config(str(key), str(value))
    with _environment(PYTHON_VARIABLE, python):  # PySpark reads the workers' Python from here only
        session = builder.getOrCreate()
    if not is_local_master(session.sparkContext.master):
        shipped = tempfile.mkdtemp(prefix="anonkit-ship-")
        atexit.register(shutil.rmtree, shipped, True)
        session.sparkContext.addPyFile(str(package_zip(shipped)))
    return session


def is_spark_frame(data: object) -> bool:
    """Whether ``data`` is a PySpark DataFrame (without importing PySpark when it is not loaded)."""
    mod = type(data).__module__
    return mod.startswith("pyspark.sql")


class SparkEngine:
    """Encode, publish and verify on Spark (see the module docstring).

    Parameters
    ----------
    session:
        A Spark session; default: the active one, or a new one on ``master`` with ``conf``.
    master, conf:
        ``spark.master`` and further Spark settings for a new session (config ``spark:``).
    partition_rows:
        Mondrian: partitions are cut on Spark until they hold at most this many records, then each
        is finished on one executor.
    """

    name = "spark"

    def __init__(self, session: SparkSession | None = None, *, master: str | None = None,
                 conf: dict[str, Any] | None = None, partition_rows: int = DEFAULT_PARTITION_ROWS) -> None:
        _pyspark()
        self._session = session
        self.master, self.conf = master, dict(conf or {})
        self.partition_rows = int(partition_rows)
        self._source: DataFrame | None = None
        self._keys: pd.DataFrame | None = None
        self._table: Table | None = None
        self._columns: list[str] = []
        self._strip = True
        self._scratch: list[str] = []

    @property
    def session(self) -> SparkSession:
        if self._session is None:
            self._session = spark_session(self.master, self.conf)
        return self._session

    # ------------------------------------------------------------------ what is distributed
    def refuse(self, spec: Any, options: dict[str, Any]) -> None:
        """An :class:`InputError` naming the algorithm when the Spark engine does not run it."""
        if "spark" in spec.engines:
            if options.get("mode") == "relaxed":
                raise InputError("mode: relaxed is not distributed (its ties follow record order); "
                                 "use mode: strict or engine: local", key="algorithm.mode")
            return
        from anonkit.algorithms.spec import declared

        takers = ", ".join(a.name for a in declared() if "spark" in a.engines)
        raise InputError(f"{spec.name} does not run on engine: spark (it needs every record on one machine); "
                         f"use engine: local or one of {takers}", key="algorithm")

    # ------------------------------------------------------------------ input
    def read(self, location: str, fmt: str | None = None, *, separator: str = ",", encoding: str = "utf-8",
             table: str | None = None) -> DataFrame:
        """A Spark DataFrame of Parquet files, directories or globs, a CSV file (header row, every
        cell as text) or, with ``table`` and no location, a table of the Spark catalog."""
        spark = self.session
        if table is not None and not location:
            return spark.table(table)
        fmt = fmt or ("csv" if str(location).lower().endswith((".csv", ".csv.gz", ".txt")) else "parquet")
        if fmt == "parquet":
            return spark.read.parquet(str(location))
        if fmt == "csv":
            return (spark.read.option("header", True).option("sep", separator).option("encoding", encoding)
                    .option("inferSchema", False).option("nullValue", None).option("emptyValue", "")
                    .csv(str(location)))
        raise InputError(f"engine: spark reads parquet or csv, not {fmt}", key="input.format")

    def collect(self, df: DataFrame) -> pd.DataFrame:
        """``df`` (an aggregate) on the driver; Ctrl-C cancels the Spark job."""
        with interrupt.cancelling(self.session.sparkContext.cancelAllJobs):
            out = df.toPandas()
        interrupt.check()
        return out

    # ------------------------------------------------------------------ encode
    def encode(self, data: Any, schema: Schema, *, missing: MissingPolicy = "value", strip: bool = True,
               person_qi: PersonQIPolicy = "error") -> Table:
        """The distinct (quasi-identifier, sensitive) combinations with their counts, as a weighted
        :class:`~anonkit.table.Table` on the driver."""
        from pyspark.sql import functions as F

        df = data if is_spark_frame(data) else self.session.createDataFrame(pd.DataFrame(data))
        columns = [str(c) for c in df.columns]
        ordered = schema.in_column_order(columns)
        if ordered.person is not None:
            raise InputError("data with several records per person does not run on engine: spark; "
                             "use engine: local", column=ordered.person)
        if ordered.survey_columns:  # weights checked, households renumbered, pseudonyms keyed: on the local engine
            raise InputError("the survey roles (weight, household, pseudonym, new-id) do not run on engine: spark; "
                             "use engine: local", column=ordered.survey_columns[0])
        keep = [c for c in columns if c in ordered.quasi or c in ordered.sensitive]
        counted = df.groupBy(*keep).agg(F.count(F.lit(1)).alias(_COUNT)) if keep else df.agg(
            F.count(F.lit(1)).alias(_COUNT))
        if keep:
            counted = counted.orderBy(*[F.col(c).asc_nulls_first() for c in keep])
        compact = self.collect(counted)
        if compact.empty or int(compact[_COUNT].sum()) == 0:
            raise InputError("input is empty: no records")
        weights = compact.pop(_COUNT).to_numpy(dtype=np.int64)
        keys = compact.reset_index(drop=True)
        sub = Schema({c: ordered.attributes[c] for c in keep}, None)
        frame = keys.copy() if keep else pd.DataFrame(index=range(len(keys)))
        table = Table(frame, sub, missing=missing, strip=strip, person_qi=person_qi, weights=weights)
        self._source, self._keys, self._table = df, keys, table
        self._columns = [c for c in columns if c not in ordered.identifiers]
        self._strip = strip
        return table

    # ------------------------------------------------------------------ publish
    def publish(self, release: Release, *, suppressed: str = "drop", seed: int = 0) -> DataFrame:
        """The published rows on Spark: generalized, suppressed classes dropped or marked ``*``,
        shuffled with ``seed``."""

        if self._source is None or self._table is None or release.table is not self._table:
            raise ValueError("publish a release of the table this engine encoded")
        if release.transformation is None:
            raise ValueError("the Spark engine publishes full-domain releases; Mondrian has its own path")
        spark, t, keys = self.session, self._table, self._keys
        assert keys is not None
        levels = [release.transformation[q] for q in t.qi]
        gen = {q: h.labels[levels[j]][h.maps[levels[j]][t.codes[:, j]]] for j, (q, h) in
               enumerate(zip(t.qi, t.hierarchies, strict=True))}
        out = self._source.select(*self._columns)
        src_types = {f.name: f.dataType for f in self._source.schema.fields}
        for q in t.qi:  # one broadcast lookup per quasi-identifier: original value → label
            out = _labelled(spark, out, q, keys[q].to_numpy(dtype=object), gen[q].astype(str), src_types[q])
        sup = release.record_class < 0
        if sup.any():  # the failing classes, by their generalized tuples
            out = _suppressed(spark, out, t.qi, gen, sup, suppressed)
        return self._finish(out, seed)

    def _finish(self, out: DataFrame, seed: int) -> DataFrame:
        """Text cells stripped (``strip``), columns in input order, rows shuffled with ``seed``."""
        from pyspark.sql import functions as F
        from pyspark.sql import types as T

        assert self._table is not None
        if self._strip:
            for f in out.schema.fields:
                if isinstance(f.dataType, T.StringType) and f.name not in self._table.qi:
                    out = out.withColumn(f.name, strip_column(F.col(f.name)))
        return self.shuffle(out.select(*self._columns), seed)

    @staticmethod
    def shuffle(df: DataFrame, seed: int) -> DataFrame:
        """``df``'s rows in an order drawn with ``seed``: a random key per row (``rand(seed)``), the
        rows hash-partitioned by it (``spark.sql.shuffle.partitions`` partitions, one file each) and
        sorted by it within each partition — a random order without ``ORDER BY``'s extra pass to
        sample range bounds. The same for the same input files and Spark settings."""
        from pyspark.sql import functions as F

        keyed = df.withColumn("__r", F.rand(int(seed)))
        return keyed.repartition("__r").sortWithinPartitions("__r").drop("__r")

    # ------------------------------------------------------------------ verify
    def verify(self, published: DataFrame, schema: Schema, models: list, *, reference: Any = None,
               reference_weights: Any = None, suppressed: str = "mark", **link: Any) -> Verification:
        """The verifier on the published rows counted on Spark (classes × sensitive values); ``suppressed``
        as :func:`anonkit.verifier.verify` reads it (``"drop"``: every published row is a class)."""
        from pyspark.sql import functions as F

        if link:
            raise InputError("record-level models are not verified on engine: spark; use engine: local")
        hidden = [c for c in schema.never_published if c in published.columns]
        if hidden:
            raise InputError("an identifier (or the person column) is present in the release", column=hidden[0])
        cols = [*schema.quasi, *sorted({m.attribute for m in models if m.attribute is not None})]
        cols = list(dict.fromkeys(cols))
        counted = published.groupBy(*cols).agg(F.count(F.lit(1)).alias(_COUNT))
        frame = self.collect(counted.orderBy(*[F.col(c).asc_nulls_first() for c in cols]))
        weights = frame.pop(_COUNT).to_numpy(dtype=np.int64)
        if reference is None and self._table is not None:
            reference = self._table.frame
            reference_weights = self._table.weights
        return verify(frame, schema, models, reference=reference, weights=weights,
                      reference_weights=reference_weights, suppressed=suppressed)

    def class_sizes(self, published: DataFrame, schema: Schema, *, suppressed: str = "mark") -> np.ndarray:
        """The size of every published class (rows counted on Spark per distinct quasi-identifier
        combination; all-``*`` rows are suppressed records unless ``suppressed="drop"``), in the
        verifier's order of classes."""
        from pyspark.sql import functions as F

        qis = list(schema.quasi)
        counted = published.groupBy(*qis).agg(F.count(F.lit(1)).alias(_COUNT))
        frame = self.collect(counted.orderBy(*[F.col(c).asc_nulls_first() for c in qis]))
        weights = frame.pop(_COUNT).to_numpy(dtype=np.int64)
        stats, _cls, _supp = released_stats(frame, qis, {}, weights=weights, marked=suppressed != "drop")
        return np.rint(stats.sizes).astype(np.int64)

    # ------------------------------------------------------------------ output
    def write(self, published: DataFrame, location: str, *, if_exists: str = "fail",
              partition_by: list[str] | None = None, check: Any = None) -> None:
        """Write ``published`` as a Parquet directory (one file per Spark partition, or Hive-style
        sub-directories with ``partition_by``), atomically: into a hidden sibling first, then
        renamed into place. An existing ``location`` is refused unless ``if_exists="replace"``.
        ``check(written)``, given the written files as a DataFrame, runs before the rename; when it
        raises, nothing is left behind."""
        target = Path(location)
        if target.exists() and if_exists != "replace":
            raise InputError("the output exists; set output.if_exists: replace to replace it", file=str(target))
        tmp = target.parent / f".{target.name}.anonkit-{uuid.uuid4().hex[:12]}"
        try:
            with interrupt.temporary(str(tmp)), interrupt.cancelling(self.session.sparkContext.cancelAllJobs):
                writer = published.write.mode("errorifexists")
                if partition_by:
                    writer = writer.partitionBy(*partition_by)
                writer.parquet(str(tmp))
                interrupt.check()
                _stable_names(tmp)
                if check is not None:
                    reader = self.session.read.option("basePath", str(tmp))
                    if partition_by:  # a partition directory's value is text, as written
                        self.session.conf.set("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
                    check(reader.parquet(str(tmp)))
                with interrupt.committing(str(target)):
                    if target.exists():
                        old = target.parent / f".{target.name}.anonkit-old-{uuid.uuid4().hex[:12]}"
                        os.replace(target, old)
                        os.replace(tmp, target)
                        shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink(missing_ok=True)
                    else:
                        os.replace(tmp, target)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

    def scratch(self) -> str:
        """A temporary directory removed when the process ends."""
        path = tempfile.mkdtemp(prefix="anonkit-spark-")
        self._scratch.append(path)
        atexit.register(shutil.rmtree, path, True)
        return path


#: what ``str.strip`` removes: every character ``str.isspace`` calls whitespace
_SPACES = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())


def strip_column(col: Any) -> Any:
    """The text column ``col`` without the surrounding whitespace Python's ``str.strip`` removes
    (exactly the ``str.isspace`` characters), trimmed natively by ``btrim`` (a regular expression
    is several times slower)."""
    from pyspark.sql import functions as F

    return F.btrim(col, F.lit(_SPACES))


def _stable_names(root: Path) -> None:
    """Spark names its files after the job (``part-00000-<uuid>-c000.snappy.parquet``) and writes
    checksum files beside them: the files become ``part-00000.parquet``… (Spark's partition order) and
    the checksums go, so that the same input, config and seed give the same bytes under the same names."""
    for directory in [root, *[p for p in root.rglob("*") if p.is_dir()]]:
        for crc in directory.glob(".*.crc"):
            crc.unlink()
        parts = sorted(directory.glob("part-*.parquet"))
        for i, part in enumerate(parts):
            part.rename(directory / f"part-{i:05d}.parquet")


def _labelled(spark: SparkSession, out: DataFrame, q: str, values: np.ndarray, labels: np.ndarray,
              src_type: Any) -> DataFrame:
    """``out`` with quasi-identifier ``q`` replaced by its label (``labels[i]`` of ``values[i]``): a
    literal map in the plan up to :data:`_LITERAL_MAP` values, else a broadcast join; a value without
    a label fails the job (never published as it is)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    pairs = pd.DataFrame({"k": values, "v": labels})
    pairs = pairs.drop_duplicates(ignore_index=True)  # (value, label) pairs: one per value
    if pairs["k"].duplicated().any():
        raise AssertionError(f"one value of {q!r} has two labels")
    integral = isinstance(src_type, T.IntegralType)
    rows = [(None if _is_null(k) else _plain(k, integral), v) for k, v in zip(pairs["k"], pairs["v"], strict=True)]
    if len(rows) <= _LITERAL_MAP:  # a literal map in the plan: no join, no broadcast stage
        known = [(k, v) for k, v in rows if k is not None]
        lookup = F.try_element_at(F.create_map(*[x for k, v in known for x in (
            F.lit(k).cast(src_type), F.lit(v))]), F.col(q)) if known else F.lit(None).cast("string")
        null_label = next((v for k, v in rows if k is None), None)
        if null_label is not None:
            lookup = F.when(F.col(q).isNull(), F.lit(null_label)).otherwise(lookup)
        out = out.withColumn("__v", lookup)
    else:
        lut = spark.createDataFrame(rows, T.StructType([T.StructField("__k", src_type),
                                                        T.StructField("__v", T.StringType())]))
        out = out.join(F.broadcast(lut), out[q].eqNullSafe(lut["__k"]), "left").drop("__k")
    label = F.when(F.col("__v").isNull(), F.raise_error(F.lit(f"anonkit: a value of {q} has no label")))
    return out.withColumn(q, label.otherwise(F.col("__v"))).drop("__v")


def _suppressed(spark: SparkSession, out: DataFrame, qi: list[str], gen: dict[str, np.ndarray], sup: np.ndarray,
                suppressed: str) -> DataFrame:
    """``out`` without the rows of the failing classes (``sup``: the distinct tuples suppressed), found
    by a broadcast join on their generalized tuples, or with their QIs marked ``*``
    (``suppressed="mark"``)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    failing = pd.DataFrame({q: gen[q][sup].astype(str) for q in qi}).drop_duplicates(ignore_index=True)
    kept = pd.DataFrame({q: gen[q][~sup].astype(str) for q in qi}).drop_duplicates()
    if len(failing.merge(kept, how="inner")):
        raise AssertionError("a class is both suppressed and released")
    bad = spark.createDataFrame(
        [tuple(r) for r in failing.itertuples(index=False)],
        T.StructType([T.StructField(f"__s{j}", T.StringType()) for j in range(len(qi))]),
    ).withColumn("__sup", F.lit(True))
    cond = [out[q] == bad[f"__s{j}"] for j, q in enumerate(qi)]
    out = out.join(F.broadcast(bad), cond, "left").drop(*[f"__s{j}" for j in range(len(qi))])
    if suppressed == "drop":
        out = out.filter(F.col("__sup").isNull())
    else:
        for q in qi:
            out = out.withColumn(q, F.when(F.col("__sup").isNull(), F.col(q)).otherwise(F.lit(SUPPRESSED)))
    return out.drop("__sup")


def _is_null(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA or value is pd.NaT


def _plain(value: object, integral: bool = False) -> object:
    """A numpy scalar as the Python value Spark takes (an integer column's values as ``int``: pandas
    gives a column with missing values as floats)."""
    value = value.item() if isinstance(value, np.generic) else value
    return int(value) if integral and isinstance(value, float) else value


__all__ = ["DEFAULT_MASTER", "SparkEngine", "is_spark_frame", "spark_session"]
