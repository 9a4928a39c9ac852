"""Large inputs read by columns and in batches (issue 17 item 4): :mod:`anonkit.io.batches`.

The batch reader must give exactly what the whole-file reader gives: the same cells (texts, numbers,
dtypes, missing values, stripping), the same encoded :class:`~anonkit.table.Table` (codes, domains,
labels, types, warnings, errors naming the same row and column), the same releases through
:func:`anonkit.anonymize` and :func:`anonkit.pipeline.run_config` (every registered algorithm, Flash
and Mondrian end to end) and the same output bytes; and it must do so in much less memory.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from anonkit import Hierarchy, Schema, anonymize
from anonkit._values import factorize_text, strip_cells
from anonkit.algorithms import algorithms
from anonkit.config import parse_config
from anonkit.datasets import data_dir, load_adult
from anonkit.errors import InputError, UnsatisfiableError
from anonkit.io import _compact_write, batches, read_table, write_table
from anonkit.io import csv as io_csv
from anonkit.io.batches import (
    batch_rows_for,
    compact_frame,
    dense_frame,
    is_compact,
    read_compact,
)
from anonkit.models import DistinctLDiversity, KAnonymity
from anonkit.pipeline import run_config
from anonkit.table import Table
from suite_inputs import OWN_SUITE_FAMILIES, draw_options, random_table, suite_models

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
BATCHES = [1, 2, 7, 1000]


@pytest.fixture
def arrow_csv(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every CSV file goes through pyarrow's parser (the whole-file reader's fast path and the
    streaming reader alike), not only those above a megabyte."""
    monkeypatch.setattr(io_csv, "ARROW_ABOVE_BYTES", 0)


# ---------------------------------------------------------------------------------------------- helpers


def whole(path: Path, *, strip: bool = True, **options: object) -> pd.DataFrame:
    """What ``run_config`` encodes from the whole-file reader: ``read_table``, then stripped."""
    frame = read_table(path, **options)  # type: ignore[arg-type]
    return frame.apply(strip_cells) if strip else frame


def assert_same_cells(path: Path, rows: int, *, strip: bool = True, **options: object) -> pd.DataFrame:
    compact = read_compact(path, strip=strip, batch_rows=rows, **options)  # type: ignore[arg-type]
    assert is_compact(compact)
    expected = whole(path, strip=strip, **options)
    # a Parquet dictionary column (a pandas categorical) is read as its values
    pd.testing.assert_frame_equal(dense_frame(compact), dense_frame(expected))
    return compact


def outcome(make: object) -> object:
    """The value of ``make()``, or its InputError's message."""
    try:
        return make()  # type: ignore[operator]
    except InputError as exc:
        return f"InputError: {exc}"


def same(a: object, b: object) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and bool(
            np.array_equal(a.astype(object), b.astype(object)))
    if isinstance(a, list | tuple):
        return isinstance(b, list | tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and same(vars(a), vars(b))
    return bool(a == b)


def assert_same_table(a: Table, b: Table) -> None:
    """Two encodings are the same: codes, hierarchies, domains and labels, inferred types, warnings,
    numbers, pre-suppression, persons and the distinct tuples."""
    assert a.schema == b.schema
    assert a.qi == b.qi and a.sensitive == b.sensitive and a.n == b.n
    assert np.array_equal(a.codes, b.codes) and a.codes.dtype == b.codes.dtype
    for ha, hb in zip(a.hierarchies, b.hierarchies, strict=True):
        assert np.array_equal(ha.maps, hb.maps)
        assert all(np.array_equal(x, y) for x, y in zip(ha.labels, hb.labels, strict=True))
    assert a.domains.keys() == b.domains.keys()
    for name in a.domains:
        assert same(a.domains[name], b.domains[name]), name
        assert np.array_equal(a.sensitive_codes[name], b.sensitive_codes[name])
    assert a.numeric.keys() == b.numeric.keys()
    for name in a.numeric:
        assert np.array_equal(a.numeric[name], b.numeric[name], equal_nan=True)
    assert a.warnings == b.warnings
    assert np.array_equal(a.presuppressed, b.presuppressed)
    assert same(a.person, b.person) and a.n_persons == b.n_persons and a.reconciled == b.reconciled
    da, db = a.distinct, b.distinct
    assert np.array_equal(da.tuples, db.tuples) and np.array_equal(da.counts, db.counts)
    assert np.array_equal(da.inverse, db.inverse)
    assert same({k: list(v) for k, v in da.pairs.items()}, {k: list(v) for k, v in db.pairs.items()})
    pd.testing.assert_frame_equal(dense_frame(b.frame), dense_frame(a.frame))


# ---------------------------------------------------------------------------------------------- random files

TEXTS = st.one_of(
    st.sampled_from(["", " ", "a", "A", " a ", "a ", "007", "7", "7.0", "-3", "1e3", "nan", "NA", "N/A", "True",
                     "x,y", 'say "hi"', "line\nbreak", "tab\there", "ünï", "日本", "=1+1", "@x", "  padded  "]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=6),
)


@st.composite
def text_frames(draw: st.DrawFn) -> pd.DataFrame:
    """A table of text cells: numeric-looking columns (leading zeros, decimals), text columns
    (unicode, quotes, separators, line breaks, padding) and empty cells."""
    n = draw(st.integers(1, 40))
    width = draw(st.integers(2, 5))
    cols: dict[str, list[str]] = {}
    for j in range(width):
        kind = draw(st.sampled_from(["number", "zip", "text", "few"]))
        if kind == "number":
            numbers = st.sampled_from(["1", "2", "10", "3.5", "-4", "", " 5 ", "0"])
            cells = draw(st.lists(numbers, min_size=n, max_size=n))
        elif kind == "zip":
            cells = draw(st.lists(st.sampled_from(["02139", "2139", "10001", "", "0"]), min_size=n, max_size=n))
        elif kind == "few":
            cells = draw(st.lists(st.sampled_from(["M", "F", "m", "F ", "NA"]), min_size=n, max_size=n))
        else:
            cells = draw(st.lists(TEXTS, min_size=n, max_size=n))
        cols[f"c{j}" if j else "é col"] = cells
    return pd.DataFrame(cols, dtype=object)


def write_csv_text(frame: pd.DataFrame, path: Path, sep: str, quote: str, encoding: str, crlf: bool) -> bool:
    """Write ``frame`` with the csv module; False when the encoding cannot hold a cell."""
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, delimiter=sep, quotechar=quote, quoting=csv.QUOTE_MINIMAL,
                        lineterminator="\r\n" if crlf else "\n")
    writer.writerow(list(frame.columns))
    writer.writerows(frame.itertuples(index=False))
    try:
        path.write_bytes(buf.getvalue().encode(encoding))
    except UnicodeEncodeError:
        return False
    return True


def random_schema(data: st.DataObject, columns: list[str]) -> Schema:
    roles = data.draw(st.lists(st.sampled_from(["quasi", "sensitive", "insensitive", "identifier"]),
                               min_size=len(columns), max_size=len(columns)))
    roles[0] = "quasi"
    types = {}
    for name, role in zip(columns, roles, strict=True):
        if role == "quasi" and data.draw(st.booleans()):
            types[name] = data.draw(st.sampled_from(["numeric", "categorical"]))
    named = {r: [c for c, x in zip(columns, roles, strict=True) if x == r] for r in set(roles)}
    return Schema.of(quasi=named.get("quasi", []), sensitive=named.get("sensitive", []),
                     insensitive=named.get("insensitive", []), identifier=named.get("identifier", []), types=types)


@pytest.mark.usefixtures("arrow_csv")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(frame=text_frames(), sep=st.sampled_from([",", ";", "\t", "|"]), quote=st.sampled_from(['"', "'"]),
       encoding=st.sampled_from(["utf-8", "latin-1", "utf-16"]), crlf=st.booleans(), rows=st.sampled_from(BATCHES),
       strip=st.booleans(), na=st.sampled_from([None, ["NA"], ["NA", ""]]), data=st.data())
def test_csv_batches_equal_the_whole_file(tmp_path_factory: pytest.TempPathFactory, frame: pd.DataFrame, sep: str,
                                          quote: str, encoding: str, crlf: bool, rows: int, strip: bool,
                                          na: list[str] | None, data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("csv") / "in.csv"
    if not write_csv_text(frame, path, sep, quote, encoding, crlf):
        return
    options = {"separator": sep, "quotechar": quote, "encoding": encoding, "na_values": na}
    got = outcome(lambda: read_compact(path, strip=strip, batch_rows=rows, **options))
    expected = outcome(lambda: whole(path, strip=strip, **options))
    if isinstance(expected, str):
        assert got == expected  # the same error, naming the same row and column
        return
    assert isinstance(got, pd.DataFrame) and is_compact(got)
    pd.testing.assert_frame_equal(dense_frame(got), expected)
    schema = random_schema(data, [str(c) for c in expected.columns])
    missing = data.draw(st.sampled_from(["value", "suppress", "error"]))
    a = outcome(lambda: Table(expected, schema, missing=missing, strip=strip))
    b = outcome(lambda: Table(got, schema, missing=missing, strip=strip))
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
    else:
        assert_same_table(a, b)


@st.composite
def typed_tables(draw: st.DrawFn) -> pa.Table:
    """An Arrow table of typed columns: integers with and without nulls (of several widths), floats
    (with NaN and nulls), booleans, text with nulls and leading zeros, a column of nulls."""
    n = draw(st.integers(1, 40))
    arrays, names = [], []
    for j in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["int", "int_null", "int8", "uint", "float", "float32", "bool", "bool_null",
                                     "text", "null"]))
        if kind in ("int", "int_null", "int8", "uint"):
            lo, hi = {"int8": (-128, 127), "uint": (0, 2**64 - 1)}.get(kind, (-(2**62), 2**62))
            values = draw(st.lists(st.one_of(st.integers(lo, hi), st.sampled_from([0, 1, 39, 2**53 + 1]).filter(
                lambda v, lo=lo, hi=hi: lo <= v <= hi)), min_size=n, max_size=n))
            if kind == "int_null":
                values = [None if draw(st.booleans()) else v for v in values]
            typ = {"int8": pa.int8(), "uint": pa.uint64()}.get(kind, pa.int64())
            arr = pa.array(values, type=typ)
        elif kind in ("float", "float32"):
            values = draw(st.lists(st.one_of(st.none(), st.sampled_from([0.1, 39.0, 1e20, float("nan"), 2.5, -1.0])),
                                   min_size=n, max_size=n))
            arr = pa.array(values, type=pa.float32() if kind == "float32" else pa.float64())
        elif kind in ("bool", "bool_null"):
            values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            if kind == "bool_null":
                values = [None if draw(st.booleans()) else v for v in values]
            arr = pa.array(values, type=pa.bool_())
        elif kind == "text":
            arr = pa.array(draw(st.lists(st.one_of(st.none(), TEXTS), min_size=n, max_size=n)), type=pa.string())
        else:
            arr = pa.nulls(n)
        arrays.append(arr)
        names.append(f"{kind}{j}")
    return pa.table(arrays, names=names)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=typed_tables(), rows=st.sampled_from(BATCHES), strip=st.booleans(), pandas_meta=st.booleans(),
       na=st.sampled_from([None, ["NA"]]), data=st.data())
def test_parquet_batches_equal_the_whole_file(tmp_path_factory: pytest.TempPathFactory, table: pa.Table, rows: int,
                                              strip: bool, pandas_meta: bool, na: list[str] | None,
                                              data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("pq") / "in.parquet"
    if pandas_meta:  # written from pandas: the file carries pandas' metadata (dtypes, index)
        table = pa.Table.from_pandas(table.to_pandas(), preserve_index=False)
    pq.write_table(table, path, row_group_size=data.draw(st.sampled_from([3, 64])))
    got = read_compact(path, strip=strip, batch_rows=rows, na_values=na)
    expected = whole(path, strip=strip, na_values=na)
    pd.testing.assert_frame_equal(dense_frame(got), expected)
    schema = random_schema(data, [str(c) for c in expected.columns])
    a = outcome(lambda: Table(expected, schema, strip=strip))
    b = outcome(lambda: Table(got, schema, strip=strip))
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
    else:
        assert_same_table(a, b)


# ---------------------------------------------------------------------------------------------- numbers


def test_numeric_parquet_columns_are_encoded_from_numbers(tmp_path: Path) -> None:
    """A numeric Arrow column never becomes text cell by cell: its dictionary holds the numbers
    (pandas' type for the column: integers with a null become floats); the labels are still the
    canonical texts the whole-file path gives (39, not 39.0)."""
    path = tmp_path / "n.parquet"
    pq.write_table(pa.table({"age": pa.array([39, 50, None, 39], type=pa.int64()),
                             "w": pa.array([39, 50, 7, 39], type=pa.int32()),
                             "x": pa.array([0.1, 39.0, float("nan"), None]),
                             "s": ["a", "b", "a", "a"]}), path)
    compact = assert_same_cells(path, 2)
    assert compact["age"].cat.categories.dtype == np.float64  # a null: pandas makes the column float
    assert compact["w"].cat.categories.dtype == np.int32
    assert compact["x"].cat.categories.dtype == np.float64
    assert factorize_text(compact["age"])[1].tolist() == ["39", "50", ""]
    assert factorize_text(compact["x"])[1].tolist() == ["0.1", "39", ""]
    schema = Schema.of(quasi=["age", "w", "x"], sensitive=["s"])
    a, b = Table(read_table(path), schema), Table(compact, schema)
    assert_same_table(a, b)
    assert b.schema["age"].type == "numeric" and b.hierarchies[0].labels[0].tolist() == ["39", "50", ""]
    # the same labels as the text of a CSV file holding those numbers
    csv_path = tmp_path / "n.csv"
    csv_path.write_text("age,w,x,s\n39,39,0.1,a\n50,50,39,b\n,7,,a\n39,39,,a\n")
    c = Table(read_compact(csv_path, batch_rows=3), schema)
    assert all(np.array_equal(x, y) for x, y in zip(b.hierarchies[0].labels, c.hierarchies[0].labels, strict=True))


def test_categorical_factorize_equals_the_dense_one() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        values = rng.choice(np.array(["b", "a", None, "", 3, 2.5, True, "3", "True", "2.5"], dtype=object), 30)
        cats = pd.Series(values, dtype=object)
        codes, uniques = pd.factorize(cats, use_na_sentinel=True)
        order = rng.permutation(len(uniques))  # categories in any order
        categorical = pd.Categorical.from_codes(np.where(codes >= 0, np.argsort(order)[codes], -1),
                                                dtype=pd.CategoricalDtype(pd.Index(uniques[order], dtype=object)))
        expected = factorize_text(cats)
        for compact in (False, True):
            got = factorize_text(pd.Series(categorical), compact=compact)
            assert np.array_equal(got[0], expected[0]) and got[1].tolist() == expected[1].tolist()
            assert got[0].dtype == (np.int8 if compact else np.int64)


# ---------------------------------------------------------------------------------------------- errors


@pytest.mark.usefixtures("arrow_csv")
def test_errors_name_the_row_across_batches(tmp_path: Path) -> None:
    """An encoding error names the 1-based data row of the whole file, whatever the batch it was in;
    a broken row pyarrow rejects is reported by the strict reader, as read_table reports it."""
    n = 2500
    age = [str(20 + i % 50) for i in range(n)]
    age[1733] = "old"
    path = tmp_path / "in.csv"
    pd.DataFrame({"age": age, "sex": ["M", "F"] * (n // 2)}).to_csv(path, index=False)
    schema = Schema.of(quasi=["age", "sex"], types={"age": "numeric"})
    for rows in (1, 100, 999):
        with pytest.raises(InputError, match="row 1734") as err:
            Table(read_compact(path, batch_rows=rows), schema)
        assert "column 'age'" in str(err.value) and "'old'" in str(err.value)
    h = Hierarchy([[str(a), "*"] for a in range(20, 70)], name="age")
    age[1733] = "19"
    pd.DataFrame({"age": age, "sex": ["M", "F"] * (n // 2)}).to_csv(path, index=False)
    with pytest.raises(InputError, match=r"value is missing from the hierarchy .* value '19', row 1734"):
        Table(read_compact(path, batch_rows=100), Schema.of(quasi=["age", "sex"], hierarchies={"age": h}))
    broken = path.read_text().splitlines()
    broken[2001] += ",extra"
    path.write_text("\n".join(broken) + "\n")
    with pytest.raises(InputError) as expected:
        read_table(path)
    with pytest.raises(InputError) as got:
        read_compact(path, batch_rows=100)
    assert str(got.value) == str(expected.value) and "row 2001" in str(got.value)


@pytest.mark.usefixtures("arrow_csv")
def test_dates_and_persons_encode_the_same(tmp_path: Path) -> None:
    n = 600
    rng = np.random.default_rng(3)
    days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 40, n), unit="D")
    pid = rng.integers(0, 200, n)
    frame = pd.DataFrame({"pid": [f"p{p}" for p in pid], "day": days.strftime("%Y-%m-%d"),
                          "zip": [f"0{p % 7}1" for p in pid], "dx": rng.choice(["flu", "cold", ""], n)})
    frame["day"] = frame["day"].to_numpy()[pd.Series(pid).groupby(pid).transform("idxmin").to_numpy()]
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    schema = Schema.of(person="pid", quasi=["day", "zip"], sensitive=["dx"], types={"day": "date"})
    for rows in (1, 50):
        assert_same_table(Table(whole(path), schema), Table(read_compact(path, batch_rows=rows), schema))
    frame.loc[457, "day"] = "someday"
    frame.to_csv(path, index=False)
    for policy in ("error", "first"):
        a = outcome(lambda policy=policy: Table(whole(path), schema, person_qi=policy))
        b = outcome(lambda policy=policy: Table(read_compact(path, batch_rows=50), schema, person_qi=policy))
        if policy == "error":  # the person's rows differ (naming them) or the date is named at its row
            assert isinstance(a, str) and a == b and ("row 458" in a or "rows" in a), (a, b)
        elif isinstance(a, str) or isinstance(b, str):
            assert a == b
        else:
            assert_same_table(a, b)


def test_parquet_errors_name_the_row(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    ages = [str(20 + i % 50) for i in range(3000)]
    ages[2999] = "x"
    pq.write_table(pa.table({"age": ages, "sex": ["M", "F"] * 1500}), path)
    schema = Schema.of(quasi=["age", "sex"], types={"age": "numeric"})
    with pytest.raises(InputError, match="row 3000"):
        Table(read_compact(path, batch_rows=64), schema)
    for bad, words in ((tmp_path / "none.parquet", "file not found"), (tmp_path / "empty.parquet", "input is empty")):
        if "empty" in bad.name:
            bad.write_bytes(b"")
        with pytest.raises(InputError, match=words):
            read_compact(bad)


def test_unusual_parquet_files_are_read_whole(tmp_path: Path) -> None:
    """A stored index, dates, nullable integers, categoricals: the whole-file reader decides."""
    frame = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64"), "d": pd.to_datetime(["2020-01-01"] * 3),
                          "c": pd.Categorical(["x", "y", "x"]), "s": ["p", "q", None]},
                         index=pd.Index([7, 8, 9], name="key"))
    frame.to_parquet(tmp_path / "u.parquet")
    assert_same_cells(tmp_path / "u.parquet", 2)


# ---------------------------------------------------------------------------------------------- writing


def test_compact_frames_write_the_dense_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CSV (formula neutralising, separators, encodings) and Parquet (schema, pandas metadata, row
    groups) bytes of a compact frame are those of its dense frame, in one batch or many."""
    frame = pd.DataFrame({
        "=name": pd.Series(["@a", "b", None, "-3", "=x"], dtype=object),
        "n": [1, 2, 3, 4, 5],
        "f": [1.5, np.nan, -2.0, 0.1, 3.0],
        "t": pd.Series(["x", "y", None, "x", "☃"], dtype="str"),
        "b": [True, False, True, True, False],
        "m": pd.Series(["1", 2, None, "a", 2.5], dtype=object),
    })
    compact = compact_frame(frame)
    assert is_compact(compact)
    for rows in (2, _compact_write.WRITE_ROWS):
        monkeypatch.setattr(_compact_write, "WRITE_ROWS", rows)
        monkeypatch.setattr(_compact_write, "WRITE_CSV_ROWS", rows)
        for name, options in (("a.csv", {}), ("b.csv", {"neutralise": False}), ("c.tsv", {"encoding": "utf-16"}),
                              ("d.csv", {"separator": ";"})):
            write_table(frame, tmp_path / f"dense-{name}", **options)
            write_table(compact, tmp_path / name, **options)
            assert (tmp_path / name).read_bytes() == (tmp_path / f"dense-{name}").read_bytes(), (rows, name)
        dense_ok = frame.drop(columns=["m"])  # mixed types cannot be stored in Parquet
        write_table(dense_ok, tmp_path / "dense.parquet")
        write_table(compact_frame(dense_ok), tmp_path / "c.parquet")
        if rows >= len(frame):  # one row group: the same bytes (else the same rows in more row groups)
            assert (tmp_path / "c.parquet").read_bytes() == (tmp_path / "dense.parquet").read_bytes()
        assert pq.read_table(tmp_path / "c.parquet").equals(pq.read_table(tmp_path / "dense.parquet"))
        mixed = dense_ok.assign(cat=compact["=name"])  # a frame with only some categorical columns
        write_table(mixed, tmp_path / "m.parquet")
        assert pq.read_table(tmp_path / "m.parquet").equals(pq.read_table(tmp_path / "dense.parquet").append_column(
            "cat", pq.read_table(tmp_path / "dense.parquet").column("=name")))
    # an unencodable value is named at its row in the whole frame
    monkeypatch.setattr(_compact_write, "WRITE_ROWS", 2)
    monkeypatch.setattr(_compact_write, "WRITE_CSV_ROWS", 2)
    with pytest.raises(InputError, match=r"column 't', value '☃', row 5"):
        write_table(compact, tmp_path / "e.csv", encoding="latin-1")
    with pytest.raises(InputError, match="column 'm'"):
        write_table(compact, tmp_path / "e.parquet")


# ---------------------------------------------------------------------------------------------- releases


@pytest.mark.parametrize("algorithm", sorted(algorithms()))
def test_every_algorithm_releases_the_same_from_a_compact_frame(algorithm: str) -> None:
    """Codes in, the same release out: classes, published values, linked tables, summary."""
    spec = algorithms()[algorithm]
    for seed in range(1 if spec.family in OWN_SUITE_FAMILIES else 3):  # a synthesizer's fit: 3 s a seed
        frame, schema = random_table(seed, 40 + seed, persons=spec.persons)
        models = suite_models(spec, 2 + seed % 2, seed % 2 == 0, [None, 0.6][seed % 2])
        params = draw_options(spec, [2, 2], np.random.default_rng(seed))

        def run(data: pd.DataFrame, models=models, schema=schema, params=params, seed=seed) -> object:
            try:
                return anonymize(data, schema, models, algorithm=algorithm, seed=seed, **params)
            except (InputError, UnsatisfiableError) as exc:
                return f"{type(exc).__name__}: {exc}"

        a, b = run(frame), run(compact_frame(frame))
        if isinstance(a, str) or isinstance(b, str):
            assert a == b
            continue
        assert np.array_equal(a.release.record_class, b.release.record_class)
        assert is_compact(b.frame) or spec.verifier is not None
        pd.testing.assert_frame_equal(dense_frame(b.frame), dense_frame(a.frame))
        for key in a.release.tables:
            pd.testing.assert_frame_equal(dense_frame(b.release.tables[key]), dense_frame(a.release.tables[key]))
        assert _plain(a.summary) == _plain(b.summary)


def _plain(summary: dict) -> str:
    out = {k: v for k, v in summary.items() if k not in ("seconds", "total_seconds", "run", "output")}
    if "one_to_many" in out:
        out["one_to_many"] = {k: v for k, v in out["one_to_many"].items() if k != "seconds"}
    if "post_analytics" in out and "fakes" in out["post_analytics"]:
        out["post_analytics"]["fakes"].pop("manifest", None)
    if "audit" in out:
        out["audit"] = {k: v for k, v in out["audit"].items() if k != "seconds"}
    return json.dumps(out, sort_keys=True, default=str)


def _adult_files(tmp_path: Path, n: int) -> dict[str, Path]:
    frame, _ = load_adult()
    frame = pd.concat([frame] * (n // len(frame) + 1), ignore_index=True).iloc[:n].copy()
    frame.insert(0, "name", [f"person {i}" for i in range(n)])
    frame["hours"] = (np.arange(n) * 7919 % 60).astype(np.int64)
    frame.loc[::97, "occupation"] = " Sales "  # padding: stripped to an existing value
    typed = frame.assign(age=frame["age"].astype(np.int64))
    paths = {"csv": tmp_path / "in.csv", "parquet": tmp_path / "in.parquet"}
    write_table(frame.assign(hours=frame["hours"].astype(str)), paths["csv"])
    write_table(typed, paths["parquet"])
    return paths


def _adult_config(path: Path, algorithm: str, rows: int, out: Path, **extra: object):  # type: ignore[no-untyped-def]
    attrs: dict = {a: {"role": "quasi", "hierarchy": str(data_dir() / f"adult_hierarchy_{a}.csv")} for a in ADULT_QIS}
    if algorithm == "mondrian":
        attrs["age"] = {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "width": 10}}
    attrs.update({"occupation": {"role": "sensitive"}, "hours": {"role": "insensitive"}, "name": {"role": "id"}})
    options = {"max_suppression": 0.05} if algorithm == "flash" else {}
    return parse_config({
        "input": {"path": str(path), "batch_rows": rows, "na_values": ["?"]}, "attributes": attrs,
        "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "l-diversity", "attribute": "occupation", "l": 2}],
        "algorithm": {"name": algorithm, **options}, "output": {"path": str(out), "suppressed": "mark"},
        "seed": 7, **extra})


@pytest.mark.usefixtures("arrow_csv")
@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
@pytest.mark.parametrize("source", ["csv", "parquet"])
def test_run_config_in_batches_writes_the_same_release(tmp_path: Path, algorithm: str, source: str) -> None:
    """``anonkit anonymize`` end to end: the same summary and the same output bytes (CSV and
    Parquet) whether the input is read whole or in batches of 1, 7 or 400 rows (1,200 rows: each run audits
    its release and reruns the audit's advice, the most of this test's time)."""
    paths = _adult_files(tmp_path, 1200)
    expected: dict[str, tuple[bytes, str]] = {}
    for rows in (0, 1, 7, 400):
        for fmt in ("csv", "parquet"):
            out = tmp_path / f"{rows}" / f"out.{fmt}"
            out.parent.mkdir(exist_ok=True)
            result = run_config(_adult_config(paths[source], algorithm, rows, out))
            assert is_compact(result.frame) == (rows > 0)
            got = (out.read_bytes(), _plain(result.summary))
            if rows == 0:
                expected[fmt] = got
            else:
                assert got[1] == expected[fmt][1], (rows, fmt)
                assert got[0] == expected[fmt][0], (rows, fmt)


def test_batches_with_post_analytics_and_audit(tmp_path: Path) -> None:
    paths = _adult_files(tmp_path, 1500)
    extra = {"post_analytics": {"critical": ["occupation"], "inject_fake": True, "rho": 0.5}, "audit": {}}
    outs = []
    for rows in (0, 100):
        out = tmp_path / f"{rows}" / "out.csv"
        out.parent.mkdir()
        result = run_config(_adult_config(paths["parquet"], "flash", rows, out, **extra))
        outs.append((out.read_bytes(), (out.parent / "out.fakes.csv").read_bytes(), _plain(result.summary)))
    assert outs[0] == outs[1]


# ---------------------------------------------------------------------------------------------- when


def test_when_inputs_are_read_in_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = tmp_path / "s.csv"
    small.write_text("a,b\n1,2\n")
    assert batch_rows_for(small) is None  # small: whole
    assert batch_rows_for(small, batch_rows=10) == 10
    assert batch_rows_for(small, batch_rows=0) is None
    assert batch_rows_for(tmp_path / "x.db", batch_rows=10) is None  # SQL inputs: whole
    monkeypatch.setattr(batches, "AUTO_BATCH_ABOVE_BYTES", 4)
    assert batch_rows_for(small) == batches.DEFAULT_BATCH_ROWS
    pq.write_table(pa.table({"a": [1, 2, 3]}), tmp_path / "p.parquet")
    monkeypatch.setattr(batches, "AUTO_BATCH_ABOVE_ROWS", 2)
    assert batch_rows_for(tmp_path / "p.parquet") == batches.DEFAULT_BATCH_ROWS
    with pytest.raises(InputError, match="batch_rows"):
        batch_rows_for(small, batch_rows=-1)
    with pytest.raises(InputError, match=r"input\.batch_rows"):
        parse_config({"input": {"path": "x.csv", "batch_rows": -3}, "attributes": {"a": {"role": "quasi"}},
                      "privacy": [{"model": "k-anonymity", "k": 2}]})
    with pytest.raises(InputError, match="batch_rows"):
        read_compact(small, batch_rows=0)


def test_identifier_columns_are_not_read(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    pq.write_table(pa.table({"name": ["a", "b", "c", "d"], "age": ["1", "1", "2", "2"]}), path)
    compact = read_compact(path, skip=["name"])
    assert len(compact["name"].cat.categories) == 0 and compact["name"].isna().all()
    schema = Schema.of(identifier=["name"], quasi=["age"])
    assert_same_table(Table(read_table(path), schema), Table(compact, schema))


def test_release_published_frame_follows_published_rows() -> None:
    frame, schema = random_table(5, 50)
    models = [KAnonymity(2), DistinctLDiversity("disease", 2)]
    for suppressed in ("drop", "mark"):
        a = anonymize(frame, schema, models, seed=11, suppressed=suppressed, max_suppression=0.2)
        b = anonymize(compact_frame(frame), schema, models, seed=11, suppressed=suppressed, max_suppression=0.2)
        rows = b.release.published_rows(suppressed=suppressed, seed=11)
        assert np.array_equal(rows, a.release.published_rows(suppressed=suppressed, seed=11))
        assert (dense_frame(b.frame)["note"].to_numpy() == frame["note"].to_numpy()[rows]).all()
        pd.testing.assert_frame_equal(dense_frame(b.frame), a.frame)


# ---------------------------------------------------------------------------------------------- memory

_MEASURE = textwrap.dedent("""
    import json, sys
    import anonkit.runner.local
    from anonkit.config import parse_config
    from anonkit.datasets import data_dir
    from anonkit.pipeline import run_config
    # the reading and encoding path's memory: the run's audit (its own measure, bench_audit.py) left out
    anonkit.runner.local.audit_result = lambda *args, **kwargs: None
    qis = {qis!r}
    attrs = {{a: {{"role": "quasi", "hierarchy": str(data_dir() / f"adult_hierarchy_{{a}}.csv")}} for a in qis}}
    attrs.update({{"occupation": {{"role": "sensitive"}}, "hours": {{"role": "insensitive"}}}})
    config = parse_config({{"input": {{"path": sys.argv[1], "batch_rows": int(sys.argv[3])}}, "attributes": attrs,
        "privacy": [{{"model": "k-anonymity", "k": 5}}], "algorithm": {{"name": "flash", "max_suppression": 0.02}},
        "output": {{"path": sys.argv[2]}}}})
    t = run_config(config).release.table
    encoded = t.codes.nbytes + t.presuppressed.nbytes + sum(a.nbytes for a in t.sensitive_codes.values())
    encoded += sum(a.nbytes for a in t.numeric.values()) + t.distinct.inverse.nbytes
    encoded += sum(t.frame[c].cat.codes.nbytes if str(t.frame[c].dtype) == "category" else 0 for c in t.frame)
    peak = next(int(x.split()[1]) * 1024 for x in open("/proc/self/status") if x.startswith("VmHWM"))
    print(json.dumps({{"encoded": encoded, "peak": peak}}))
""").format(qis=ADULT_QIS)


def write_adult_parquet(path: Path, n: int) -> None:
    """``n`` Adult-like records (the bundled table repeated, age as numbers) and an insensitive
    column of hours, one row group per 1,048,576 records."""
    frame, _ = load_adult()
    base = pa.Table.from_pandas(frame.assign(age=frame["age"].astype(np.int64)), preserve_index=False)
    base = base.replace_schema_metadata(None)
    reps = pa.concat_tables([base] * (1_048_576 // len(frame) + 1)).slice(0, 1_048_576).combine_chunks()
    rng = np.random.default_rng(0)
    with pq.ParquetWriter(path, base.schema.append(pa.field("hours", pa.int64()))) as writer:
        for start in range(0, n, len(reps)):
            part = reps.slice(0, min(len(reps), n - start))
            writer.write_table(part.append_column("hours", pa.array(rng.integers(1, 100, len(part)))))


def _measure(path: Path, out: Path, rows: int) -> dict:
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(path), str(out), str(rows)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_million_rows_in_batches_use_less_memory(tmp_path: Path) -> None:
    """1 M Parquet rows (8 Adult quasi-identifiers, a sensitive and an insensitive attribute)
    through ``run_config`` (without its audit) in a subprocess (VmHWM): the batch path's peak grows by a small multiple
    of the encoded table (compared with 500,000 rows: the interpreter, numba's compiler and the
    libraries are the same) and is well below the whole-file path's, with the same output."""
    half, full = tmp_path / "half.parquet", tmp_path / "full.parquet"
    write_adult_parquet(half, 500_000)
    write_adult_parquet(full, 1_000_000)
    small = _measure(half, tmp_path / "h.csv", 1 << 18)
    batched = _measure(full, tmp_path / "b.csv", 1 << 18)
    whole_file = _measure(full, tmp_path / "w.csv", 0)
    assert (tmp_path / "b.csv").read_bytes() == (tmp_path / "w.csv").read_bytes()
    growth = (batched["peak"] - small["peak"]) / (batched["encoded"] - small["encoded"])
    assert growth < 6, (small, batched)  # measured: 3.9
    assert batched["peak"] < 0.6 * whole_file["peak"], (batched, whole_file)


CELL_TEXTS = st.one_of(
    TEXTS,
    st.sampled_from(['a,b', 'say "hi"', "two\nlines", "tab\there", "=1+2", "+x", "-y", "@z", "-3", "'q", "a;b",
                     "pipe|d", " ", "", "\x1f", "é☃", "1e5"]),
)


@st.composite
def dense_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Frames of the column types a compact frame holds: text with the characters CSV quotes and the
    starts a spreadsheet runs, numbers, nullable integers, booleans, mixed objects, missing cells."""
    n = draw(st.integers(0, 30))
    data = {}
    for j in range(draw(st.integers(2, 5))):
        kind = draw(st.sampled_from(["text", "str", "float", "int", "Int64", "bool", "mixed"]))
        if kind in ("text", "str"):
            cells = draw(st.lists(st.one_of(st.none(), CELL_TEXTS), min_size=n, max_size=n))
            data[f"c{j}"] = pd.Series(cells, dtype=object if kind == "text" else "str")
        elif kind == "float":
            cells = draw(st.lists(st.sampled_from([0.1, 39.0, 1e20, float("nan"), 2.5, -1.0, 1e-7, 123456789.125]),
                                  min_size=n, max_size=n))
            data[f"c{j}"] = pd.Series(cells, dtype=np.float64)
        elif kind == "int":
            data[f"c{j}"] = pd.Series(draw(st.lists(st.integers(-5, 2**40), min_size=n, max_size=n)), dtype=np.int64)
        elif kind == "Int64":
            cells = draw(st.lists(st.one_of(st.none(), st.integers(-5, 99)), min_size=n, max_size=n))
            data[f"c{j}"] = pd.Series(cells, dtype="Int64")
        elif kind == "bool":
            data[f"c{j}"] = pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        else:
            # (not 1 and 1.0 both: pandas hashes them as one value, so a compact frame holds the first)
            cells = draw(st.lists(st.one_of(st.none(), CELL_TEXTS, st.integers(0, 9), st.sampled_from([2.5, 0.5])),
                                  min_size=n, max_size=n))
            data[f"c{j}"] = pd.Series(cells, dtype=object)
    return pd.DataFrame(data)


@given(frame=dense_frames(), sep=st.sampled_from([",", ";", "\t", "|"]), neutralise=st.booleans(),
       rows=st.sampled_from([1, 3, 1 << 18]))
def test_csv_from_rendered_cells_is_the_dense_bytes(tmp_path_factory: pytest.TempPathFactory, frame: pd.DataFrame,
                                                    sep: str, neutralise: bool, rows: int) -> None:
    """The Arrow CSV path (every category rendered once by pandas, rows joined in Arrow) writes the
    bytes pandas writes for the dense frame, for every column type, quoting and neutralising."""
    tmp = tmp_path_factory.mktemp("cells")
    compact = compact_frame(frame)
    cells = _compact_write._category_cells(compact, sep, neutralise)
    assert cells is not None  # none of these types needs pandas per row (the path under test runs)
    old = _compact_write.WRITE_CELLS_ROWS
    _compact_write.WRITE_CELLS_ROWS = rows
    try:
        write_table(frame, tmp / "dense.csv", separator=sep, neutralise=neutralise)
        write_table(compact, tmp / "compact.csv", separator=sep, neutralise=neutralise)
    finally:
        _compact_write.WRITE_CELLS_ROWS = old
    assert (tmp / "compact.csv").read_bytes() == (tmp / "dense.csv").read_bytes()


def test_csv_cells_fall_back_where_a_cell_depends_on_its_batch() -> None:
    """Dates (pandas drops the time of a column of dates only), integers with a missing cell (their
    batches turn float) and single columns are written by pandas per batch."""
    stamps = pd.to_datetime(["2020-01-01 00:00", "2020-01-02 10:00"])
    dates = compact_frame(pd.DataFrame({"d": stamps, "x": ["a", "b"]}))
    assert _compact_write._category_cells(dates, ",", True) is None
    one = compact_frame(pd.DataFrame({"x": ["a", "b"]}))
    assert _compact_write._category_cells(one, ",", True) is None
    ints = compact_frame(pd.DataFrame({"x": ["a", "b"], "n": [1, 2]}))
    assert _compact_write._category_cells(ints, ",", True) is not None
    cat = ints["n"].array
    ints["n"] = pd.Categorical.from_codes(np.array([0, -1]), dtype=cat.dtype)
    assert _compact_write._category_cells(ints, ",", True) is None
