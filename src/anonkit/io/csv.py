"""CSV: reading with the standard :mod:`csv` module and writing CSV bytes.

Every cell is read as a plain Python ``str`` in an ``object`` column; the options (separator, quote
character, encoding) are checked first, a wrong separator is guessed from a one-column header, and
every syntax, width or decoding error names the row and value at fault. Large files are parsed by
pyarrow first. Writing defuses spreadsheet formula injection (``neutralise``).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import gc
import io
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.io._files import atomic_write, read_bytes
from anonkit.io._frames import _apply_na, _check_header
from anonkit.io._messages import _one_line

_LIKELY_SEPARATORS = (",", ";", "\t", "|")

#: a cell a spreadsheet would run as a formula starts with one of these (OWASP "CSV injection"), a
#: regular expression every writer of text cells (CSV, Excel, the location messages) neutralises by
FORMULA_START = r"[=+\-@\t\r]"
#: ... unless the whole cell is a plain number: an int, a decimal or scientific notation (ASCII digits)
NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_SAMPLE_CHARS = 65536
_SAMPLE_RECORDS = 6


# ---------------------------------------------------------------------------------------------- options


def _separator(separator: str, loc: str) -> str:
    if separator in ("\\t", "tab"):
        separator = "\t"
    if separator == "," and Path(loc).suffix.lower() == ".tsv":
        separator = "\t"
    if not isinstance(separator, str) or len(separator) != 1 or separator in '\r\n"':
        raise InputError(
            "the separator must be one character (not a quote or line break)", key="separator", value=separator
        )
    return separator


def _quotechar(quotechar: str, separator: str) -> str | None:
    if quotechar in ("", None):
        return None
    if not isinstance(quotechar, str) or len(quotechar) != 1 or quotechar in "\r\n":
        raise InputError("the quote character must be one character", key="quotechar", value=quotechar)
    if quotechar == separator:
        raise InputError("the quote character must differ from the separator", key="quotechar", value=quotechar)
    return quotechar


def _encoding(encoding: str) -> str:
    """The codec's canonical name; an unknown encoding is an InputError."""
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        raise InputError("unknown encoding", key="encoding", value=encoding) from None


# ---------------------------------------------------------------------------------------------- read


def _reader(text: str, sep: str, quote: str | None, *, strict: bool) -> Any:
    return csv.reader(
        io.StringIO(text, newline=""),
        delimiter=sep,
        quotechar=quote,
        quoting=csv.QUOTE_MINIMAL if quote else csv.QUOTE_NONE,
        doublequote=True,
        skipinitialspace=False,
        strict=strict,
    )


def _decode(raw: bytes, encoding: str, loc: str, sep: str, quote: str | None) -> str:
    codec = "utf-8-sig" if _encoding(encoding) == "utf-8" else encoding
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.end]
        row, column = _locate(raw[: exc.start].decode(codec, errors="replace"), sep, quote)
        where = " in the header" if row is None else ""
        raise InputError(
            f"cannot decode the bytes as {encoding}{where}; pass the file's encoding as `encoding` "
            "(e.g. encoding='latin-1' or 'cp1252')",
            file=loc,
            column=column,
            value=bad,
            row=row,
        ) from exc
    return text[1:] if text.startswith("\ufeff") else text


def _locate(prefix: str, sep: str, quote: str | None) -> tuple[int | None, str | None]:
    """Data row (1-based; None for the header) and column where text ``prefix`` ends."""
    with contextlib.suppress(csv.Error):
        records = [r for r in _reader(prefix, sep, quote, strict=False) if r]
        if prefix.endswith(("\n", "\r")) or not records:
            index, field = len(records), 0
        else:
            index, field = len(records) - 1, len(records[-1]) - 1
        if index == 0:
            return None, None
        header = records[0]
        return index, header[field] if field < len(header) else None
    return None, None


def _guess_separator(text: str, sep: str, quote: str | None) -> str | None:
    """Another likely separator that splits the one-column header, preferring a consistent one."""
    sample = text[:_SAMPLE_CHARS]
    best: tuple[bool, int] | None = None
    found = None
    for cand in _LIKELY_SEPARATORS:
        if cand in (sep, quote):
            continue
        try:
            records = [r for r in itertools.islice(_reader(sample, cand, quote, strict=False), 200) if r]
        except csv.Error:
            continue
        if len(sample) < len(text):
            records = records[:-1]
        if not records or len(records[0]) < 2:
            continue
        width = len(records[0])
        consistent = all(len(r) == width for r in records[1:_SAMPLE_RECORDS])
        score = (consistent, width)
        if best is None or score > best:
            best, found = score, cand
    return found


def _csv_syntax_error(exc: csv.Error, row: int | None, line: int, loc: str) -> InputError:
    text = str(exc)
    if "unexpected end of data" in text:
        msg = f"unterminated quoted field: a quote opened at line {line} is never closed"
    elif "field larger than field limit" in text:
        msg = f"a field is longer than {csv.field_size_limit()} characters (an unterminated quote?) near line {line}"
    else:
        msg = f"malformed CSV at line {line}: {_one_line(exc)}"
    if row is None:
        msg += " (in the header)"
    return InputError(msg, file=loc, row=row)


#: Files larger than this are parsed by pyarrow's multi-threaded CSV reader first (about 10× faster);
#: whatever it rejects, and every smaller file, goes through the strict reader below, whose errors
#: name the row and the value.
ARROW_ABOVE_BYTES = 1 << 20


def _read_csv_arrow(raw: bytes, sep: str, encoding: str, quote: str | None) -> pd.DataFrame | None:
    """Fast path: every column as text with pyarrow, over the file's bytes (read once); None when the
    strict reader must decide."""
    try:
        if len(raw) <= ARROW_ABOVE_BYTES:
            return None
        import pyarrow as pa
        import pyarrow.csv as pacsv

        head = raw[: raw.find(b"\n") + 1 or len(raw)].decode(encoding, errors="replace").lstrip("\ufeff")
        names = next(csv.reader([head.rstrip("\r\n")], delimiter=sep, quotechar=quote or '"'))
        if len(names) <= 1 or len(set(names)) != len(names) or any(n == "" for n in names):
            return None
        table = pacsv.read_csv(
            pa.BufferReader(raw),
            read_options=pacsv.ReadOptions(encoding=encoding, use_threads=True),
            parse_options=pacsv.ParseOptions(
                delimiter=sep, quote_char=quote if quote else False, newlines_in_values=True
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except Exception:
        return None
    if table.num_rows == 0 or table.column_names != names:
        return None
    frame = table.to_pandas()
    return frame if all(pd.api.types.is_string_dtype(t) for t in frame.dtypes) else None


def _read_csv(loc: str, sep: str, encoding: str, quote: str | None, na: frozenset[str]) -> pd.DataFrame:
    raw = read_bytes(loc)  # once: the fast path and the strict reader parse these bytes, and they are hashed
    fast = _read_csv_arrow(raw, sep, encoding, quote)
    if fast is not None:
        return _apply_na(fast, na)
    text = _decode(raw, encoding, loc, sep, quote)
    del raw
    if not text.strip():
        raise InputError("input is empty", file=loc)
    text, sep = _separator_line(text, sep, loc)
    quote = _quotechar(quote or "", sep)
    reader = _reader(text, sep, quote, strict=True)
    header: list[str] | None = None
    rows: list[list[str]] = []
    width = 0
    line = 0
    try:
        with _gc_paused():  # a million small lists otherwise trigger many slow collections
            for record in reader:
                if not record:
                    line = reader.line_num
                    continue
                if header is None:
                    header = record
                    width = len(header)
                    if width == 1:
                        other = _guess_separator(text, sep, quote)
                        if other is not None:
                            raise InputError(
                                f"wrong separator? the header has one column; the file seems to use {other!r}",
                                file=loc,
                                key="separator",
                            )
                    _check_header(header, loc)
                elif len(record) != width:
                    raise _width_error(record, header, len(rows) + 1, reader.line_num, loc)
                else:
                    rows.append(record)
                line = reader.line_num
    except csv.Error as exc:
        raise _csv_syntax_error(exc, None if header is None else len(rows) + 1, line + 1, loc) from exc
    if header is None:
        raise InputError("input is empty", file=loc)
    if not rows:
        raise InputError("input is empty: there is a header but no data rows", file=loc)
    cells = np.array(rows, dtype=object)
    del rows
    frame = pd.DataFrame(cells, columns=header, dtype=object)
    return _apply_na(frame, na)


#: Excel's first line naming the separator of a CSV file (``sep=;``)
_SEP_LINE = re.compile(r"sep=(.)\r?(?:\n|$)")


def _separator_line(text: str, sep: str, loc: str) -> tuple[str, str]:
    """The text without Excel's ``sep=X`` first line, and the separator to read with: the line's,
    when the caller asked for the default ``,`` or the same one; another is an error naming both
    (the file says how it is written, the caller said otherwise: neither may silently win)."""
    m = _SEP_LINE.match(text)
    if m is None:
        return text, sep
    declared = _separator(m[1], loc)
    if declared != sep and sep != ",":
        raise InputError(f"the file's first line says sep={declared} but the separator given is {sep!r}; give "
                         f"separator {declared!r} or remove the line", file=loc, key="separator")
    return "\n" + text[m.end():], declared  # (a blank line in its place keeps the line numbers)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (parsing allocates many lists and no cycles)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _width_error(record: list[str], header: list[str], row: int, line: int, loc: str) -> InputError:
    n, width = len(record), len(header)
    if n > width:
        return InputError(
            f"the row has {n} fields but the header has {width} (line {line}); a wrong separator or "
            "an unquoted separator inside a value?",
            file=loc,
            value=record[width],
            row=row,
        )
    return InputError(
        f"the row has {n} fields but the header has {width} (line {line}); a value with an unquoted line break?",
        file=loc,
        column=header[n],
        row=row,
    )


# ---------------------------------------------------------------------------------------------- write


def _write_csv(
    frame: pd.DataFrame, names: list[str], target: Path, loc: str, separator: str, encoding: str, neutralise: bool
) -> None:
    """Write ``frame`` as CSV to ``target`` through a temporary file (see :func:`anonkit.io.write_table`);
    a frame with categorical columns is written by :func:`anonkit.io.batches.write_csv_compact` instead
    (the registry, :mod:`anonkit.io.registry`, chooses)."""
    sep = _separator(separator, loc)
    _encoding(encoding)
    data = _csv_bytes(frame, names, sep, encoding, neutralise)
    atomic_write(target, loc, lambda tmp: Path(tmp).write_bytes(data))


def _neutralise(col: pd.Series) -> pd.Series:
    """Text cells that a spreadsheet would run as a formula, prefixed with ``'`` (numbers kept).

    The patterns are matched once per distinct value (a cell's verdict is its value's), then the
    risky cells, if any, are rewritten."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        col = col.astype(object)
    text = ("string", "mixed", "mixed-integer")
    if col.dtype != object and pd.api.types.infer_dtype(col, skipna=True) not in text:
        return col  # a typed column (numbers, dates, booleans): decided by its dtype, no pass over the cells
    codes, uniques = pd.factorize(col)  # (missing cells: −1, never risky)
    values = pd.Series(uniques, dtype=col.dtype if len(uniques) else object)
    if col.dtype == object and pd.api.types.infer_dtype(values, skipna=True) not in text:
        return col
    risky_value = values.str.match(FORMULA_START, na=False) & ~values.str.fullmatch(NUMBER, na=False)
    risky_value = np.append(risky_value.to_numpy(dtype=bool), False)  # (code −1 reads the last entry)
    risky = risky_value[codes]
    if not risky.any():
        return col
    out = col.copy()
    out[risky] = "'" + col[risky]
    return out


def _neutralise_columns(out: pd.DataFrame) -> None:
    """Neutralise every column of ``out`` in place (a shallow copy: columns are replaced, not changed)."""
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        fixed = _neutralise(col)
        if fixed is not col:
            out.isetitem(i, fixed)


def _csv_bytes(frame: pd.DataFrame, names: list[str], sep: str, encoding: str, neutralise: bool) -> bytes:
    out = frame.copy(deep=False)
    header = names
    if neutralise:
        header = _neutralise(pd.Series(names, dtype=object)).tolist()
        _neutralise_columns(out)
    out.columns = pd.Index(header, dtype=object)
    text = out.to_csv(
        None,
        sep=sep,
        index=False,
        header=True,
        na_rep="",
        lineterminator="\n",
        quoting=csv.QUOTE_MINIMAL,
        quotechar='"',
        doublequote=True,
    )
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise _encode_error(out, header, encoding, exc) from exc


def _encode_error(out: pd.DataFrame, header: list[str], encoding: str, exc: UnicodeEncodeError) -> InputError:
    msg = f"cannot encode the value as {encoding}; pass another `encoding` (e.g. encoding='utf-8')"
    for name in header:
        try:
            name.encode(encoding)
        except UnicodeEncodeError:
            return InputError(msg + " (a column name)", column=name)
    for i, name in enumerate(header):
        col = out.iloc[:, i]
        if pd.api.types.infer_dtype(col, skipna=True) not in ("string", "mixed", "mixed-integer", "categorical"):
            continue
        for r, v in enumerate(col.to_numpy(dtype=object)):
            if isinstance(v, str):
                try:
                    v.encode(encoding)
                except UnicodeEncodeError:
                    return InputError(msg, column=name, value=v, row=r + 1)
    return InputError(f"cannot encode the table as {encoding}: {_one_line(exc)}")

