"""Parquet: reading with pyarrow (numbers keep their types, text becomes ``str``) and writing the
frame's Arrow table atomically through a temporary file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa

from anonkit.errors import InputError
from anonkit.io._files import atomic_write, read_bytes
from anonkit.io._frames import _apply_na, _check_header, _from_arrow, _to_arrow
from anonkit.io._messages import _one_line


def _read_parquet(loc: str, na: frozenset[str]) -> pd.DataFrame:
    import pyarrow.parquet as pq  # on use: a job that reads and writes CSV never loads it (issue 30, item 1)

    raw = read_bytes(loc)  # read once, hashed as read (the run's audit trail records the digest)
    if not raw:
        raise InputError("input is empty", file=loc)
    try:
        parquet = pq.ParquetFile(pa.BufferReader(raw))
        names = parquet.schema_arrow.names
        _check_header([str(n) for n in names], loc)
        data = parquet.read()
    except InputError:
        raise
    except (pa.ArrowException, OSError, ValueError, TypeError) as exc:
        raise InputError(f"not a valid Parquet file: {_one_line(exc)}", file=loc) from exc
    if data.num_rows == 0 or data.num_columns == 0:
        raise InputError("input is empty: no data rows", file=loc)
    return _apply_na(_from_arrow(data, "the Parquet data", loc), na)


def _write_parquet(frame: pd.DataFrame, names: list[str], target: Path, loc: str) -> None:
    """Write ``frame`` as Parquet to ``target`` through a temporary file (see :func:`anonkit.io.write_table`);
    a frame with categorical columns is written by :func:`anonkit.io.batches.write_parquet_compact` instead
    (the registry, :mod:`anonkit.io.registry`, chooses)."""
    import pyarrow.parquet as pq  # on use (see _read_parquet)

    arrow = _to_arrow(frame, names)
    atomic_write(target, loc, lambda tmp: pq.write_table(arrow, tmp))


def __getattr__(name: str) -> object:
    """``pq``, pyarrow's Parquet module, loaded on first use (:pep:`562`) like the functions above load it."""
    if name == "pq":
        import pyarrow.parquet as pq

        return pq
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
