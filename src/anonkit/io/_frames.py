"""Checking and normalising the frames read and written: column names, missing-value texts, text
columns as ``object`` columns of ``str``, a stored index dropped or kept as a column, and the Arrow
tables both ways (read from Parquet and PostgreSQL; written to them, naming a cell Arrow cannot
store)."""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import pyarrow as pa

from anonkit.errors import InputError
from anonkit.io._messages import _one_line


def _na_values(na_values: Iterable[str] | str | None) -> frozenset[str]:
    if na_values is None:
        return frozenset()
    if isinstance(na_values, str):
        na_values = [na_values]
    values = list(na_values)
    for v in values:
        if not isinstance(v, str):
            raise InputError("na_values must be a list of strings", key="na_values", value=v)
    return frozenset(values)


def _column_names(frame: pd.DataFrame) -> list[str]:
    """The column names as text; InputError on none, empty or duplicate names."""
    names = [str(c) for c in frame.columns]
    if not names:
        raise InputError("nothing to write: the frame has no columns")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError("duplicate column name", column=name)
        seen.add(name)
    return names


def _check_header(names: list[str], loc: str) -> None:
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name == "":
            raise InputError(f"column {i + 1} of the header has no name", file=loc)
        if name in seen:
            raise InputError("duplicate column name in the header", column=name, file=loc)
        seen.add(name)


def _strings_to_object(frame: pd.DataFrame) -> pd.DataFrame:
    """Text columns as ``object`` columns of ``str`` with ``None`` for missing (pandas 2 and 3)."""
    for i, dtype in enumerate(frame.dtypes):
        text = isinstance(dtype, pd.StringDtype) or (
            isinstance(dtype, pd.ArrowDtype)
            and (pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(dtype.pyarrow_dtype))
        )
        if text:
            col = frame.iloc[:, i]
            frame.isetitem(i, col.astype(object).where(col.notna(), None))
    return frame


def _apply_na(frame: pd.DataFrame, na: frozenset[str]) -> pd.DataFrame:
    """Cells of text columns equal to one of ``na`` become ``None``."""
    if not na:
        return frame
    for i, dtype in enumerate(frame.dtypes):
        if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
            col = frame.iloc[:, i]
            hit = col.isin(na)
            if hit.any():
                frame.isetitem(i, col.where(~hit, None))
    return frame


def _default_index(frame: pd.DataFrame) -> pd.DataFrame:
    """A stored pandas index becomes a column if it is named, and is dropped otherwise."""
    index = frame.index
    if isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1:
        return frame
    named = any(n is not None for n in index.names)
    return frame.reset_index(drop=not named)


def _from_arrow(data: pa.Table, what: str, loc: str, *, nullable_ints: bool = False) -> pd.DataFrame:
    """The Arrow table read from ``loc`` as a frame: a stored index dropped or kept as a column, text
    columns as ``object`` columns of ``str``; InputError "cannot convert <what>" if pandas cannot.
    ``nullable_ints``: an integer column with missing values becomes pandas' ``Int64`` (a database's
    integers stay integers, written back as integers) rather than floats. A nested column (list,
    struct, map, union) is refused naming it: its cells are not values a role can judge (a list cell
    cannot be generalized, compared or counted), so anonkit reads flat columns only."""
    _refuse_nested(data, loc)
    try:
        frame = data.to_pandas()
        if nullable_ints:  # of the same width: int32 → Int32
            for i, f in enumerate(data.schema):
                if pa.types.is_integer(f.type) and data.column(i).null_count and f.name in frame.columns:
                    frame[f.name] = data.column(i).to_pandas(types_mapper={f.type: pd.ArrowDtype(f.type)}.get)
                    frame[f.name] = frame[f.name].astype(str(f.type).replace("int", "Int").replace("uInt", "UInt"))
    except (pa.ArrowException, ValueError, TypeError) as exc:
        raise InputError(f"cannot convert {what}: {_one_line(exc)}", file=loc) from exc
    return _strings_to_object(_default_index(frame))


def _is_nested(kind: pa.DataType) -> bool:
    if pa.types.is_dictionary(kind):
        return _is_nested(kind.value_type)
    return pa.types.is_nested(kind)


def _refuse_nested(data: pa.Table, loc: str) -> None:
    """InputError naming the first column whose Arrow type is nested (list, struct, map, union)."""
    for field in data.schema:
        if _is_nested(field.type):
            raise InputError(
                f"the column holds nested values ({field.type}); anonkit reads flat columns only: flatten it "
                "into columns of plain values, or write the input without it",
                column=str(field.name),
                file=loc,
            )


def _to_arrow(frame: pd.DataFrame, names: list[str]) -> pa.Table:
    out = frame.copy(deep=False)
    out.columns = names
    try:
        return pa.Table.from_pandas(out, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError, OverflowError) as exc:
        for i, name in enumerate(names):
            col = out.iloc[:, i]
            try:
                pa.array(col, from_pandas=True)
            except (pa.ArrowException, ValueError, TypeError, OverflowError):
                row, value = _odd_one_out(col)
                raise InputError(
                    f"cannot store the column in Parquet (mixed types?): {_one_line(exc)}",
                    column=name,
                    value=value,
                    row=row,
                ) from exc
        raise InputError(f"cannot convert the frame to Parquet: {_one_line(exc)}") from exc


def _odd_one_out(col: pd.Series) -> tuple[int | None, object]:
    """Row (1-based) and value of the first cell whose type differs from the first value's."""
    values = col.to_numpy(dtype=object)
    first: type | None = None
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and v != v):
            continue
        if first is None:
            first = type(v)
        elif type(v) is not first:
            return i + 1, v
    return None, None

