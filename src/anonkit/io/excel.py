"""Excel workbooks (``.xlsx``), through the optional openpyxl package (``pip install "anonkit[excel]"``).

*Reading* takes one sheet (``sheet``, default the first worksheet) and reads every cell as text, so
that anonkit infers types exactly as for CSV: a number is its shortest text (an integer stored as
``42.0`` reads ``"42"``, ``0.1`` reads ``"0.1"``), a date-formatted cell is ISO text (``2024-03-01``,
or ``2024-03-01T08:30:00`` with a time of day; a time alone ``08:30:00``; a duration ``36:15:00``),
a boolean is ``TRUE`` or ``FALSE`` (as Excel shows it), an error value is its code (``#N/A``), a
text cell is its text (leading zeros kept). A formula cell reads as the value Excel saved with it;
a formula without a saved value (a file written by a program that does not compute formulas) is
an error naming the cell. An empty cell is ``""`` unless ``na_values`` says otherwise, as in CSV.
The header is the first row holding a value (or ``header_row``, the sheet's row number); the
columns run from its first to its last named cell, rows wholly empty are skipped, and a value
outside the named columns is an error naming the cell. The workbook is opened read-only with
openpyxl (sheets, shared strings, date styles) and the sheet's XML is parsed here, which is two to
three times faster than openpyxl's cell objects and tells a formula without a value from an empty
cell (openpyxl reads both as ``None``).

*Writing* puts the frame on one sheet (``sheet``, default ``Sheet1``) with openpyxl's write-only
workbook, through a temporary file moved into place. A written file never holds a formula: every
text cell is a string cell, even one starting with ``=`` (and ``neutralise`` prefixes ``'`` to text
starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return, as for CSV). Text stays text (so
``"081675"`` keeps its zero), numbers, booleans and dates are written as such (a float with the 16
significant digits openpyxl writes), an integer Excel cannot hold exactly (beyond 2**53) as its
text, a date and time with a time zone as its ISO text; missing values are empty cells. A sheet
holds at most 1,048,576 rows and 16,384 columns and a cell 32,767 characters: more is refused, never
cut. The workbook records when it was written, so the same frame does not give the same bytes.
"""

from __future__ import annotations

import datetime as dt
import math
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import IO, Any
from xml.etree.ElementTree import ParseError, iterparse

import numpy as np
import pandas as pd

from anonkit.errors import InputError
from anonkit.io._files import _atomic_write, _check_file
from anonkit.io._frames import _apply_na, _check_header
from anonkit.io._messages import _one_line, _optional
from anonkit.io.csv import _neutralise

#: the sheet a table is written to when ``sheet`` is not given
DEFAULT_SHEET = "Sheet1"
#: Excel's limits: rows and columns of a sheet, characters of a cell, characters of a sheet name
MAX_ROWS = 1_048_576
MAX_COLUMNS = 16_384
MAX_CELL_CHARS = 32_767
_MAX_SHEET_NAME = 31
_SHEET_NAME_FORBIDDEN = set("\\/?*[]:")
#: integers beyond this lose digits as an Excel number (a double): they are written as text
_EXACT_INT = 2**53

_NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_ROW = _NS + "row"
_CELL = _NS + "c"
_VALUE = _NS + "v"
_FORMULA = _NS + "f"
_INLINE = _NS + "is"
_TEXT = _NS + "t"
_PHONETIC = _NS + "rPh"
_DIGITS = "0123456789"


class _NoValue:
    """The text of a formula cell saved without its value (an error once its column is known)."""


_NO_VALUE: Any = _NoValue()


def _openpyxl(action: str, loc: str) -> ModuleType:
    """The openpyxl module; InputError naming the extra if it is not installed."""
    return _optional("openpyxl", "excel", "Excel files", action, loc)


def _check_openpyxl(loc: str) -> None:
    """InputError if openpyxl (the ``excel`` extra) is not installed."""
    _openpyxl("writing", loc)


def _sheet_title(sheet: str | None) -> str:
    """The name of the sheet to write; InputError if Excel would refuse it."""
    if sheet is None:
        return DEFAULT_SHEET
    if not isinstance(sheet, str) or not sheet.strip():
        raise InputError("a sheet name must be non-empty text", key="sheet", value=sheet)
    if len(sheet) > _MAX_SHEET_NAME:
        raise InputError(f"an Excel sheet name has at most {_MAX_SHEET_NAME} characters", key="sheet", value=sheet)
    bad = sorted(_SHEET_NAME_FORBIDDEN.intersection(sheet))
    if bad:
        raise InputError(f"an Excel sheet name cannot contain {' '.join(bad)}", key="sheet", value=sheet)
    if sheet.startswith("'") or sheet.endswith("'") or sheet.lower() == "history":
        raise InputError("Excel reserves this sheet name (or a leading or trailing ')", key="sheet", value=sheet)
    return sheet


def _header_row(header_row: int | None) -> int | None:
    if header_row is None:
        return None
    if isinstance(header_row, bool) or not isinstance(header_row, int | np.integer) or header_row < 1:
        raise InputError("header_row must be a row number (1 for the first row)", key="header_row",
                         value=header_row)
    return int(header_row)


# ---------------------------------------------------------------------------------------------- read


def _read_excel(loc: str, sheet: str | None, header_row: int | None, na: frozenset[str]) -> pd.DataFrame:
    """One sheet of the workbook ``loc`` as a frame of text (see the module's docstring)."""
    _openpyxl("reading", loc)
    first = _header_row(header_row)
    if sheet is not None and (not isinstance(sheet, str) or not sheet):
        raise InputError("a sheet name must be non-empty text", file=loc, key="sheet", value=sheet)
    if _check_file(loc) == 0:
        raise InputError("input is empty", file=loc)
    with open(loc, "rb") as fh:  # a file object: openpyxl then does not insist on the file name's suffix
        reader = _open_workbook(fh, loc)
        try:
            title, path = _worksheet(reader, sheet, loc)
            wb = reader.wb
            try:
                with reader.archive.open(path) as source:
                    header, rows = _table(_cells(source, reader.shared_strings, wb._date_formats,
                                                 wb._timedelta_formats, wb.epoch), title, first, loc)
            except InputError:
                raise
            except (ParseError, ValueError, IndexError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
                raise InputError(f"not a valid Excel workbook: {_one_line(exc)}", file=loc, key="sheet",
                                 value=title) from exc
        finally:
            reader.archive.close()
    if not rows:
        raise InputError(f"input is empty: sheet {title!r} has a header but no data rows", file=loc)
    frame = pd.DataFrame(np.array(rows, dtype=object).reshape(len(rows), len(header)), columns=header, dtype=object)
    return _apply_na(frame, na)


def _open_workbook(fh: IO[bytes], loc: str) -> Any:
    """openpyxl's reader of the workbook, with what a sheet needs read: the list of sheets and where
    their XML is, the shared strings, the styles (which style ids are dates or durations) and the
    date system. This is :func:`openpyxl.load_workbook` in read-only mode without its last step,
    which parses the whole of every sheet whose XML does not state its size (openpyxl writes none)."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    try:
        reader = ExcelReader(fh, read_only=True, data_only=True)
        reader.read_manifest()
        reader.read_strings()
        reader.read_workbook()
        apply_stylesheet(reader.archive, reader.wb)
        return reader
    except zipfile.BadZipFile as exc:
        raise InputError("not a valid Excel .xlsx workbook (an old .xls or a password-protected file?): "
                         f"{_one_line(exc)}", file=loc) from exc
    except Exception as exc:  # openpyxl raises many kinds on a broken archive
        raise InputError(f"not a valid Excel .xlsx workbook: {_one_line(exc)}", file=loc) from exc


def _worksheet(reader: Any, sheet: str | None, loc: str) -> tuple[str, str]:
    """The name and the XML's path in the archive of the worksheet named ``sheet`` (exactly, else
    ignoring case), or of the first one."""
    try:
        found = [(s.name, rel.target, "chartsheet" in (rel.Type or "")) for s, rel in reader.parser.find_sheets()
                 if rel.target in reader.valid_files]
    except Exception as exc:  # a workbook.xml naming sheets that are not there
        raise InputError(f"not a valid Excel .xlsx workbook: {_one_line(exc)}", file=loc) from exc
    sheets = [(name, path) for name, path, chart in found if not chart]
    listed = ", ".join(name for name, _ in sheets) if sheets else "none"
    if sheet is None:
        if not sheets:
            raise InputError("the workbook has no worksheet", file=loc)
        return sheets[0]
    named = [s for s in sheets if s[0] == sheet] or [s for s in sheets if s[0].lower() == sheet.lower()]
    if not named:
        what = "a chart sheet, not a worksheet" if any(name == sheet for name, _, _ in found) else "unknown sheet"
        raise InputError(f"{what}; the workbook has sheets: {listed}", file=loc, key="sheet", value=sheet)
    return named[0]


def _cells(
    source: IO[bytes], strings: list[str], dates: Any, durations: Any, epoch: dt.datetime
) -> Iterator[tuple[int, list[tuple[int, str, str | None]]]]:
    """Each row of the sheet's XML that holds a value: its number and ``(column, text, reference)`` of
    every cell with a value (text per the module's docstring; :data:`_NO_VALUE` for a formula saved
    without its value). Numbers are converted once per distinct (text, style)."""
    from openpyxl.utils.datetime import from_excel, from_ISO8601

    numbers: dict[tuple[str, str | None], str] = {}
    columns: dict[str, int] = {}
    row_number = 0
    for _event, el in iterparse(source):
        if el.tag != _ROW:
            continue
        r = el.get("r")
        row_number = int(r) if r else row_number + 1
        out: list[tuple[int, str, str | None]] = []
        col = 0
        for c in el:
            if c.tag != _CELL:
                continue
            ref = c.get("r")
            if ref:
                letters = ref.rstrip(_DIGITS)
                col = columns.get(letters) or columns.setdefault(letters, _column_number(letters))
            else:
                col += 1
            t = c.get("t")
            if t == "inlineStr":
                inline = c.find(_INLINE)
                if inline is not None and len(inline) == 1 and inline[0].tag == _TEXT:
                    text = inline[0].text or ""  # <is><t>text</t></is>, what openpyxl writes
                else:
                    text = _inline_text(c)
            else:
                v = c.find(_VALUE)
                raw = None if v is None else v.text
                if not raw:
                    # no value: an empty cell, a formula whose text result is "" (t="str" with <v/>),
                    # or a formula saved without its value (no <v>, or an empty one as openpyxl writes)
                    if (v is None or t != "str") and c.find(_FORMULA) is not None:
                        text = _NO_VALUE
                    else:
                        continue
                elif t is None or t == "n":
                    style = c.get("s")
                    key = (raw, style)
                    text = numbers.get(key)
                    if text is None:
                        text = numbers[key] = _number_text(raw, style, dates, durations, epoch, from_excel)
                elif t == "s":
                    text = strings[int(raw)]
                elif t == "b":
                    text = "TRUE" if raw.strip() in ("1", "true") else "FALSE"
                elif t == "d":
                    text = _date_text(from_ISO8601(raw))
                else:  # "str" (a formula's text), "e" (an error value such as #N/A)
                    text = raw
            if text != "":
                out.append((col, text, ref))
        el.clear()
        if out:
            yield row_number, out


def _column_number(letters: str) -> int:
    """``"A"`` → 1, ``"AB"`` → 28; ValueError for a malformed cell reference."""
    if not letters or not letters.isascii() or not letters.isalpha() or len(letters) > 3:
        raise ValueError(f"malformed cell reference {letters!r}")
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _column_letters(n: int) -> str:
    letters = ""
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _inline_text(c: Any) -> str:
    """The text of an inline-string cell (its runs, without phonetic guides)."""
    inline = c.find(_INLINE)
    if inline is None:
        return ""
    parts: list[str] = []
    for node in inline.iter():
        if node.tag == _PHONETIC:
            break  # phonetic runs come after the text
        if node.tag == _TEXT and node.text:
            parts.append(node.text)
    return "".join(parts)


def _number_text(raw: str, style: str | None, dates: Any, durations: Any, epoch: dt.datetime, from_excel: Any) -> str:
    """A number cell as text: ISO text when its style is a date or duration, else its shortest text."""
    x = float(raw)
    if style is not None and style.isdigit():
        s = int(style)
        if s in dates:
            try:
                return _date_text(from_excel(x, epoch, timedelta=s in durations))
            except (OverflowError, ValueError):
                pass  # not a date Python can hold: the number itself
    if x.is_integer() and abs(x) < _EXACT_INT:
        return str(int(x))
    return repr(x)


def _date_text(value: object) -> str:
    """A date, time, date and time or duration as ISO text (to the millisecond, Excel's precision)."""
    if isinstance(value, dt.datetime):
        if value.hour == value.minute == value.second == value.microsecond == 0:
            return value.date().isoformat()
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.time):
        return value.isoformat(timespec="milliseconds" if value.microsecond else "seconds")
    if isinstance(value, dt.timedelta):
        ms = round(value.total_seconds() * 1000)
        sign = "-" if ms < 0 else ""
        seconds, ms = divmod(abs(ms), 1000)
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        return f"{sign}{hours}:{minutes:02d}:{seconds:02d}" + (f".{ms:03d}" if ms else "")
    return str(value)


def _table(
    rows: Iterator[tuple[int, list[tuple[int, str, str | None]]]], title: str, header_row: int | None, loc: str
) -> tuple[list[str], list[list[str]]]:
    """The header and the data rows (lists of text) of a sheet's rows of cells."""
    header: list[str] | None = None
    first = last = 0
    data: list[list[str]] = []
    for number, cells in rows:
        if header is None:
            if header_row is not None and number < header_row:
                continue
            if header_row is not None and number > header_row:
                break  # the header row holds no value
            header, first, last = _header(cells, title, number, loc)
            width = last - first + 1
            continue
        row = [""] * width
        for col, text, ref in cells:
            if col < first or col > last:
                raise InputError(
                    f"a value outside the header's columns at {_where(title, ref, col, number)}; name its column "
                    "in the header row or clear the cell",
                    file=loc, value=text if text is not _NO_VALUE else None, row=len(data) + 1,
                )
            if text is _NO_VALUE:
                raise _no_value(title, ref, col, number, header[col - first], len(data) + 1, loc)
            row[col - first] = text
        data.append(row)
    if header is None:
        if header_row is not None:
            raise InputError(f"row {header_row} of sheet {title!r} is empty; header_row must be the row of column "
                             "names", file=loc, key="header_row", value=header_row)
        raise InputError(f"input is empty: sheet {title!r} holds no value", file=loc)
    return header, data


def _header(cells: list[tuple[int, str, str | None]], title: str, number: int, loc: str) -> tuple[list[str], int, int]:
    for col, text, ref in cells:
        if text is _NO_VALUE:
            raise _no_value(title, ref, col, number, None, None, loc)
    by_column = {col: text for col, text, _ in cells}
    first, last = min(by_column), max(by_column)
    names = [by_column.get(col, "") for col in range(first, last + 1)]
    for col, name in zip(range(first, last + 1), names, strict=True):
        if name == "":
            raise InputError(f"the header cell {title}!{_column_letters(col)}{number} is empty; every column needs "
                             "a name", file=loc)
    _check_header(names, loc)
    return names, first, last


def _where(title: str, ref: str | None, col: int, number: int) -> str:
    return f"{title}!{ref or f'{_column_letters(col)}{number}'}"


def _no_value(title: str, ref: str | None, col: int, number: int, column: str | None, row: int | None,
              loc: str) -> InputError:
    return InputError(
        f"the formula cell {_where(title, ref, col, number)} has no saved value; open the workbook in Excel or "
        "LibreOffice and save it so that its formulas are computed",
        file=loc, column=column, row=row,
    )


# ---------------------------------------------------------------------------------------------- write


def _write_excel(frame: pd.DataFrame, names: list[str], target: Path, loc: str, sheet: str | None,
                 neutralise: bool) -> None:
    """Write ``frame`` as one sheet of a new workbook at ``target`` through a temporary file."""
    openpyxl = _openpyxl("writing", loc)
    title = _sheet_title(sheet)
    n = len(frame)
    if n + 1 > MAX_ROWS:
        raise InputError(
            f"an Excel sheet holds at most {MAX_ROWS:,} rows: the table has {n:,} rows and a header; write CSV, "
            "Parquet or DuckDB instead", file=loc,
        )
    if len(names) > MAX_COLUMNS:
        raise InputError(f"an Excel sheet holds at most {MAX_COLUMNS:,} columns: the table has {len(names):,}",
                         file=loc)
    header = _neutralise(pd.Series(names, dtype=object)).tolist() if neutralise else list(names)
    for name, text in zip(names, header, strict=True):
        if len(text) > MAX_CELL_CHARS:
            raise InputError(f"an Excel cell holds at most {MAX_CELL_CHARS:,} characters (a column name)", column=name)
    columns: list[list[object]] = []
    special: set[int] = set()
    for i, name in enumerate(names):
        values, forced = _excel_column(frame.iloc[:, i], name, neutralise)
        columns.append(values)
        special.update(forced)

    def save(tmp: str) -> None:
        _save(openpyxl, tmp, title, header, names, columns, special)

    _atomic_write(target, loc, save)


def _save(openpyxl: ModuleType, tmp: str, title: str, header: list[str], names: list[str],
          columns: list[list[object]], special: set[int]) -> None:
    from openpyxl.cell import WriteOnlyCell

    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet(title)

    def strings(row: list[object] | tuple[object, ...]) -> list[object]:
        """The row with every text cell openpyxl would take for a formula or an error as a string cell."""
        out: list[object] = []
        for v in row:
            if isinstance(v, str) and _not_plain(v):
                cell = WriteOnlyCell(ws, value=v)
                cell.data_type = "s"
                out.append(cell)
            else:
                out.append(v)
        return out

    _append(ws, strings(header), names, header, None)
    for i, row in enumerate(zip(*columns, strict=True)):
        _append(ws, strings(row) if i in special else row, names, row, i + 1)
    wb.save(tmp)


def _append(ws: Any, cells: Any, names: list[str], values: Any, row: int | None) -> None:
    try:
        ws.append(cells)
    except Exception as exc:  # openpyxl refuses control characters (and anything else it cannot store)
        for name, v in zip(names, values, strict=True):
            if isinstance(v, str) and any(ord(ch) < 32 and ch not in "\t\n\r" for ch in v):
                raise InputError("Excel cannot store control characters", column=name, value=v, row=row) from exc
        raise InputError(f"cannot write the row to Excel: {_one_line(exc)}", row=row) from exc


def _not_plain(text: str) -> bool:
    """Whether openpyxl would store this text as a formula (``=…``) or an error value (``#N/A``)."""
    return text.startswith("=") or text in _ERROR_CODES


_ERROR_CODES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})


def _excel_column(col: pd.Series, name: str, neutralise: bool) -> tuple[list[object], list[int]]:
    """A column as the Python values openpyxl writes, and the (0-based) rows of text it must be forced
    to keep as text; InputError naming the cell Excel cannot store."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "b":
        return col.tolist(), []
    if isinstance(dtype, np.dtype) and dtype.kind in "iu":
        values = col.tolist()
        big = np.flatnonzero(np.abs(col.to_numpy(dtype=float)) >= _EXACT_INT)
        for r in big:
            values[r] = str(values[r])
        return values, []
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        arr = col.to_numpy()
        bad = np.flatnonzero(np.isinf(arr))
        if len(bad):
            raise InputError("Excel cannot store an infinite number", column=name, value=arr[bad[0]],
                             row=int(bad[0]) + 1)
        return col.astype(object).where(col.notna(), None).tolist(), []
    if isinstance(dtype, pd.CategoricalDtype | pd.StringDtype | pd.ArrowDtype):
        col = col.astype(object).where(col.notna(), None)
    if neutralise:
        col = _neutralise(col)
    values = [_excel_value(v, name, r) for r, v in enumerate(col.to_numpy(dtype=object))]
    forced = [r for r, v in enumerate(values) if isinstance(v, str) and _not_plain(v)]
    return values, forced


def _excel_value(v: object, name: str, r: int) -> object:
    """One cell as a value openpyxl writes (``None`` for missing)."""
    if isinstance(v, str):
        if len(v) > MAX_CELL_CHARS:
            raise InputError(f"an Excel cell holds at most {MAX_CELL_CHARS:,} characters", column=name,
                             value=v[:40] + "...", row=r + 1)
        return v
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v if abs(v) < _EXACT_INT else str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if math.isinf(v):
            raise InputError("Excel cannot store an infinite number", column=name, value=v, row=r + 1)
        return v
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.isoformat()  # Excel has no time zones: the ISO text keeps the offset
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v
    if isinstance(v, pd.Timedelta | dt.timedelta):
        return str(v)
    if isinstance(v, Decimal):
        return float(v) if v.is_finite() else str(v)
    raise InputError(f"Excel cannot store this value (a {type(v).__name__})", column=name, value=v, row=r + 1)
